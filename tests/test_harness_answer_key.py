"""A case leaves the harness without its answer key: no title, description, rules, expect or why.

The fakes echo the keys of what they received, so these tests see exactly what an implementation sees.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import FAKES, PYTHON, every_scenario, minimal_scenario

from conformance.adapters.python_factory import PythonAdapter, load_factory
from conformance.adapters.stdio import StdioAdapter
from conformance.runner import run_case, select
from conformance.scenario.load import LoadedScenario
from conformance.scenario.model import CASE_FIELDS

ANSWER_KEY = {"title", "description", "rules", "expect", "why"}


def _scenario_with_every_judging_field(scenario_tree: Any) -> LoadedScenario:
    document = minimal_scenario(description="a description the implementation must not see")
    document["expect"][0]["why"] = "a reason the implementation must not see"
    root = scenario_tree({"area/keyed": document})
    (item,) = select(root)
    assert isinstance(item, LoadedScenario)
    return item


def _keys_everywhere(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys_everywhere(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys_everywhere(v)}
    return set()


def test_the_payload_is_the_case_half_only(scenario_tree: Any) -> None:
    item = _scenario_with_every_judging_field(scenario_tree)
    assert set(item.payload) <= {"id", *CASE_FIELDS}
    assert not ANSWER_KEY & _keys_everywhere(item.payload)
    assert item.payload["id"] == item.id


@pytest.mark.parametrize("via", ["stdio", "python"])
def test_an_echoing_implementation_receives_no_answer_key(scenario_tree: Any, via: str) -> None:
    item = _scenario_with_every_judging_field(scenario_tree)
    adapter: StdioAdapter | PythonAdapter = (
        StdioAdapter([PYTHON, str(FAKES / "fake_impl.py"), "good"], hello_timeout=10)
        if via == "stdio"
        else PythonAdapter(load_factory("fakes.pyimpl:make"))
    )
    try:
        result = run_case(adapter, adapter.hello(), item, timeout=10)
    finally:
        adapter.close()
    assert result.record is not None, result.message
    received = set(result.record["events"][0]["received"])
    assert received == {"id", "system", "steps"} | ({"setup"} if "setup" in item.document else set())
    assert not ANSWER_KEY & received


def test_the_reference_server_plays_a_case_without_its_answer_key() -> None:
    """The reference needs nothing it is judged by: a stripped case plays to a record (no title check)."""
    from conformance.players import play

    item = next(i for i in every_scenario() if isinstance(i, LoadedScenario) and i.id.startswith("falai/"))
    record = play(json.loads(json.dumps(item.payload)))
    assert isinstance(record.get("events"), list)


def test_the_run_schema_refuses_a_scenario_with_its_answers() -> None:
    import jsonschema

    from conformance.paths import PROTOCOL_DIR

    schema = json.loads(Path(PROTOCOL_DIR / "run.schema.json").read_text(encoding="utf-8"))
    case = {"id": "akan/a/b", "system": "akan", "steps": [{"op": "send", "text": "hi"}]}
    jsonschema.validate({"cmd": "run", "seq": 1, "case": case}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"cmd": "run", "seq": 1, "case": {**case, "expect": []}}, schema)
