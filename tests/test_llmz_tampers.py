"""A snapshot tamper with nothing to break is the scenario's error, named, never a runtime's refusal."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.players import play


def _case(returns: str, tamper: str) -> dict[str, Any]:
    return {
        "id": "llmz/sessions/tamper-check",
        "system": "llmz",
        "script": [
            {"tool_calls": [{"code": f"const note = 'kept'\nreturn {returns}"}]},
            {"tool_calls": [{"code": 'return exit("done", { success: true })'}]},
        ],
        "steps": [
            {"op": "append", "messages": [{"role": "user", "content": "Count the boxes"}]},
            {"op": "execute", "mode": "worker"},
            {"op": "save_and_restore", "tamper": tamper},
        ],
    }


def test_breaking_a_property_of_a_result_that_is_no_object_names_the_step() -> None:
    needs_object = r"steps: save_and_restore\.tamper malformed_property needs .* object"
    with pytest.raises(ValueError, match=needs_object):
        play(_case("5", "malformed_property"), None)


def test_an_object_result_is_broken_and_the_restore_refused() -> None:
    record = play(_case("{ label: 'boxes', count: 5 }", "malformed_property"), None)
    errors = [e for e in record["events"] if e["type"] == "error"]
    assert errors and errors[0]["step"] == "save_and_restore" and errors[0]["code"] == "INVALID_SESSION"
