"""Pure policies behind llmz session memory: declarations, the tagged codec, $return, capacity."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from reference.llmz import memory
from reference.llmz.definitions import result_budget_problem
from reference.llmz.typescript import ts_type

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=12,
)


@given(JSON)
def test_host_values_survive_tagging_and_json(value: Any) -> None:
    tagged = memory.encode_plain(value)
    assert memory.to_plain(json.loads(json.dumps(tagged))) == value


def test_top_level_declarations_are_variables_and_nested_ones_are_not() -> None:
    code = "const a = 1\nlet { b, c: d, e = 2 } = x\nvar [f, g] = y\nif (a) {\n  const inner = 3\n}\n"
    assert memory.declared_names(code) == ["a", "b", "d", "e", "f", "g"]
    assert memory.hoist_declarations(code).startswith("var a = 1\nvar { b")
    assert "  const inner" in memory.hoist_declarations(code)


def _record(has_result: bool, result: Any = None, retained: bool = True) -> dict[str, Any]:
    return {"id": "i", "hasResult": has_result, "result": result, "retained": retained}


def test_return_skips_iterations_without_a_result() -> None:
    assert memory.current_return([_record(True, 1), _record(False)]) == (True, 1)


def test_return_is_emptied_by_a_result_that_could_not_be_kept() -> None:
    assert memory.current_return([_record(True, 1), _record(True, None, retained=False)]) == (False, None)


def test_writes_that_do_not_fit_are_reported_and_earlier_ones_stay() -> None:
    store = memory.Memory(max_bytes=40)
    outcome = store.store({"small": {"ok": 1}, "big": {"ok": "x" * 100}})
    assert outcome.stored == ["small"] and outcome.unavailable == ["big"]
    assert list(store.variables) == ["small"]


def test_default_limit_is_sixteen_mebibytes() -> None:
    assert memory.Memory().max_bytes == 16 * 1024 * 1024


def test_result_budget_accepts_exactly_zero_through_two_thousand() -> None:
    assert [result_budget_problem(b) is None for b in (-1, 0, 2000, 2001)] == [False, True, True, False]


def test_expected_shapes_are_written_as_typescript() -> None:
    schema = {
        "type": "object",
        "properties": {"sku": {"type": "string"}, "tags": {"type": "array", "items": {"enum": ["a", "b"]}}},
        "required": ["sku"],
    }
    assert ts_type(schema) == '{ sku: string; tags?: Array<"a" | "b"> }'
