"""Reliability: the blind implementations' stdio adapters (blind/falai, blind/akan) given hostile input.

A case the adapter cannot play (an unknown op, steps that are not a list, a null step, no case at all)
must be answered ``skip`` or ``error`` for that case, at once: before, blind-falai crashed on such a case
and blind-akan never answered it, so the harness waited out its timeout. A huge case must be answered,
not hang. A line that is not a JSON command must not cost the commands after it.
(spec/protocol/README.md, "What the harness does when things go wrong": a run never hangs.)
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conformance.adapters.stdio import StdioAdapter

pytestmark = [
    pytest.mark.reliability,
    pytest.mark.skipif(
        shutil.which("node") is None, reason="Node (node) is not on PATH: the blind adapters need it"
    ),
]

ROOT = Path(__file__).resolve().parents[1]
SYSTEMS = ("falai", "akan")
SEND = {"falai": "message", "akan": "send"}
TIMEOUT = 5.0


def _argv(system: str) -> list[str]:
    return ["node", str(ROOT / "blind" / system / "adapter.mjs")]


@pytest.fixture(scope="module", params=SYSTEMS)
def adapter(request: pytest.FixtureRequest) -> Iterator[tuple[str, StdioAdapter]]:
    system: str = request.param
    started = StdioAdapter(_argv(system))
    started.hello()
    yield system, started
    started.close()


def _case(system: str, name: str, **fields: Any) -> dict[str, Any]:
    return {"id": f"{system}/hostile/{name}", "system": system, "setup": {}, **fields}


MALFORMED = {
    "unknown op": {"steps": [{"op": "teleport"}]},
    "steps an object": {"steps": {"op": "teleport"}},
    "null, number and string steps": {"steps": [None, 5, "send"]},
    "a step without op": {"steps": [{}]},
    "setup a string": {"setup": "hello", "steps": [{"op": "teleport"}]},
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_a_case_the_adapter_cannot_play_is_answered_skip_or_error_at_once(
    adapter: tuple[str, StdioAdapter], name: str
) -> None:
    system, stdio = adapter
    started = time.monotonic()
    outcome = stdio.run(_case(system, name.replace(" ", "-"), **MALFORMED[name]), TIMEOUT)
    assert time.monotonic() - started < TIMEOUT - 1, "answered by the timeout, not by the adapter"
    assert outcome.record is None and (outcome.skip or outcome.error), outcome
    assert "timeout" not in (outcome.error or "") and "exited" not in (outcome.error or ""), outcome.error


def test_a_run_without_a_case_is_skipped_or_an_error_not_a_crash(adapter: tuple[str, StdioAdapter]) -> None:
    _, stdio = adapter
    outcome = stdio.run({}, TIMEOUT)  # the harness never sends this; the adapter must still answer
    assert outcome.record is None and (outcome.skip or outcome.error), outcome
    assert "exited" not in (outcome.error or "") and "timeout" not in (outcome.error or ""), outcome.error


@pytest.mark.parametrize("size", ["20 MB of text", "20,000 steps"], ids=["20-MB-text", "20k-steps"])
def test_a_huge_case_is_answered_not_left_hanging(adapter: tuple[str, StdioAdapter], size: str) -> None:
    system, stdio = adapter
    if size == "20 MB of text":
        steps = [{"op": SEND[system], "text": "x" * 20_000_000}]
    else:
        steps = [{"op": SEND[system], "text": "hi"}] * 20_000
    outcome = stdio.run(_case(system, "huge", steps=steps), 60)
    assert outcome.record is not None or outcome.skip or outcome.error, outcome
    assert "timeout" not in (outcome.error or "") and "exited" not in (outcome.error or ""), outcome.error


@pytest.mark.parametrize("system", SYSTEMS)
def test_lines_that_are_not_commands_cost_nothing_after_them(system: str) -> None:
    """Before: one line that was not JSON ended blind-falai (an uncaught SyntaxError), so the hello and
    the run after it were never answered."""
    junk = ["this is not json", "[1, 2]", "null", "{", "\u0000\u001b[2J", "x" * 1_000_000]
    commands = [
        *junk,
        json.dumps({"cmd": "hello", "protocol": [2]}),
        json.dumps({"cmd": "run", "seq": 1, "case": _case(system, "unknown", steps=[{"op": "teleport"}])}),
        json.dumps({"cmd": "stop"}),
    ]
    done = subprocess.run(
        _argv(system),
        input="\n".join(commands) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(answers) == len(junk) + 2, done.stdout[:2000] + done.stderr[-2000:]
    assert all(
        set(a) == {"error"} and "not a JSON command" in a["error"]["message"] for a in answers[: len(junk)]
    )
    assert all(len(json.dumps(a)) < 500 for a in answers[: len(junk)])
    assert answers[-2]["protocol"] == 2
    assert answers[-1]["seq"] == 1 and ("skip" in answers[-1] or "error" in answers[-1])
    assert done.returncode == 0
