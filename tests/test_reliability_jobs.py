"""Reliability under ``run --jobs N`` and ``fuzz --jobs N`` (issue 26): one misbehaving adapter process
among several costs only its own cases, and a stopped or killed harness leaves no worker and no
implementation behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from conftest import FAKES, fake_command, minimal_scenario
from fakes.fuzz_marked import mark
from test_reliability_stops import GONE, TESTS, _launch, _started, _stop, _wait_gone

from conformance import parallel, workers
from conformance.adapters.registry import create
from conformance.cli import main
from conformance.fuzz import generator_for
from conformance.fuzz.ahead import CompareJob, Lookahead
from conformance.fuzz.engine import generated

pytestmark = pytest.mark.reliability

GOOD = ["b-good", "c-good", "d-good", "e-good", "f-good"]


def _verdicts(
    scenario_tree: Callable[[dict[str, Any]], Path], out: Path, impl: str, bad: str, jobs: int
) -> tuple[int, dict[str, tuple[str, str]]]:
    root = scenario_tree({f"area/{name}": minimal_scenario() for name in [bad, *GOOD]})
    status = main(
        ["run", "--scenarios", str(root), "--report-dir", str(out), "--impl", impl,
         "--timeout", "3", "--jobs", str(jobs)]
    )  # fmt: skip
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    return status, {s["id"].rsplit("/", 1)[-1]: (s["verdict"], s["message"]) for s in report["scenarios"]}


@pytest.mark.parametrize(("bad", "says"), [("a-fake-crash", "exited (code 3)"), ("a-fake-hang", "timeout")])
def test_a_crash_or_hang_in_one_adapter_process_costs_only_its_case(
    scenario_tree: Callable[[dict[str, Any]], Path], tmp_path: Path, bad: str, says: str
) -> None:
    impl = fake_command("fake_impl.py", "good")
    status, verdicts = _verdicts(scenario_tree, tmp_path / "three", impl, bad, 3)
    assert status == 1
    assert verdicts[bad][0] == "error" and says in verdicts[bad][1]
    assert all(verdicts[name] == ("pass", "") for name in GOOD), verdicts
    _, alone = _verdicts(scenario_tree, tmp_path / "one", impl, bad, 1)
    assert {k: v[0] for k, v in alone.items()} == {k: v[0] for k, v in verdicts.items()}


def test_a_worker_process_that_dies_costs_only_the_case_it_was_playing(
    scenario_tree: Callable[[dict[str, Any]], Path], tmp_path: Path
) -> None:
    impl = "python:fakes.pyimpl:make"  # not the first case: that one warms up in the harness itself
    status, verdicts = _verdicts(scenario_tree, tmp_path / "out", impl, "x-fake-osexit", 2)
    assert status == 1
    assert verdicts["x-fake-osexit"] == ("error", "the worker process playing this case exited with status 9")
    assert all(verdicts[name] == ("pass", "") for name in GOOD), verdicts


def test_workers_that_keep_dying_stop_the_run_from_playing(
    scenario_tree: Callable[[dict[str, Any]], Path], tmp_path: Path
) -> None:
    names = ["a-good"] + [f"{letter}-fake-osexit" for letter in "bcdefg"]
    root = scenario_tree({f"area/{name}": minimal_scenario() for name in names})
    status = main(
        ["run", "--scenarios", str(root), "--report-dir", str(tmp_path / "out"),
         "--impl", "python:fakes.pyimpl:make", "--jobs", "2"]
    )  # fmt: skip
    report = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))
    messages = [s["message"] for s in report["scenarios"]]
    assert status == 1 and [s["verdict"] for s in report["scenarios"]] == ["pass"] + ["error"] * 6
    assert sum("not played" in m for m in messages) >= 6 - parallel.MAX_WORKER_DEATHS - 1


def _start_harness(tmp_path: Path, marker: str, jobs: int) -> subprocess.Popen[str]:
    """A harness playing two hanging cases with ``--jobs``, once its workers and their implementations
    (two processes per worker) have started."""
    harness = _launch(tmp_path, marker, "hang", 2, "--jobs", str(jobs))
    _started(harness, marker, 2 + jobs)
    return harness


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_a_stopped_parallel_run_leaves_no_worker_and_no_implementation(tmp_path: Path, stop: int) -> None:
    marker = uuid.uuid4().hex
    harness = _start_harness(tmp_path, marker, 2)
    out, err, left = _stop(harness, stop, marker)
    assert left == [], "the stop left workers or implementations running"
    assert harness.returncode == 128 + stop, (out, err)
    assert "Traceback" not in err


def test_a_killed_parallel_harness_takes_its_workers_and_implementations_with_it(tmp_path: Path) -> None:
    marker = uuid.uuid4().hex
    harness = _start_harness(tmp_path, marker, 2)
    harness.send_signal(signal.SIGKILL)
    harness.communicate(timeout=GONE)
    left = _wait_gone(marker, harness.pid)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert left == [], "SIGKILL of the harness left workers or implementations running"


def test_a_worker_whose_hello_fails_is_a_failed_start(
    scenario_tree: Callable[[dict[str, Any]], Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The first copy greets the harness; the workers' copies cannot start (a port already taken, say)."""
    once = tmp_path / "once.py"
    once.write_text(
        "import os, runpy, sys\n"
        f"flag = {str(tmp_path / 'started')!r}\n"
        "if os.path.exists(flag):\n"
        "    sys.exit('address already in use')\n"
        "open(flag, 'w').close()\n"
        f"sys.argv = [{str(FAKES / 'fake_impl.py')!r}, 'good']\n"
        "runpy.run_path(sys.argv[0], run_name='__main__')\n",
        encoding="utf-8",
    )
    root = scenario_tree({f"area/{name}": minimal_scenario() for name in GOOD})
    out = tmp_path / "out"
    status = main(
        ["run", "--scenarios", str(root), "--report-dir", str(out), "--impl",
         f"stdio:{sys.executable} {once}", "--jobs", "2"]
    )  # fmt: skip
    err = capsys.readouterr().err
    assert status == 2
    assert "a worker process could not start its own copy" in err and "address already in use" in err
    assert not (out / "report.json").exists()


# -- fuzz --jobs N ----------------------------------------------------------------------------------------
def _fuzz_marked(tmp_path: Path, behaviour: str, jobs: int) -> tuple[int, str, dict[str, str]]:
    """``fuzz --jobs`` against the reference over stdio that crashes or hangs on one generated case (the
    fourth of the first round), with a short timeout."""
    marks = mark(tmp_path / "marks", [generated(generator_for("falai"), 12, 4, 0)[3]])
    out = tmp_path / f"out-{jobs}"
    argv = ["fuzz", "--impl", fake_command("fuzz_marked.py", behaviour, str(marks)), "--system", "falai"]
    argv += ["--examples", "12", "--seed", "4", "--max-findings", "2", "--timeout", "2"]
    started = time.monotonic()
    status = main([*argv, "--out", str(out), "--jobs", str(jobs)])
    assert time.monotonic() - started < 60, "the run took far longer than its cases and timeouts"
    files = {str(p.relative_to(out)): p.read_text(encoding="utf-8") for p in sorted(out.rglob("*.yaml"))}
    return status, str(out), files


@pytest.mark.parametrize(("behaviour", "says"), [("crash", "exited (code 3)"), ("hang", "timeout")])
def test_fuzz_a_crash_or_hang_in_one_worker_is_that_case_failing_with_its_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], behaviour: str, says: str
) -> None:
    status, out, files = _fuzz_marked(tmp_path, behaviour, 2)
    console = capsys.readouterr().out
    assert status == 1 and len(files) == 1, console
    (text,) = files.values()
    assert "it returned no record: " in text and says in text, text
    assert f"wrote {out}" in console and "does not reproduce" not in console
    assert _fuzz_marked(tmp_path, behaviour, 1)[2] == files


def test_fuzz_a_worker_process_that_dies_costs_the_case_it_was_playing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    generator = generator_for("falai")
    cases = generated(generator, 8, 4, 0)
    monkeypatch.setenv("FUZZ_MARKS", str(mark(tmp_path / "marks", [cases[2]])))
    job = CompareJob("python:fakes.fuzz_marked:make", generator, 5.0, 5.0)
    with Lookahead(job, 2, create("reference")) as ahead:
        ahead.expect(cases)
        problems = [ahead.compare(case).implementation_problem for case in cases]
    assert problems[2] == "the worker process playing this case exited with status 9"
    assert problems[:2] + problems[3:] == [None] * (len(cases) - 1)


@dataclass(frozen=True)
class _Echo:
    """A ``workers.Job`` whose tasks and answers are each larger than a pipe holds."""

    harness: int = field(default_factory=os.getpid)

    def open(self) -> _Echo:
        return self

    def play(self, task: Any) -> Any:
        return task * 2

    def close(self) -> None:
        pass

    def lost(self, key: Any, why: str) -> Any:
        return why


def test_tasks_and_answers_larger_than_a_pipe_holds_never_leave_both_sides_waiting() -> None:
    """A generated llmz case runs to tens of kB: the harness sending the next task while the worker sends
    its answer must not leave each waiting for the other to read. (In a thread, so that a deadlock fails
    the test instead of hanging it.)"""
    tasks = {index: str(index) * 400_000 for index in range(8)}
    answers: dict[Any, Any] = {}

    def play_all() -> None:
        with workers.Pool(_Echo(), 2) as pool:
            for key, task in tasks.items():
                pool.submit(key, task)
            while len(answers) < len(tasks):
                answers.update(pool.collect())

    thread = threading.Thread(target=play_all, daemon=True)
    thread.start()
    thread.join(30)
    assert not thread.is_alive(), "the harness and a worker are each waiting for the other"
    assert answers == {key: task * 2 for key, task in tasks.items()}


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_a_stopped_parallel_fuzz_leaves_no_worker_and_no_implementation(tmp_path: Path, stop: int) -> None:
    marker = uuid.uuid4().hex
    impl = f"stdio:{sys.executable} {FAKES / 'fake_impl.py'} hang"
    command = [
        sys.executable, "-m", "conformance", "fuzz", "--impl", impl, "--system", "akan", "--timeout", "600",
        "--jobs", "2", "--out", str(tmp_path / "out"),
    ]  # fmt: skip
    env = {**os.environ, "S21_STOP_MARKER": marker, "PYTHONPATH": str(TESTS)}
    harness = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _started(harness, marker, 4)  # two workers, each with its own implementation hanging on a case
    out, err, left = _stop(harness, stop, marker)
    assert left == [], "the stop left workers or implementations running"
    assert harness.returncode == 128 + stop, (out, err)
    assert "Traceback" not in err
