"""Reliability: hypothesis fuzzing of the two readers that take outside input, the stdio protocol reader
and scenario loading. Whatever comes in, the answer is an outcome (or a load error naming the file),
never an exception, a hang or a crash."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import PYTHON, minimal_scenario
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.adapters.stdio import StdioAdapter, _classify
from conformance.scenario.load import LoadedScenario, LoadError, load_file

pytestmark = pytest.mark.reliability

JSON_SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=25,
)


class _StubChild:
    """What ``_interpret`` needs of a child: something to kill and a stderr tail."""

    killed = False

    def kill(self) -> None:
        self.killed = True

    def stderr_tail(self) -> str:
        return ""


def _answers() -> st.SearchStrategy[str]:
    shaped = st.fixed_dictionaries(
        {"seq": st.integers(-2, 5) | JSON_SCALARS},
        optional={
            "record": JSON_VALUES
            | st.fixed_dictionaries({"events": st.lists(JSON_VALUES, max_size=3), "final": JSON_VALUES}),
            "skip": JSON_VALUES | st.fixed_dictionaries({"reason": st.text(max_size=10)}),
            "error": JSON_VALUES | st.fixed_dictionaries({"message": st.text(max_size=10)}),
            "extra": JSON_VALUES,
        },
    )
    return st.one_of(
        st.text(max_size=200),
        JSON_VALUES.map(json.dumps),
        shaped.map(json.dumps),
        st.binary(max_size=100).map(lambda b: b.decode("utf-8", errors="replace")),
    )


@settings(max_examples=400, deadline=None)
@given(line=_answers(), seq=st.integers(1, 3))
def test_the_protocol_reader_classifies_and_interprets_any_line(line: str, seq: int) -> None:
    kind, detail, parsed = _classify(line, seq)
    assert kind in ("answer", "stale", "ahead", "stray")
    assert bool(detail) == (kind in ("ahead", "stray")), "a refused line says why"
    if kind != "answer":
        return
    adapter = StdioAdapter([PYTHON, "-c", "pass"])
    child = _StubChild()
    outcome, died = adapter._interpret(child, line, parsed)  # type: ignore[arg-type]
    given_parts = [part for part in (outcome.record, outcome.skip, outcome.error) if part is not None]
    assert len(given_parts) == 1, outcome
    assert died == child.killed, "a broken answer kills the child, a good one keeps it"
    if outcome.record is not None:
        assert json.loads(line)["record"] == outcome.record


ECHO = """
import json, sys
sys.stdin.readline()
print(json.dumps({"protocol": 2, "implementation": {"name": "n", "version": "1", "language": "py",
                  "systems": ["akan"]}}), flush=True)
message = json.loads(sys.stdin.readline())
sys.stdout.buffer.write(bytes.fromhex(sys.argv[1]))
sys.stdout.buffer.flush()
print(json.dumps({"seq": message["seq"], "record": {"events": [], "final": {}}}), flush=True)
sys.stdin.readline()
"""


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(noise=st.sampled_from([b"", b"\n", b"\n\n"]) | st.binary(max_size=300))
def test_a_child_writing_any_bytes_before_its_answer_ends_in_an_outcome(noise: bytes) -> None:
    adapter = StdioAdapter([sys.executable, "-c", ECHO, noise.hex()], hello_timeout=10, stray_grace=0.2)
    try:
        outcome = adapter.run({"id": "akan/x/y", **minimal_scenario()}, timeout=10)
    finally:
        adapter.close()
    assert (outcome.record is None) != (outcome.error is None), outcome
    if noise in (b"", b"\n", b"\n\n"):
        assert outcome.record is not None, "blank lines are ignored"


VALID = yaml.safe_dump(minimal_scenario(), sort_keys=False)


def _load(tmp_path: Path, data: bytes) -> LoadedScenario | LoadError:
    path = tmp_path / "akan" / "area" / "fuzzed.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    loaded = load_file(path, tmp_path)
    if isinstance(loaded, LoadError):
        assert str(path) in loaded.message
    return loaded


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=400))
def test_any_bytes_load_or_fail_naming_the_file(tmp_path: Path, data: bytes) -> None:
    _load(tmp_path, data)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(position=st.integers(0, len(VALID)), insert=st.text(max_size=12), cut=st.integers(0, 8))
def test_a_damaged_scenario_loads_or_fails_naming_the_file(
    tmp_path: Path, position: int, insert: str, cut: int
) -> None:
    text = VALID[:position] + insert + VALID[position + cut :]
    _load(tmp_path, text.encode("utf-8", errors="surrogatepass"))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    extra=st.dictionaries(
        st.sampled_from(["setup", "script", "steps", "expect", "title", "rules", "requires", "other"]),
        JSON_VALUES,
        max_size=3,
    )
)
def test_any_structure_loads_or_fails_naming_the_file(tmp_path: Path, extra: dict[str, Any]) -> None:
    document = {**minimal_scenario(), **extra}
    loaded = _load(tmp_path, yaml.safe_dump(document, allow_unicode=True).encode())
    if isinstance(loaded, LoadedScenario):
        json.dumps(loaded.payload, allow_nan=False)  # whatever loads can be sent as strict JSON
