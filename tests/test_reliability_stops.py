"""Reliability: an adapter cannot end the run, the user can, and the harness's children die with it.

Issue 23, items 3 and 4. ``BaseException`` from a Python implementation (``SystemExit``, a
``KeyboardInterrupt`` it raises itself, ``GeneratorExit``) is that case's error and the exit code follows
the verdicts. A real Ctrl-C, SIGTERM or SIGHUP stops the run with one line, no traceback and the last
report intact; whatever way the harness ends (SIGKILL included), no implementation process stays behind.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import FAKES, minimal_scenario

from conformance.cli import main

pytestmark = pytest.mark.reliability

TESTS = Path(__file__).resolve().parent
STARTUP = 30.0
"""Seconds allowed for a harness process to start its implementation (a loaded two-core machine)."""
GONE = 10.0
"""Seconds allowed for every implementation process to disappear once the harness was stopped."""


def _tree(scenario_tree: Callable[[dict[str, Any]], Path], *names: str) -> Path:
    return scenario_tree({f"area/{name}": minimal_scenario() for name in names})


def _run(root: Path, out: Path, impl: str) -> tuple[int, dict[str, Any]]:
    status = main(
        ["run", "--scenarios", str(root), "--report-dir", str(out), "--impl", impl, "--timeout", "5"]
    )
    report = out / "report.json"
    return status, json.loads(report.read_text(encoding="utf-8")) if report.exists() else {}


# -- BaseException from an adapter ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("case", "kind"),
    [
        ("a-fake-sysexit", "SystemExit"),
        ("a-fake-keyboard", "KeyboardInterrupt"),
        ("a-fake-genexit", "GeneratorExit"),
    ],
)
def test_base_exception_from_run_is_that_cases_error(
    scenario_tree: Callable[[dict[str, Any]], Path], tmp_path: Path, case: str, kind: str
) -> None:
    root = _tree(scenario_tree, case, "b-good")
    status, report = _run(root, tmp_path / "out", "python:fakes.pyimpl:make")
    verdicts = {s["id"].rsplit("/", 1)[-1]: (s["verdict"], s["message"]) for s in report["scenarios"]}
    assert status == 1
    assert verdicts[case][0] == "error" and kind in verdicts[case][1]
    assert verdicts["b-good"] == ("pass", ""), "the run went on after the adapter's exception"


@pytest.mark.parametrize("factory", ["make_exiting_hello", "make_exiting_factory"])
def test_system_exit_before_the_first_case_is_a_failed_start_not_a_green_run(
    scenario_tree: Callable[[dict[str, Any]], Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    factory: str,
) -> None:
    root = _tree(scenario_tree, "b-good")
    status, _ = _run(root, tmp_path / "out", f"python:fakes.pyimpl:{factory}")
    assert status == 2
    assert "SystemExit" in capsys.readouterr().err


def test_system_exit_from_close_leaves_the_verdicts(
    scenario_tree: Callable[[dict[str, Any]], Path], tmp_path: Path
) -> None:
    root = _tree(scenario_tree, "b-good")
    status, report = _run(root, tmp_path / "out", "python:fakes.pyimpl:make_exiting_close")
    assert status == 0 and report["summary"]["passed"] == 1


def test_a_stop_dropped_inside_a_del_still_ends_a_one_job_run(
    scenario_tree: Callable[[dict[str, Any]], Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A SIGTERM whose handler's exception Python dropped (it ran inside a ``__del__`` or a gc callback;
    the fake leaves exactly that state): the run must still stop before its next case (``stopping.check``),
    with no report, rather than play on to a green verdict."""
    root = _tree(scenario_tree, "a-fake-swallowed-stop", "b-good")
    out = tmp_path / "out"
    status = main(["run", "--scenarios", str(root), "--report-dir", str(out), "--impl",
                   "python:fakes.pyimpl:make", "--jobs", "1"])  # fmt: skip
    assert status == 128 + signal.SIGTERM, capsys.readouterr()
    assert not (out / "report.json").exists()


# -- stopping the harness -------------------------------------------------------------------------------


def _alive_with(marker: str) -> list[int]:
    """Live (not zombie) processes whose environment carries ``marker``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as handle:
                if marker.encode() not in handle.read():
                    continue
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as handle:
                state = handle.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state not in ("Z", "X"):
            found.append(int(entry))
    return found


def _launch(tmp_path: Path, marker: str, behaviour: str, cases: int, *extra: str) -> subprocess.Popen[str]:
    """A harness playing ``cases`` scenarios on ``fake_impl.py <behaviour>``, its processes marked."""
    scenarios = tmp_path / "scenarios" / "akan" / "area"
    scenarios.mkdir(parents=True)
    for number in range(cases):
        (scenarios / f"case{number}.yaml").write_text(json.dumps(minimal_scenario()), encoding="utf-8")
    impl = f"stdio:{sys.executable} {FAKES / 'fake_impl.py'} {behaviour}"
    command = [
        sys.executable, "-m", "conformance", "run", "--impl", impl, "--timeout", "600", *extra,
        "--scenarios", str(tmp_path / "scenarios"), "--report-dir", str(tmp_path / "out"),
    ]  # fmt: skip
    env = {**os.environ, "S21_STOP_MARKER": marker, "PYTHONPATH": str(TESTS)}
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _started(harness: subprocess.Popen[str], marker: str, at_least: int) -> list[int]:
    """Wait until ``at_least`` processes of this test besides the harness run; then let them settle into
    waiting on a case. A harness that never gets there is killed and the test fails."""
    end = time.monotonic() + STARTUP
    while time.monotonic() < end:
        children = [pid for pid in _alive_with(marker) if pid != harness.pid]
        if len(children) >= at_least:
            time.sleep(0.5)
            return children
        time.sleep(0.05)
    harness.kill()
    pytest.fail(f"the implementations never started: {harness.communicate()}")


def _start_harness(tmp_path: Path, behaviour: str, marker: str) -> tuple[subprocess.Popen[str], list[int]]:
    """A harness running ``fake_impl.py <behaviour>``, once the implementation has started."""
    harness = _launch(tmp_path, marker, behaviour, 1)
    return harness, _started(harness, marker, 1)


def _wait_gone(marker: str, harness_pid: int) -> list[int]:
    end = time.monotonic() + GONE
    while time.monotonic() < end:
        left = [pid for pid in _alive_with(marker) if pid != harness_pid]
        if not left:
            return []
        time.sleep(0.05)
    return left


def _stop(harness: subprocess.Popen[str], stop: int, marker: str) -> tuple[str, str, list[int]]:
    """Send ``stop`` to the harness: its output, and the processes of this test still alive afterwards
    (killed before returning, so a failing test leaves nothing behind)."""
    harness.send_signal(stop)
    try:
        out, err = harness.communicate(timeout=GONE)
    except subprocess.TimeoutExpired:
        harness.kill()
        out, err = harness.communicate()
        pytest.fail(f"the harness did not stop on {signal.Signals(stop).name}: {err[-2000:]}")
    left = _wait_gone(marker, harness.pid)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    return out, err, left


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
@pytest.mark.parametrize("behaviour", ["hello-hang", "hang"])
def test_a_stopped_harness_leaves_no_process_and_no_traceback(
    tmp_path: Path, stop: int, behaviour: str
) -> None:
    marker = uuid.uuid4().hex
    harness, _ = _start_harness(tmp_path, behaviour, marker)
    out, err, left = _stop(harness, stop, marker)
    assert left == [], f"{signal.Signals(stop).name} left implementation processes running"
    assert harness.returncode == 128 + stop, (out, err)
    assert "Traceback" not in err and signal.Signals(stop).name in err


def test_a_killed_harness_takes_its_implementation_with_it(tmp_path: Path) -> None:
    marker = uuid.uuid4().hex
    harness, _ = _start_harness(tmp_path, "hang", marker)
    harness.send_signal(signal.SIGKILL)
    harness.communicate(timeout=GONE)
    left = _wait_gone(marker, harness.pid)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert left == [], "SIGKILL of the harness left its implementation running"


def test_an_interrupted_run_leaves_the_last_report_intact(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "report.json").write_text('{"the": "last report"}\n', encoding="utf-8")
    harness, _ = _start_harness(tmp_path, "hang", uuid.uuid4().hex)
    harness.send_signal(signal.SIGINT)
    harness.communicate(timeout=GONE)
    assert (out / "report.json").read_text(encoding="utf-8") == '{"the": "last report"}\n'
    assert [p.name for p in out.iterdir() if p.name.endswith(".tmp")] == []
