"""Sessions: tests, conformance (the main job), snapshots, spec, mutants, bench, lint, typecheck, demo,
conformance-llmz."""

from __future__ import annotations

import nox

nox.options.default_venv_backend = "venv"
nox.options.reuse_existing_virtualenvs = True
nox.options.sessions = ["tests"]

#: None: the interpreter running nox (3.11 or newer), so the README's commands work on any such machine.
PYTHON = None


def _install(session: nox.Session) -> None:
    session.install("-e", ".[dev]")


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """The project's own tests, including the whole suite run against the reference (in-process and stdio)."""
    _install(session)
    session.run("pytest", "-n", "2", *session.posargs)


@nox.session(python=PYTHON)
def conformance(session: nox.Session) -> None:
    """Run the conformance suite: ``nox -s conformance -- --impl <spec> [--report-dir DIR]``."""
    _install(session)
    session.run("python", "-m", "conformance", "run", *session.posargs)


@nox.session(name="conformance-llmz", python=PYTHON)
def conformance_llmz(session: nox.Session) -> None:
    """The suite against llmz 1.0.1 through the Node bridge, with its expected-failures baseline."""
    _install(session)
    session.run(
        "python", "-m", "conformance", "run", "--impl", "llmz-node",
        "--expected-failures", "conformance/baselines/llmz-1.0.1.yaml", *session.posargs,
    )


@nox.session(python=PYTHON)
def snapshots(session: nox.Session) -> None:
    """Regenerate the golden transcripts in fixtures/golden/ from the reference."""
    _install(session)
    session.run("pytest", "tests/test_golden.py", "--snapshot-update", "-p", "no:xdist", *session.posargs)


@nox.session(python=PYTHON)
def spec(session: nox.Session) -> None:
    """Check the schemas are current, validate catalogue and scenarios, write build/spec/traceability.*."""
    _install(session)
    session.run("python", "-m", "conformance.schemas", "--check")
    session.run("python", "-m", "conformance.catalogue", *session.posargs)


@nox.session(python=PYTHON)
def mutants(session: nox.Session) -> None:
    """Mutation score: every deliberately broken reference must be caught by the cases pinning its rules."""
    _install(session)
    session.run("python", "-m", "conformance", "check-mutants", *session.posargs)


@nox.session(python=PYTHON)
def bench(session: nox.Session) -> None:
    """Scenarios per second against the reference, in-process and through stdio."""
    _install(session)
    session.run("python", "-m", "conformance.bench", *session.posargs)


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    session.install("ruff>=0.5")
    session.run("ruff", "check", ".")


@nox.session(python=PYTHON)
def typecheck(session: nox.Session) -> None:
    _install(session)
    session.run("mypy", "reference", "conformance", "variants")


@nox.session(python=PYTHON)
def demo(session: nox.Session) -> None:
    """Play one scenario of each system and print the conversation readably (no API key needed)."""
    _install(session)
    session.run("python", "-m", "reference.demo", *session.posargs)
