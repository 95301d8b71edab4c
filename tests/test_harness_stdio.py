"""The stdio adapter turns every way a child process can misbehave into an error outcome, and recovers."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from conftest import FAKES, PYTHON, minimal_scenario

from conformance.adapters.base import AdapterError
from conformance.adapters.stdio import StdioAdapter, command_argv


def _payload(behaviour: str = "good", **extra: object) -> dict[str, object]:
    return {"id": f"akan/harness/fake-{behaviour}", **minimal_scenario(), **extra}


@pytest.fixture
def adapter() -> Iterator[StdioAdapter]:
    instance = StdioAdapter([PYTHON, str(FAKES / "fake_impl.py"), "good"], hello_timeout=5)
    yield instance
    instance.close()


def test_hello_reports_the_implementation(adapter: StdioAdapter) -> None:
    info = adapter.hello()
    assert (info.name, info.language, info.capabilities) == ("fake-good", "python", ["fake-capability"])


def test_a_good_answer_is_a_record(adapter: StdioAdapter) -> None:
    outcome = adapter.run(_payload(), timeout=5)
    assert outcome.error is None and outcome.record is not None
    assert outcome.record["final"]["status"] == "ok"


def test_a_hang_is_a_timeout_error_within_the_timeout(adapter: StdioAdapter) -> None:
    adapter.hello()
    started = time.monotonic()
    outcome = adapter.run(_payload("hang"), timeout=1.0)
    assert time.monotonic() - started < 6
    assert outcome.error is not None and "timeout" in outcome.error and "1s" in outcome.error


def test_the_process_is_restarted_after_a_crash(adapter: StdioAdapter) -> None:
    adapter.hello()
    crashed = adapter.run(_payload("crash"), timeout=5)
    assert crashed.error is not None and "exited (code 3)" in crashed.error
    assert "crashing on purpose" in crashed.error, "the stderr tail belongs in the reason"
    after = adapter.run(_payload(), timeout=5)
    assert after.record is not None and adapter.starts == 2


@pytest.mark.parametrize(
    ("behaviour", "phrase"),
    [
        ("garbage", "not JSON"),
        ("wrong-seq", "expected 2"),
        ("bad-record", "events.0.type"),
    ],
)
def test_protocol_violations_are_errors_and_restart(
    adapter: StdioAdapter, behaviour: str, phrase: str
) -> None:
    assert adapter.run(_payload(), timeout=5).record is not None
    outcome = adapter.run(_payload(behaviour), timeout=5)
    assert outcome.error is not None and phrase in outcome.error
    assert adapter.run(_payload(), timeout=5).record is not None
    assert adapter.starts == 2


def test_skip_and_reported_errors_keep_the_process(adapter: StdioAdapter) -> None:
    assert adapter.run(_payload("skip"), timeout=5).skip == "fake cannot express this"
    refused = adapter.run(_payload("refuse"), timeout=5)
    assert refused.error is not None and "fake refused to play" in refused.error
    assert adapter.starts == 1


def test_a_command_that_cannot_start_fails_hello() -> None:
    with pytest.raises(AdapterError, match="cannot start"):
        StdioAdapter(["/nonexistent/program"]).hello()


def test_a_process_that_exits_before_hello_fails_hello_with_its_stderr() -> None:
    adapter = StdioAdapter([PYTHON, "-c", "import sys; sys.stderr.write('no protocol here'); sys.exit(4)"])
    with pytest.raises(AdapterError, match=r"exited \(code 4\)[\s\S]*no protocol here"):
        adapter.hello()


def test_a_silent_process_fails_hello_within_the_hello_timeout() -> None:
    adapter = StdioAdapter([PYTHON, "-c", "import time; time.sleep(60)"], hello_timeout=0.5)
    started = time.monotonic()
    with pytest.raises(AdapterError, match=r"no answer within 0\.5s"):
        adapter.hello()
    assert time.monotonic() - started < 6


def test_bare_python3_is_the_users_python3_from_path_not_the_harness_interpreter() -> None:
    assert command_argv("python3 adapter.py --flag 'a b'") == ["python3", "adapter.py", "--flag", "a b"]
    with pytest.raises(AdapterError):
        command_argv("  ")


INLINE_HELLO = (
    "import json, sys\n"
    "sys.stdin.readline()\n"
    "print(json.dumps({'protocol': PROTO, 'implementation': {'name': 'n', 'version': '1', 'language': 'py',"
    " 'systems': ['akan']}}), flush=True)\n"
)


def test_a_protocol_version_we_did_not_offer_fails_hello() -> None:
    adapter = StdioAdapter([PYTHON, "-c", INLINE_HELLO.replace("PROTO", "99")], hello_timeout=5)
    with pytest.raises(AdapterError, match=r"chose protocol 99, we offered \[2, 3\]"):
        adapter.hello()


def test_a_child_flooding_stderr_still_answers_in_time() -> None:
    script = INLINE_HELLO.replace("PROTO", "2") + (
        "line = json.loads(sys.stdin.readline())\n"
        "sys.stderr.write('noise ' * 200000)\n"
        "print(json.dumps({'seq': line['seq'], 'record': {'events': [], 'final': {}}}), flush=True)\n"
    )
    adapter = StdioAdapter([PYTHON, "-c", script], hello_timeout=5)
    try:
        assert adapter.run(_payload(), timeout=5).record == {"events": [], "final": {}}
    finally:
        adapter.close()


def test_a_child_that_stops_reading_cannot_block_a_large_write() -> None:
    script = INLINE_HELLO.replace("PROTO", "2") + "import time\ntime.sleep(60)\n"
    adapter = StdioAdapter([PYTHON, "-c", script], hello_timeout=5)
    adapter.hello()
    started = time.monotonic()
    outcome = adapter.run(_payload(description="x" * 2_000_000), timeout=1.0)
    assert time.monotonic() - started < 6
    assert outcome.error is not None and "timeout" in outcome.error
    adapter.close()
