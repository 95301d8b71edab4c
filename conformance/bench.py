"""``python -m conformance.bench``: what the suite costs, in CPU seconds, measured so two runs compare.

Theory of operation. Every figure comes from whole runs of ``python -m conformance run`` in a child
process, timed by the CPU the process tree used (``RUSAGE_CHILDREN``: the harness, and the stdio
implementation it started and waited for) and by wall clock. CPU time is what we compare because this
machine is shared: wall time swings with the neighbours, CPU time much less. Runs being compared are
played as *interleaved pairs* (A B, B A, A B, ...) so drift hits both sides alike, repeated, and reported
as min and median; ratios are the median of the per-pair ratios.

Start-up is separated from per-case cost by running each configuration twice in every round: once over
all its scenarios (N) and once over a single one. Each round estimates ``per case = (all - one) / (N -
1)``; the figure is the median estimate (``start-up = one - per case``), and where the estimates come out
at or below zero the cases cost less than the noise and the figure says so instead of a number. The figures:

- ``suite``: the whole suite in-process, including start-up (scenarios/s) and per case;
- ``<system> stdio/in-process``: the same system's scenarios over stdio (``python -m
  conformance.players.server``) and in-process, both including start-up; and the same split into per
  case (what the protocol costs a case) and start-up (for stdio, the server's interpreter and imports
  beside the harness's), from runs over a single scenario of the system in the same rounds;
- ``llmz bridge/reference``: per-case cost of llmz 1.0.1 through the Node bridge against the reference
  on the llmz scenarios (only where node and npm are installed; ``--no-bridge`` leaves it out);
- ``wall: --jobs 2 / --jobs 1`` (issue 26): the whole suite's *wall* time with two worker processes over
  one, against the reference and against llmz 1.0.1 (the bridge, as above), as interleaved pairs; the
  time a runtime author waits. Every other figure runs ``--jobs 1``, so its CPU is one adapter process's.
  Wall time depends on the neighbours: on a loaded machine a second worker finds no idle core to use.
- ``fuzz wall: --jobs 2 / --jobs 1``: the same for ``fuzz`` against llmz 1.0.1 (the bounded run of ``nox
  -s fuzz-llmz``: 200 cases, seed 7, its baseline), with whether both wrote the same findings.

Busy scenarios. The hostile llmz scenarios (``llmz/hostile``: busy loops, microtask storms, doubling
strings) run until their containment limit stops them, so each burns about a second of CPU by design and
18 of them cost more than the other 389 together. The throughput figures (``suite``, the per-system
ratios) therefore leave the folders named by ``--exclude`` out (default ``llmz/hostile``), say so in
their line, and one more figure, ``whole suite``, times every scenario including them.

Whose CPU is counted. ``RUSAGE_CHILDREN`` only holds children that were waited for, and includes what
*they* waited for. The harness reaps the llmz reference's QuickJS workers (``reference.llmz.containment``
kills and waits for them at exit), the stdio server reaps its own, and the harness reaps the server, so
the workers' CPU is in every figure. A descendant whose parent died without reaping it would be
reparented and its CPU lost; so on Linux the bench makes itself a *child subreaper* (orphans come to it)
and reaps every leftover after each command, counting them too.

Caches. A run keeps parsed YAML and the tokenizer's vocabulary between runs (``conformance.yamlcache``,
``reference.llmz.vocabulary``); the bench first plays the whole suite once, untimed, so its figures are
those of a second run, as people see them. ``CONFORMANCE_CACHE_DIR=off`` times runs without them.

Bytecode. Python normally keeps each module's compiled bytecode (``__pycache__``) after the first import,
and a second run loads it instead of compiling the source again. An environment with
``PYTHONDONTWRITEBYTECODE`` set (some sandboxes and CI images set it) compiles every module of the suite
on every start, which doubles the start-up of a run and of every stdio child. The bench therefore times
its commands without that variable, as a user's Python runs them (the untimed first run writes the
bytecode); ``--keep-environment`` times them in the environment exactly as given.

Results go to ``build/bench/bench.json`` (``--out``) so two runs can be compared.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from conformance import argtypes
from conformance.paths import BUILD_ROOT, SCENARIO_ROOT
from conformance.runner import select
from conformance.scenario.load import LoadedScenario
from conformance.systems import SYSTEMS

STDIO_REFERENCE = f"stdio:{sys.executable} -m conformance.players.server"
BUSY_BY_DESIGN = ("llmz/hostile",)
"""Scenario folders that run to a containment limit on purpose, left out of the throughput figures."""


@dataclass(frozen=True)
class Sample:
    cpu: float
    wall: float
    exit_code: int


@dataclass
class Figure:
    name: str
    cpu: list[float] = field(default_factory=list)
    wall: list[float] = field(default_factory=list)

    def add(self, sample: Sample) -> None:
        self.cpu.append(sample.cpu)
        self.wall.append(sample.wall)

    def summary(self) -> dict[str, float]:
        return {
            "cpu_min": min(self.cpu),
            "cpu_median": statistics.median(self.cpu),
            "wall_min": min(self.wall),
            "wall_median": statistics.median(self.wall),
        }


PR_SET_CHILD_SUBREAPER = 36
ORPHAN_WAIT = 2.0
"""How long the bench waits for orphaned descendants to end after a command (they die with it)."""


_adopting = False


def adopt_orphans() -> bool:
    """Linux: make this process the reaper of its descendants' orphans, so their CPU can be counted.
    Only ``python -m conformance.bench`` does it: a process that has children of its own to wait for
    (pytest calling ``main``) must not have them reaped by ``measure``."""
    global _adopting
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        _adopting = bool(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    return _adopting


def reap_orphans(deadline: float) -> int:
    """Wait for every remaining child (orphans adopted as subreaper) until ``deadline``; how many."""
    reaped = 0
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return reaped
        if pid:
            reaped += 1
        elif time.monotonic() >= deadline:
            return reaped
        else:
            time.sleep(0.01)


_environment: dict[str, str] | None = None
"""The environment of timed commands (None: this process's own); see "Bytecode" in the docstring."""


def user_environment() -> dict[str, str]:
    """This process's environment without ``PYTHONDONTWRITEBYTECODE``: what a user's Python runs with."""
    return {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def measure(argv: Sequence[str], cwd: Path) -> Sample:
    """CPU and wall seconds of one child command, including every descendant it waited for (and, as a
    subreaper, every orphan it left behind)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(list(argv), cwd=cwd, capture_output=True, text=True, check=False, env=_environment)
    wall = time.perf_counter() - started
    if _adopting:
        reap_orphans(time.monotonic() + ORPHAN_WAIT)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(argv)} exited {done.returncode}:\n{done.stderr[-2000:]}")
    return Sample(cpu, wall, done.returncode)


def run_argv(impl: str, scenarios: Path, report_dir: Path, *extra: str, jobs: int = 1) -> list[str]:
    """One ``run``; ``--jobs 1`` unless asked, so the CPU figures stay those of one adapter process."""
    return [
        sys.executable,
        "-m",
        "conformance",
        "run",
        "--impl",
        impl,
        "--scenarios",
        str(scenarios),
        "--report-dir",
        str(report_dir),
        "--jobs",
        str(jobs),
        *extra,
    ]


def interleaved(
    commands: dict[str, list[str]], repeat: int, cwd: Path
) -> tuple[dict[str, Figure], list[float]]:
    """Run the commands ``repeat`` times, the order rotated by one each round (two commands: A B, B A,
    A B, ...), so drift hits each alike. Returns their figures and, per round, the first command's CPU
    over the second's."""
    names = list(commands)
    figures = {name: Figure(name) for name in names}
    ratios: list[float] = []
    for round_ in range(repeat):
        shift = round_ % len(names)
        samples = {name: measure(commands[name], cwd) for name in [*names[shift:], *names[:shift]]}
        for name, sample in samples.items():
            figures[name].add(sample)
        if len(names) > 1:
            ratios.append(samples[names[0]].cpu / max(samples[names[1]].cpu, 1e-9))
    return figures, ratios


@dataclass(frozen=True)
class Split:
    """Per-case and start-up CPU seconds from runs over N cases and over one, taken in the same rounds.

    Each round gives its own estimate ``(all - one) / (N - 1)`` from two runs measured next to each
    other, so slow drift of the machine cancels; ``each`` is their median and ``low``/``high`` their
    range. Where a system's cases together cost less than the run-to-run noise of its start-up (a few
    dozen cheap cases), estimates come out at or below zero: ``each`` is then None ("below the noise"),
    never a made-up 0 that would read as "free" and make a ratio of 0.00x or infinity."""

    each: float | None
    startup: float
    low: float
    high: float

    @property
    def measurable(self) -> bool:
        return self.each is not None

    def describe(self) -> str:
        if self.each is None:
            return f"below the noise (estimates {self.low * 1000:.2f} to {self.high * 1000:.2f} ms)"
        return f"{self.each * 1000:.2f} ms"


def split(all_cpu: Sequence[float], one_cpu: Sequence[float], count: int) -> Split:
    """The per-case/start-up split of paired rounds (``all_cpu[i]`` and ``one_cpu[i]`` from round i)."""
    if len(all_cpu) != len(one_cpu) or not all_cpu:
        raise ValueError(
            f"need as many runs over one case as over all, got {len(all_cpu)} and {len(one_cpu)}"
        )
    estimates = [(whole - one) / max(count - 1, 1) for whole, one in zip(all_cpu, one_cpu, strict=True)]
    median = statistics.median(estimates)
    each = median if median > 0 else None
    return Split(each, max(statistics.median(one_cpu) - (each or 0.0), 0.0), min(estimates), max(estimates))


def ratio_of(a: Split, b: Split) -> float | None:
    """``a.each / b.each``, or None where either is below the noise."""
    return a.each / b.each if a.each is not None and b.each is not None else None


def _verdicts(report_dir: Path) -> list[tuple[str, str, str]]:
    report = json.loads((report_dir / "report.json").read_text(encoding="utf-8"))
    return [(case["id"], case["verdict"], case["message"]) for case in report["scenarios"]]


def _case_seconds(report_dir: Path) -> float:
    """The cases' own durations added up: what the run would take on one worker with nothing around it."""
    report = json.loads((report_dir / "report.json").read_text(encoding="utf-8"))
    return sum(float(case.get("duration_ms") or 0.0) for case in report["scenarios"]) / 1000


def wall_by_jobs(
    impl: str, scenarios: Path, out: Path, repeat: int, cwd: Path
) -> tuple[dict[str, object], str]:
    """The whole suite's wall time with ``--jobs 1`` and ``--jobs 2`` as interleaved pairs (issue 26):
    the figure a runtime author waits for. The ratio is the median of the per-pair ratios of wall time
    (``--jobs 2`` over ``--jobs 1``); the two must give the same verdicts, which is checked on the
    last pair's reports.

    Beside it, the cases' own durations added up, per jobs count (last pair): their ratio says how much
    slower each case plays while another plays beside it (two worker processes and two implementation
    processes sharing caches and cores), which bounds the wall ratio from below at about half of it."""
    figures, _ = interleaved(
        {
            "jobs_1": run_argv(impl, scenarios, out / "jobs-1", jobs=1),
            "jobs_2": run_argv(impl, scenarios, out / "jobs-2", jobs=2),
        },
        repeat,
        cwd,
    )
    one, two = figures["jobs_1"], figures["jobs_2"]
    ratio = statistics.median(b / max(a, 1e-9) for a, b in zip(one.wall, two.wall, strict=True))
    same = _verdicts(out / "jobs-1") == _verdicts(out / "jobs-2")
    cases_1, cases_2 = _case_seconds(out / "jobs-1"), _case_seconds(out / "jobs-2")
    figure: dict[str, object] = {
        "jobs_1": one.summary(),
        "jobs_2": two.summary(),
        "wall_jobs_2_over_jobs_1": ratio,
        "case_seconds_jobs_1": cases_1,
        "case_seconds_jobs_2": cases_2,
        "same_verdicts": same,
    }
    line = (
        f"{impl} whole suite, wall: --jobs 2 / --jobs 1 = {ratio:.2f} ({statistics.median(two.wall):.1f}s vs "
        f"{statistics.median(one.wall):.1f}s median, {len(one.wall)} pairs; CPU "
        f"{statistics.median(two.cpu):.1f}s vs {statistics.median(one.cpu):.1f}s; cases' own time "
        f"{cases_2:.1f}s vs {cases_1:.1f}s); "
        + ("same verdicts" if same else "VERDICTS DIFFER")
    )
    return figure, line


LLMZ_FUZZ = (
    "--system", "llmz", "--examples", "200", "--seed", "7",
    "--expected-failures", str(Path(__file__).parent / "baselines" / "llmz-1.0.1.yaml"),
)  # fmt: skip
"""The bounded fuzz run of ``nox -s fuzz-llmz``: the fuzz figure a runtime author waits for."""


def fuzz_argv(impl: str, fuzz: Sequence[str], out: Path, jobs: int) -> list[str]:
    return [
        sys.executable, "-m", "conformance", "fuzz", "--impl", impl, *fuzz, "--out", str(out),
        "--jobs", str(jobs),
    ]  # fmt: skip


def _findings(out: Path) -> dict[str, str]:
    """The scenario files a fuzz run wrote under ``out``, by path: its findings."""
    return {
        str(path.relative_to(out)): path.read_text(encoding="utf-8") for path in sorted(out.rglob("*.yaml"))
    }


def fuzz_wall_by_jobs(
    impl: str, fuzz: Sequence[str], out: Path, repeat: int, cwd: Path
) -> tuple[dict[str, object], str]:
    """``fuzz``'s wall time with ``--jobs 1`` and ``--jobs 2`` as interleaved pairs (issue 26), and whether
    the two wrote the same findings (every pair writes into the same two folders; a finding's file name
    is a digest of its case, so a pair that found something else would leave an extra file)."""
    figures, _ = interleaved(
        {
            "jobs_1": fuzz_argv(impl, fuzz, out / "jobs-1", 1),
            "jobs_2": fuzz_argv(impl, fuzz, out / "jobs-2", 2),
        },
        repeat,
        cwd,
    )
    one, two = figures["jobs_1"], figures["jobs_2"]
    ratio = statistics.median(b / max(a, 1e-9) for a, b in zip(one.wall, two.wall, strict=True))
    findings = _findings(out / "jobs-1")
    same = findings == _findings(out / "jobs-2")
    figure: dict[str, object] = {
        "command": ["fuzz", "--impl", impl, *fuzz],
        "jobs_1": one.summary(),
        "jobs_2": two.summary(),
        "wall_jobs_2_over_jobs_1": ratio,
        "findings": len(findings),
        "same_findings": same,
    }
    line = (
        f"{impl} fuzz {' '.join(fuzz[:6])}, wall: --jobs 2 / --jobs 1 = {ratio:.2f} "
        f"({statistics.median(two.wall):.1f}s vs {statistics.median(one.wall):.1f}s median, {len(one.wall)} "
        f"pairs; CPU {statistics.median(two.cpu):.1f}s vs {statistics.median(one.cpu):.1f}s); "
        + (f"same findings ({len(findings)})" if same else "FINDINGS DIFFER")
    )
    return figure, line


def _ids(scenarios: Path, system: str | None = None) -> list[str]:
    return [
        item.id
        for item in select(scenarios)
        if isinstance(item, LoadedScenario) and (system is None or item.scenario.system == system)
    ]


def _one(ids: list[str]) -> list[str]:
    """``-k`` arguments selecting exactly one of ``ids``: the first that is no substring of another."""
    for candidate in ids:
        if sum(1 for other in ids if candidate in other) == 1:
            return ["-k", candidate]
    raise ValueError("every scenario id is contained in another; cannot select exactly one")


def without(root: Path, excluded: Sequence[str], into: Path) -> tuple[Path, list[str]]:
    """A copy of the scenario tree at ``root`` without the ``excluded`` folders (relative to it), and which
    of them existed. With nothing to leave out, ``root`` itself."""
    present = [name for name in excluded if (root / name).is_dir()]
    if not present:
        return root, []
    shutil.copytree(root, into)
    for name in present:
        shutil.rmtree(into / name)
    return into, present


def _processor() -> str:
    """The CPU model, for the record of where figures were taken (Linux; else what platform says)."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def bridge_available() -> bool:
    return shutil.which("node") is not None and shutil.which("npm") is not None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance.bench", description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=argtypes.POSITIVE, default=3, help="pairs per figure (default 3)")
    parser.add_argument("--scenarios", type=Path, default=SCENARIO_ROOT, help="scenario root")
    parser.add_argument("--out", type=Path, default=BUILD_ROOT / "bench" / "bench.json")
    parser.add_argument("--no-bridge", action="store_true", help="leave out the llmz 1.0.1 bridge figure")
    parser.add_argument(
        "--exclude",
        action="append",
        metavar="FOLDER",
        help="scenario folder (relative to the root) left out of the throughput figures and timed only in "
        f"the whole-suite figure; repeatable (default: {', '.join(BUSY_BY_DESIGN)})",
    )
    parser.add_argument(
        "--keep-environment",
        action="store_true",
        help="time commands in this environment as it is, PYTHONDONTWRITEBYTECODE included",
    )
    args = parser.parse_args(argv)
    global _environment
    _environment = None if args.keep_environment else user_environment()
    repeat = max(1, args.repeat)
    cwd = Path.cwd()
    if not _ids(args.scenarios):
        print(f"error: no scenarios under {args.scenarios}", file=sys.stderr)
        return 2
    lines: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        full_root = args.scenarios
        args.scenarios, excluded = without(full_root, args.exclude or BUSY_BY_DESIGN, out / "scenarios")
        ids = _ids(args.scenarios)
        results: dict[str, object] = {
            "platform": platform.platform(),
            "processor": _processor(),
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "repeat": repeat,
            "scenarios": len(ids),
            "excluded": excluded,
            "bytecode_written": _environment is not None or "PYTHONDONTWRITEBYTECODE" not in os.environ,
        }
        leaving_out = f" (without {', '.join(excluded)})" if excluded else ""

        # One untimed run first, so every timed run finds the caches a second run of the suite finds
        # (parsed YAML: conformance.yamlcache; the tokenizer: reference.llmz.vocabulary).
        measure(run_argv("reference", full_root, out / "warm"), cwd)

        # The whole suite in-process, all of it against one scenario: rate with start-up, and per case.
        whole, _ = interleaved(
            {
                "all": run_argv("reference", args.scenarios, out / "a"),
                "one": run_argv("reference", args.scenarios, out / "b", *_one(ids)),
            },
            repeat,
            cwd,
        )
        all_cpu = statistics.median(whole["all"].cpu)
        suite = split(whole["all"].cpu, whole["one"].cpu, len(ids))
        results["suite"] = {
            "in_process": whole["all"].summary(),
            "scenarios_per_cpu_second_with_startup": len(ids) / all_cpu,
            "per_case_cpu": suite.each,
            "per_case_cpu_range": [suite.low, suite.high],
            "cases_per_cpu_second": 1 / suite.each if suite.each else None,
            "startup_cpu": suite.startup,
        }
        rate = f" = {1 / suite.each:.0f}/s" if suite.each else ""
        lines.append(
            f"suite in-process{leaving_out}: {len(ids)} scenarios, {all_cpu:.2f}s CPU (median) = "
            f"{len(ids) / all_cpu:.0f}/s with start-up; per case {suite.describe()}{rate}; "
            f"start-up {suite.startup:.2f}s"
        )

        if excluded:
            everything = _ids(full_root)
            whole_suite, _ = interleaved(
                {
                    "whole": run_argv("reference", full_root, out / "w"),
                    "without": run_argv("reference", args.scenarios, out / "x"),
                },
                repeat,
                cwd,
            )
            whole_cpu = statistics.median(whole_suite["whole"].cpu)
            results["whole_suite"] = {
                "scenarios": len(everything),
                "in_process": whole_suite["whole"].summary(),
                "scenarios_per_cpu_second_with_startup": len(everything) / whole_cpu,
            }
            lines.append(
                f"whole suite in-process, with {', '.join(excluded)}: {len(everything)} scenarios, "
                f"{whole_cpu:.2f}s CPU (median) = {len(everything) / whole_cpu:.0f}/s with start-up"
            )

        wall: dict[str, object] = {}
        wall["reference"], line = wall_by_jobs("reference", full_root, out / "wall-reference", repeat, cwd)
        lines.append(line)

        per_system: dict[str, object] = {}
        excluded_systems = {name.split("/", 1)[0] for name in excluded}
        for system in SYSTEMS:
            system_ids = _ids(args.scenarios, system)
            if not system_ids:
                continue
            # Both modes over all of the system's scenarios and over one of them, the four rotated
            # within each round: the ratio with start-up (the figure), and its split into per
            # case (what the protocol costs a case) and start-up (for stdio, the server's own
            # interpreter and imports beside the harness's), which the ratio with start-up mixes.
            one = _one(system_ids)
            figures, ratios = interleaved(
                {
                    "stdio": run_argv(STDIO_REFERENCE, args.scenarios, out / "s", "--system", system),
                    "in_process": run_argv("reference", args.scenarios, out / "p", "--system", system),
                    "stdio_one": run_argv(STDIO_REFERENCE, args.scenarios, out / "s1", *one),
                    "in_process_one": run_argv("reference", args.scenarios, out / "p1", *one),
                },
                repeat,
                cwd,
            )
            ratio = statistics.median(ratios)
            stdio_split, local_split = (
                split(figures[mode].cpu, figures[f"{mode}_one"].cpu, len(system_ids))
                for mode in ("stdio", "in_process")
            )
            per_case_ratio = ratio_of(stdio_split, local_split)
            per_system[system] = {
                "scenarios": len(system_ids),
                "stdio": figures["stdio"].summary(),
                "in_process": figures["in_process"].summary(),
                "stdio_over_in_process_cpu": ratio,
                "stdio_per_case_cpu": stdio_split.each,
                "in_process_per_case_cpu": local_split.each,
                "stdio_per_case_cpu_range": [stdio_split.low, stdio_split.high],
                "in_process_per_case_cpu_range": [local_split.low, local_split.high],
                "stdio_over_in_process_per_case": per_case_ratio,
                "stdio_startup_cpu": stdio_split.startup,
                "in_process_startup_cpu": local_split.startup,
            }
            leaving = leaving_out if system in excluded_systems else ""
            lines.append(
                f"{system:5} stdio/in-process{leaving}, with start-up: {ratio:.2f}x CPU "
                f"({statistics.median(figures['stdio'].cpu):.2f}s vs "
                f"{statistics.median(figures['in_process'].cpu):.2f}s, {len(system_ids)} scenarios)"
            )
            lines.append(
                f"{system:5} stdio/in-process{leaving}, per case: "
                f"{'n/a' if per_case_ratio is None else f'{per_case_ratio:.2f}x'} "
                f"({stdio_split.describe()} vs {local_split.describe()}); "
                f"start-up {stdio_split.startup:.2f}s vs {local_split.startup:.2f}s"
            )
        results["systems"] = per_system

        if not args.no_bridge and bridge_available():
            llmz_ids = _ids(args.scenarios, "llmz")
            runs: dict[str, dict[str, Figure]] = {}
            for impl in ("llmz-node", "reference"):
                figures, _ = interleaved(
                    {
                        "all": run_argv(impl, args.scenarios, out / "ba", "--system", "llmz"),
                        "one": run_argv(impl, args.scenarios, out / "bo", *_one(llmz_ids)),
                    },
                    1 if impl == "llmz-node" else repeat,
                    cwd,
                )
                runs[impl] = figures
            bridge = split(runs["llmz-node"]["all"].cpu, runs["llmz-node"]["one"].cpu, len(llmz_ids))
            reference = split(runs["reference"]["all"].cpu, runs["reference"]["one"].cpu, len(llmz_ids))
            times = ratio_of(bridge, reference)
            results["llmz_bridge"] = {
                "per_case_cpu": bridge.each,
                "startup_cpu": bridge.startup,
                "reference_per_case_cpu": reference.each,
                "bridge_over_reference_per_case": times,
                "bridge_wall": runs["llmz-node"]["all"].summary(),
            }
            lines.append(
                f"llmz bridge/reference per case{leaving_out if 'llmz' in excluded_systems else ''}: "
                f"{'n/a' if times is None else f'{times:.1f}x'} "
                f"({bridge.describe()} vs {reference.describe()} CPU; bridge start-up "
                f"{bridge.startup:.2f}s)"
            )
            wall["llmz-node"], line = wall_by_jobs("llmz-node", full_root, out / "wall-llmz", repeat, cwd)
            lines.append(line)
            results["fuzz_wall_by_jobs"], line = fuzz_wall_by_jobs(
                "llmz-node", LLMZ_FUZZ, out / "fuzz-llmz", repeat, cwd
            )
            lines.append(line)
        else:
            why = "--no-bridge" if args.no_bridge else "node and npm are not both on PATH"
            lines.append(
                f"llmz 1.0.1 figures (bridge per case, suite and fuzz wall by --jobs) left out: {why}"
            )
        results["wall_by_jobs"] = wall
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    if "PYTHONDONTWRITEBYTECODE" in os.environ:
        how = "kept, as given" if args.keep_environment else "dropped for the timed commands"
        lines.append(f"PYTHONDONTWRITEBYTECODE was set: {how}")
    print("\n".join([*lines, f"written: {args.out}"]))
    return 0


if __name__ == "__main__":
    adopt_orphans()
    sys.exit(main())
