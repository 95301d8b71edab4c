"""Reliability: implementations that misbehave in every way we have seen, through the stdio adapter.

Each hostile behaviour (``tests/fakes/fake_impl.py``) must end in a documented outcome within the case's
timeout plus a small grace, and the next, innocent case must still pass: no hang, no lost run, no case
blamed for another's output. The module fails on any exception escaping a reader thread.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import FAKES, PYTHON, fake_command, minimal_scenario

from conformance.adapters.base import AdapterError
from conformance.adapters.process import ChildProcess, describe_exit
from conformance.adapters.stdio import StdioAdapter
from conformance.cli import main

pytestmark = [
    pytest.mark.reliability,
    pytest.mark.filterwarnings("error::pytest.PytestUnhandledThreadExceptionWarning"),
]

TIMEOUT = 3.0
GRACE = 5.0
"""The issue's bound: a case ends within its timeout plus five seconds, whatever the child does."""


def _payload(behaviour: str = "good", **extra: object) -> dict[str, object]:
    return {"id": f"akan/harness/fake-{behaviour}", **minimal_scenario(), **extra}


def _running(pid: int) -> bool:
    """True while ``pid`` runs; a zombie (dead, waiting for a parent that does not reap) is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status


@pytest.fixture
def adapter() -> Iterator[StdioAdapter]:
    instance = StdioAdapter(
        [PYTHON, str(FAKES / "fake_impl.py"), "good"], hello_timeout=5, max_line_bytes=1_000_000
    )
    yield instance
    instance.close()


ONE_STRAY_LINE = {"garbage", "binary", "seq-string", "seq-bool", "deep"}
"""Behaviours that write one line that is no answer and then nothing: the adapter's stray grace (how long
it keeps waiting for a real answer after a stray line, 2 s by default) can only delay their outcome, so
their cases use a short one. A behaviour whose outcome depends on what arrives within the grace (a flood
counted line by line, a stray line followed by the answer) keeps the default."""
SHORT_STRAY_GRACE = 0.3
HANG_TIMEOUT = 1.0
"""The case timeout for ``hang`` and ``grandchild-hang`` (they never answer: the timeout is all their case
costs). The innocent case after it, which must answer, keeps ``TIMEOUT``; the deadline starts after the
child's start-up."""


# behaviour -> (what the outcome is, a phrase its reason holds)
HOSTILE = {
    "segfault": ("error", "killed by SIGSEGV (signal 11)"),
    "abort": ("error", "killed by SIGABRT"),
    "exit139": ("error", "as a shell reports a process killed by SIGSEGV"),
    "exit0": ("error", "exited (code 0) before answering"),
    "nan": ("error", "NaN is not JSON"),
    "deep": ("error", "nested too deeply"),
    "huge-line": ("error", "over the 1,000,000-byte limit"),
    "big-record": ("error", "20,000,"),
    "flood": ("error", "'log: busy') (+4999 more)"),
    "close-stdout": ("error", "before answering"),
    "binary": ("error", "not JSON"),
    "seq-string": ("error", "seq '"),
    "seq-bool": ("error", "seq True is not an integer"),
    "both": ("error", "exactly one of record, skip, error"),
    "wrong-seq": ("error", "expected"),
    "garbage": ("error", "not JSON"),
    "crash": ("error", "exited (code 3)"),
    "hang": ("error", "timeout: no answer within 1s"),
    "stray-after": ("record", ""),
    "stray-before": ("record", ""),
    "duplicate": ("record", ""),
    "blank-lines": ("record", ""),
    "split": ("record", ""),
    "stderr-flood": ("record", ""),
    "close-stdin": ("record", ""),
}


@pytest.mark.parametrize("behaviour", sorted(HOSTILE))
def test_a_hostile_case_ends_in_its_outcome_in_time_and_the_next_case_passes(
    adapter: StdioAdapter, behaviour: str
) -> None:
    kind, phrase = HOSTILE[behaviour]
    if behaviour in ONE_STRAY_LINE:
        adapter.stray_grace = SHORT_STRAY_GRACE
    timeout = HANG_TIMEOUT if behaviour == "hang" else TIMEOUT
    started = time.monotonic()
    outcome = adapter.run(_payload(behaviour), timeout=timeout)
    assert time.monotonic() - started < timeout + GRACE
    if kind == "error":
        assert outcome.error is not None and phrase in outcome.error, outcome
    else:
        assert outcome.record is not None, outcome.error
    after = adapter.run(_payload(), timeout=TIMEOUT)
    assert after.record is not None, f"the innocent case after {behaviour!r} failed: {after.error}"


@pytest.mark.parametrize("behaviour", ["grandchild-exit", "grandchild-hang"])
def test_a_grandchild_holding_stdout_costs_at_most_the_timeout_and_dies(
    adapter: StdioAdapter, behaviour: str
) -> None:
    timeout = HANG_TIMEOUT if behaviour == "grandchild-hang" else TIMEOUT  # it never answers, as ``hang``
    started = time.monotonic()
    outcome = adapter.run(_payload(behaviour), timeout=timeout)
    assert time.monotonic() - started < timeout + GRACE
    assert outcome.error is not None
    pids = [int(pid) for pid in re.findall(r"grandchild pid (\d+)", outcome.error)]
    assert pids, f"the fake names its grandchild on stderr: {outcome.error}"
    deadline = time.monotonic() + 2
    while any(map(_running, pids)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(map(_running, pids)), "the grandchild outlived the case"
    assert adapter.run(_payload(), timeout=TIMEOUT).record is not None


def test_a_grandchild_that_left_the_process_group_cannot_hold_the_case(adapter: StdioAdapter) -> None:
    started = time.monotonic()
    outcome = adapter.run(_payload("grandchild-escape"), timeout=TIMEOUT)
    pids = [int(pid) for pid in re.findall(r"grandchild pid (\d+)", outcome.error or "")]
    try:
        assert time.monotonic() - started < TIMEOUT + GRACE
        assert outcome.error is not None and "exited (code 5)" in outcome.error
        assert adapter.run(_payload(), timeout=TIMEOUT).record is not None
    finally:
        for pid in pids:  # beyond the harness's reach by design (its own session): the test cleans up
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def test_lines_written_between_cases_are_dropped_and_diagnosed(adapter: StdioAdapter) -> None:
    assert adapter.run(_payload("stray-after"), timeout=TIMEOUT).record is not None
    time.sleep(0.3)  # the stray line has certainly arrived before the next case is sent
    assert adapter.run(_payload(), timeout=TIMEOUT).record is not None
    assert any("log: that went well" in line for line in adapter.diagnostics)
    assert adapter.starts == 1, "a stray line is not a reason to restart"


def test_a_duplicate_answer_is_stale_for_the_next_case(adapter: StdioAdapter) -> None:
    for _ in range(3):
        assert adapter.run(_payload("duplicate"), timeout=TIMEOUT).record is not None
    assert adapter.starts == 1


def test_a_scenario_json_cannot_carry_is_an_error_without_a_restart(adapter: StdioAdapter) -> None:
    outcome = adapter.run(_payload(extra=float("nan")), timeout=TIMEOUT)
    assert outcome.error is not None and "cannot be sent" in outcome.error
    assert adapter.run(_payload(), timeout=TIMEOUT).record is not None
    assert adapter.starts == 1


def test_the_circuit_breaker_stops_playing_against_a_dead_implementation() -> None:
    adapter = StdioAdapter([PYTHON, str(FAKES / "fake_impl.py"), "good"], hello_timeout=5, max_failures=3)
    try:
        outcomes = [adapter.run(_payload("crash"), timeout=TIMEOUT) for _ in range(8)]
    finally:
        adapter.close()
    reasons = [o.error or "" for o in outcomes]
    assert all("exited (code 3)" in r and "not played" not in r for r in reasons[:3])
    assert len(set(reasons[3:])) == 1 and reasons[3].startswith("not played: the implementation failed 3")
    assert "exited (code 3)" in reasons[3], "the one reason quotes the last failure"
    assert adapter.starts == 3, "no start after the breaker opened"


def test_an_answer_between_failures_resets_the_breaker() -> None:
    adapter = StdioAdapter([PYTHON, str(FAKES / "fake_impl.py"), "good"], hello_timeout=5, max_failures=2)
    try:
        outcomes = [adapter.run(_payload(b), timeout=TIMEOUT) for b in ["crash", "good"] * 4]
    finally:
        adapter.close()
    assert [o.record is not None for o in outcomes] == [False, True] * 4


def test_an_implementation_that_cannot_restart_trips_the_breaker_quickly() -> None:
    adapter = StdioAdapter([PYTHON, str(FAKES / "fake_impl.py"), "good"], hello_timeout=1, max_failures=3)
    adapter.hello()
    adapter.argv = [PYTHON, str(FAKES / "fake_impl.py"), "hello-hang"]  # every restart now hangs
    started = time.monotonic()
    outcomes = [adapter.run(_payload("crash"), timeout=TIMEOUT)] + [
        adapter.run(_payload(), timeout=TIMEOUT) for _ in range(20)
    ]
    adapter.close()
    assert time.monotonic() - started < 3 * (1 + GRACE), "three failures, then nothing is started"
    assert outcomes[-1].error is not None and "not played" in outcomes[-1].error


@pytest.mark.parametrize(
    ("behaviour", "phrase"),
    [("hello-garbage", "unexpected answer 'hello yourself'"), ("hello-hang", "no answer within 1s")],
)
def test_a_bad_hello_fails_in_bounded_time(behaviour: str, phrase: str) -> None:
    adapter = StdioAdapter([PYTHON, str(FAKES / "fake_impl.py"), behaviour], hello_timeout=1)
    started = time.monotonic()
    with pytest.raises(AdapterError, match=re.escape(phrase)):
        adapter.hello()
    assert time.monotonic() - started < 1 + GRACE


def test_close_kills_a_child_that_ignores_stop() -> None:
    adapter = StdioAdapter([PYTHON, str(FAKES / "fake_impl.py"), "ignore-stop"], hello_timeout=5)
    adapter.hello()
    child = adapter._child
    assert child is not None
    started = time.monotonic()
    adapter.close()
    assert time.monotonic() - started < GRACE
    assert not child.alive


def test_kill_is_idempotent_and_bounded_after_the_leader_exited() -> None:
    child = ChildProcess([PYTHON, "-c", "import sys; sys.exit(7)"])
    assert child.wait_exit(5) == 7
    started = time.monotonic()
    child.kill()
    child.kill()
    assert time.monotonic() - started < 3 and child.returncode == 7


@pytest.mark.parametrize(
    ("code", "words"),
    [
        (0, "exited (code 0)"),
        (3, "exited (code 3)"),
        (-11, "was killed by SIGSEGV (signal 11)"),
        (-9, "was killed by SIGKILL (signal 9)"),
        (134, "exited (code 134, as a shell reports a process killed by SIGABRT)"),
        (None, "exited"),
    ],
)
def test_exits_are_described_in_words(code: int | None, words: str) -> None:
    assert describe_exit(code) == words


def test_a_whole_run_against_a_dead_implementation_is_short_and_reported(
    scenario_tree: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = scenario_tree({f"area/case-{n:02}": minimal_scenario() for n in range(12)})
    out = tmp_path / "out"
    started = time.monotonic()
    spec = fake_command("fake_impl.py", "crash")
    code = main(
        ["run", "--scenarios", str(root), "--report-dir", str(out), "--timeout", "2", "--impl", spec,
         "--jobs", "1"]
    )  # fmt: skip
    capsys.readouterr()
    assert time.monotonic() - started < 30
    assert code == 1
    report = json.loads((out / "report.json").read_text())
    verdicts = [s["verdict"] for s in report["scenarios"]]
    assert verdicts == ["error"] * 12
    assert sum("not played" in s["message"] for s in report["scenarios"]) == 7


def test_with_two_jobs_each_adapter_process_has_its_own_circuit_breaker(
    scenario_tree: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each of the two processes is asked at most five times before its breaker opens (issue 26), so at
    most ten cases are played; which of them depends on the order the workers take them."""
    root = scenario_tree({f"area/case-{n:02}": minimal_scenario() for n in range(12)})
    out = tmp_path / "out"
    spec = fake_command("fake_impl.py", "crash")
    code = main(
        ["run", "--scenarios", str(root), "--report-dir", str(out), "--timeout", "2", "--impl", spec,
         "--jobs", "2"]
    )  # fmt: skip
    capsys.readouterr()
    report = json.loads((out / "report.json").read_text())
    assert code == 1 and [s["verdict"] for s in report["scenarios"]] == ["error"] * 12
    not_played = sum("not played" in s["message"] for s in report["scenarios"])
    assert 2 <= not_played < 7, not_played


MEMORY_RUN = """
import resource, sys, tracemalloc
from conformance.cli import main
tracemalloc.start()
code = main(sys.argv[1:])
peak = tracemalloc.get_traced_memory()[1]
print("peak-bytes", peak, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, code)
"""
HEAVY_CASES = 24
MEMORY_CAP_MIB = 250
"""Stated cap on the memory the harness holds at once (tracemalloc's peak, which counts live Python
objects and not how the allocator's heap happened to fragment) while running 24 cases that each answer
with a 20 MB record. Measured: about 60 MiB; keeping every record until the end, as the harness used to,
holds over 500 MiB."""


def test_records_are_not_kept_so_memory_stays_under_its_cap(scenario_tree: Any, tmp_path: Path) -> None:
    names = [f"area/case-{n:02}-fake-big-record" for n in range(HEAVY_CASES)]
    root = scenario_tree({name: minimal_scenario() for name in names})
    argv = ["run", "--scenarios", str(root), "--report-dir", str(tmp_path / "out"), "--impl"]
    argv.append(fake_command("fake_impl.py"))
    finished = subprocess.run(
        [PYTHON, "-c", MEMORY_RUN, *argv], capture_output=True, text=True, timeout=300, check=False
    )
    last = finished.stdout.strip().splitlines()[-1].split()
    assert last[0] == "peak-bytes" and last[3] == "0", finished.stdout[-2000:] + finished.stderr[-2000:]
    peak_mib, maxrss_mib = int(last[1]) // 2**20, int(last[2]) // 1024
    assert peak_mib < MEMORY_CAP_MIB, f"peak {peak_mib} MiB held (max RSS {maxrss_mib} MiB)"
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["summary"]["passed"] == HEAVY_CASES
