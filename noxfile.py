"""Sessions: tests, conformance (the main job), conformance-llmz, conformance-blind, report, snapshots, spec,
mutants, mutation, fuzz, fuzz-llmz, bench, lint, typecheck, demo, reliability; and shared-env, which only
builds the environment (`python3 bootstrap.py python ...` asks for it).

Every session needs the same packages (the project with its dev extra), so they share one environment,
``.nox/shared``, instead of building one each: set-up is paid once per clone, not once per session. It is
made with uv when uv is installed (``bootstrap.py`` puts it in ``.venv`` beside nox), else with ``venv`` and
pip. A stamp records a digest of what the install depends on (pyproject.toml, setup.py, the interpreter);
a repeated run whose stamp matches installs nothing. Delete ``.nox/shared`` to start over.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import types
from pathlib import Path

import nox

nox.options.sessions = ["tests"]

ROOT = Path(__file__).resolve().parent
SHARED = ROOT / ".nox" / "shared"
BIN = SHARED / ("Scripts" if os.name == "nt" else "bin")
STAMP = SHARED / ".installed"

#: The sessions manage their own (shared) environment; nox's per-session virtualenvs are not used.
OWN_ENV = "none"


def _uv() -> str | None:
    try:
        from uv import find_uv_bin

        return str(find_uv_bin())
    except (ImportError, FileNotFoundError):
        return shutil.which("uv")


def _wanted() -> str:
    return _bootstrap().shared_env_digest()


def _bootstrap() -> types.ModuleType:
    """bootstrap.py, loaded by its path: it owns the digest that says when ``.nox/shared`` is current."""
    spec = importlib.util.spec_from_file_location("_bootstrap", ROOT / "bootstrap.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _shared(s: nox.Session) -> None:
    """Create and fill ``.nox/shared`` unless its stamp says it is current; put it first on PATH."""
    wanted = _wanted()
    current = STAMP.read_text(encoding="utf-8") if STAMP.exists() else ""
    uv = _uv()
    if current == wanted:
        s.log(f"using {SHARED.relative_to(ROOT)} (up to date, nothing to install)")
    elif uv:
        if not (BIN / "python").exists():
            s.run(uv, "venv", "--quiet", "--seed", "--python", sys.executable, str(SHARED), external=True)
        install = [uv, "pip", "install", "--quiet", "--python", str(BIN / "python"), "-e", ".[dev]"]
        if not _from_cache(s, install):
            s.run(*install, external=True)
    else:
        if not (BIN / "python").exists():
            s.run(sys.executable, "-m", "venv", str(SHARED), external=True)
        s.run(str(BIN / "python"), "-m", "pip", "install", "-q", "-e", ".[dev]", external=True)
    if current != wanted:
        STAMP.write_text(wanted, encoding="utf-8")
    s.env["VIRTUAL_ENV"] = str(SHARED)
    s.env["PATH"] = os.pathsep.join([str(BIN), os.environ.get("PATH", "")])
    _keep_bytecode(s)


def _from_cache(s: nox.Session, install: list[str]) -> bool:
    """Try the install with ``--offline`` first: True when uv's cache held everything it needed.

    Why. Online, uv asks the index whether each of the 80-odd cached packages is still current before it
    resolves: 3 to 7 s of a fresh clone's set-up spent confirming what the cache already holds (and more on
    a slow link). Offline it resolves from the cache in a fraction of a second, to versions that satisfy the
    same requirements. Where the cache lacks anything (a new machine, a new dependency) the offline attempt
    fails at once, says nothing, and the install runs online as before."""
    s.log("installing from uv's cache (--offline); online if anything is missing")
    done = subprocess.run([*install, "--offline"], cwd=ROOT, capture_output=True, check=False)
    if done.returncode != 0:
        s.log("not everything is in uv's cache: installing online")
    return done.returncode == 0


def _keep_bytecode(s: nox.Session) -> None:
    """Let the sessions' Python processes keep compiled bytecode, in ``.nox/pycache``.

    Why. Some machines (CI images, sandboxes) set ``PYTHONDONTWRITEBYTECODE``, and uv installs without
    compiling, so on a fresh clone every process a session starts (the xdist workers, each stdio server,
    each ``conformance run`` a test starts, the llmz workers) compiled pydantic, hypothesis and the project
    from source again: about 1 s of CPU per process instead of 0.1 s, well over a minute of the test
    command. The bytecode goes under ``.nox/`` (``PYTHONPYCACHEPREFIX``), a folder that is already ours to
    fill and delete, so the source tree and the installed packages stay as the variable's owner wanted
    them: nothing is written next to them."""
    s.env["PYTHONPYCACHEPREFIX"] = str(ROOT / ".nox" / "pycache")
    s.env["PYTHONDONTWRITEBYTECODE"] = None  # nox leaves a variable set to None out of the commands' env


def _run(s: nox.Session, program: str, *args: str) -> None:
    """Run one of the shared environment's programs (``python``, ``pytest``, ``ruff``, ...)."""
    _shared(s)
    s.run(str(BIN / program), *args, external=True)


@nox.session(name="shared-env", venv_backend=OWN_ENV)
def shared_env(s: nox.Session) -> None:
    """Only build or refresh ``.nox/shared``: what ``python3 bootstrap.py python ...`` asks for first."""
    _shared(s)


@nox.session(venv_backend=OWN_ENV)
def tests(s: nox.Session) -> None:
    """The project's own tests, including the whole suite run against the reference (in-process and stdio).

    One worker per core and one more (three on the project's 2-core machine); ``loadgroup`` hands out one
    test (or one group, tests/conftest.py) at a time in the order tests/conftest.py sets, longest first, so
    the workers finish together. Why one more than the cores: with two workers on two cores, a fifth of the
    cores' time went idle while tests waited (on child processes starting, the llmz bridge's Node process,
    timeouts the hostile tests provoke), and a third worker fills it. Warm runs on a quiet machine
    (2026-12-02): pytest 169 and 163 s with two workers, 160 and 153 s with three, 154 and 155 s with four,
    which only spent more CPU."""
    workers = str((os.cpu_count() or 2) + 1)
    _run(s, "pytest", "-n", workers, "--dist", "loadgroup", "--no-loadscope-reorder", *s.posargs)


@nox.session(venv_backend=OWN_ENV)
def reliability(s: nox.Session) -> None:
    """The hostile cases only (misbehaving implementations, bad files, a loaded fake server, fuzzing, and
    the hostile llmz programs among the scenarios); they also run as part of ``tests``."""
    _run(s, "pytest", "-n", "2", "-m", "reliability", *s.posargs)


@nox.session(venv_backend=OWN_ENV)
def conformance(s: nox.Session) -> None:
    """Run the conformance suite: ``nox -s conformance -- --impl <spec> [--report-dir DIR]``."""
    _run(s, "python", "-m", "conformance", "run", *s.posargs)


@nox.session(name="conformance-llmz", venv_backend=OWN_ENV)
def conformance_llmz(s: nox.Session) -> None:
    """The suite against llmz 1.0.1 through the Node bridge, with its expected-failures baseline."""
    _run(
        s, "python", "-m", "conformance", "run", "--impl", "llmz-node",
        "--expected-failures", "conformance/baselines/llmz-1.0.1.yaml", *s.posargs,
    )  # fmt: skip


#: The blind second implementations under blind/, each written from its seed document alone (issue 22).
BLIND = ("falai", "akan")


@nox.session(name="conformance-blind", venv_backend=OWN_ENV)
def conformance_blind(s: nox.Session) -> None:
    """The suite against each blind implementation (Node, through stdio) with its baseline.

    Reports go to build/conformance/blind-<system>/. Needs Node 20 on PATH: without it the session fails
    (these runs are part of CI; a skipped foreign run would prove nothing)."""
    if shutil.which("node") is None:
        s.error("conformance-blind needs Node 20 (node) on PATH to run the blind implementations")
    for system in BLIND:
        _run(
            s, "python", "-m", "conformance", "run", "--impl", f"stdio:node blind/{system}/adapter.mjs",
            "--system", system, "--expected-failures", f"conformance/baselines/blind-{system}.yaml",
            "--report-dir", f"build/conformance/blind-{system}", *s.posargs,
        )  # fmt: skip


@nox.session(venv_backend=OWN_ENV)
def report(s: nox.Session) -> None:
    """report.html for the reference and llmz 1.0.1 side by side, and its screenshot in headless Chromium.

    Writes ``build/conformance/showcase/report.html`` and ``report.png``; without Node the page holds the
    reference alone, and without Chromium the screenshot is skipped with a message.
    """
    _run(s, "python", "-m", "conformance.report.showcase", *s.posargs)


@nox.session(venv_backend=OWN_ENV)
def snapshots(s: nox.Session) -> None:
    """Regenerate the golden transcripts in fixtures/golden/ from the reference and list each one that moved
    (scenario, rules, what moved); ``nox -s snapshots -- --check`` lists them without writing."""
    _run(s, "python", "-m", "conformance.golden", *s.posargs)


@nox.session(venv_backend=OWN_ENV)
def spec(s: nox.Session) -> None:
    """Check the schemas are current, validate catalogue and scenarios, write build/spec/traceability.*;
    every untested rule must say why (--require-reasons); every rule's section and passages must be in its
    source document, where the seed documents are found (--anchors)."""
    _run(s, "python", "-m", "conformance.schemas", "--check")
    _run(s, "python", "-m", "conformance.catalogue", "--require-reasons", "--anchors", *s.posargs)


@nox.session(venv_backend=OWN_ENV)
def mutants(s: nox.Session) -> None:
    """Mutation score: every deliberately broken reference must be caught by the cases pinning its rules."""
    _run(s, "python", "-m", "conformance", "check-mutants", *s.posargs)


@nox.session(venv_backend=OWN_ENV)
def mutation(s: nox.Session) -> None:
    """The mutation score (Cosmic Ray over the rule-bearing modules, the suite as the test), recomputed.

    Without arguments: every figure recomputed from the committed record (``conformance/mutation_record``:
    per module the sampled mutants and how each ended) and ``conformance/mutation_triage.yaml``, without
    running a mutant, and checked against the committed ``figures.json``; it fails when they differ, a
    module's source changed since its sample, a survivor has no triage entry or an entry matches no
    sampled mutant. ``-- run`` samples and runs the mutants again (about 25 minutes on two cores) and
    rewrites the record; ``-- run --module llmz/fit`` re-runs one module. Options: ``--per-module N
    --per-module-extended M --seed S --system llmz --jobs 2``. The plan (modules, budget, operators) is in
    ``conformance/mutation_tool/plan.py``; ``docs/mutation.md`` explains the figures.
    """
    args = list(s.posargs) or ["score", "--check"]
    if args[0] not in ("run", "score"):
        args = ["run", *args]
    _run(s, "python", "-m", "conformance.mutation_tool", *args)


@nox.session(venv_backend=OWN_ENV)
def fuzz(s: nox.Session) -> None:
    """Generated cases, differential: ``nox -s fuzz -- --impl X [--examples N] [--seed S]``.

    Without arguments, 1,000 cases per system against the reference itself (it must find nothing); with
    ``--system``, that system only. Findings are written as scenarios under build/fuzz/<system>/.
    """
    args = list(s.posargs)
    if "--impl" not in args:
        args = ["--impl", "reference", *args]
    if "--examples" not in args:
        args += ["--examples", "1000"]
    systems = [] if "--system" in args else ["llmz", "falai", "akan"]
    for system in systems or [None]:
        _run(s, "python", "-m", "conformance", "fuzz", *args, *(["--system", system] if system else []))


@nox.session(name="fuzz-llmz", venv_backend=OWN_ENV)
def fuzz_llmz(s: nox.Session) -> None:
    """The bounded differential run against llmz 1.0.1 through the Node bridge, for CI.

    The baseline ``run`` uses names the known deviations (a disagreement on rules it lists is reported with
    its reason, not written). Anything else is written under build/fuzz/llmz/ and fails the run until it is
    a baseline entry with its reason or a scenario.
    """
    _run(
        s, "python", "-m", "conformance", "fuzz", "--impl", "llmz-node", "--system", "llmz",
        "--examples", "200", "--seed", "7",
        "--expected-failures", "conformance/baselines/llmz-1.0.1.yaml", *s.posargs,
    )  # fmt: skip


@nox.session(venv_backend=OWN_ENV)
def bench(s: nox.Session) -> None:
    """Scenarios per second against the reference, in-process and through stdio; the wall time of the whole
    suite with ``--jobs 1`` and ``--jobs 2`` (the reference, and llmz 1.0.1 where node is installed), and
    of the bounded fuzz run against llmz 1.0.1 likewise."""
    _run(s, "python", "-m", "conformance.bench", *s.posargs)


@nox.session(venv_backend=OWN_ENV)
def lint(s: nox.Session) -> None:
    _run(s, "ruff", "check", ".")
    _run(s, "lint-imports")


@nox.session(venv_backend=OWN_ENV)
def typecheck(s: nox.Session) -> None:
    _run(s, "mypy", "reference", "conformance", "variants")


@nox.session(venv_backend=OWN_ENV)
def demo(s: nox.Session) -> None:
    """Offline demos, no API key: ``nox -s demo -- examples/<system>/<agent>.py`` runs an example agent
    built on the simulator's API; with scenario ids (or nothing) it plays scenarios and prints them."""
    scripts = [arg for arg in s.posargs if arg.endswith(".py")]
    if scripts:
        for script in scripts:
            _run(s, "python", script)
        return
    _run(s, "python", "-m", "conformance.demo", *s.posargs)
