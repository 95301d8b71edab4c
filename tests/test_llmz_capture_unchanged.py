"""Long texts in session memory without the JSON round trips: the capture reports a text a program left
as it was loaded as unchanged instead of quoting it again (a kept text may be 16 MiB), and the host takes
the text from its own copy, which must give exactly what encoding every variable again gives; and long
ASCII texts reach the guest beside the memory's JSON rather than inside it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from llmz_bridges import AnsweringBridge

from reference.llmz import kernel, memory
from reference.llmz.sandbox import run_program

WITHOUT_SHORTCUT = kernel.DEFINITION.replace("const same = ", "const same = false && ")
assert WITHOUT_SHORTCUT != kernel.DEFINITION, "the shortcut is no longer where this test expects it"


LOADED: dict[str, Any] = {
    "note": 'a kept note \u00e9 "quoted" \\ and a lone \ud800 surrogate',
    "count": 3,
    "empty": "",
    "shape": {"$": "object", "v": {"text": "inside an object"}},
}


def _capture(code: str, variables: dict[str, Any], definition: str = kernel.DEFINITION) -> dict[str, Any]:
    state = json.dumps({"variables": LOADED, "iterations": [], "hasReturn": False, "returned": None})
    outcome = run_program(
        code,
        AnsweringBridge(None),
        [],
        chat=False,
        memory_state=state,
        variables=variables,
        known=list(LOADED),
        kernel_definition=definition,
    )
    assert outcome.settled and outcome.error is None, outcome
    return outcome.captured


@pytest.mark.parametrize(
    "code",
    [
        "const untouched = 1",
        "note = note.slice(0, 5) + note.slice(5)",  # another string with the same text
        "note = 'something else'",
        "note = 42; empty = undefined",
        "shape.text = 'changed'; count = count + 1",
        "const copy = note",
    ],
)
def test_the_capture_is_what_encoding_every_variable_again_gives(code: str) -> None:
    assert _capture(code, LOADED) == _capture(code, {}, WITHOUT_SHORTCUT)


def test_an_unchanged_text_is_not_sent_back_but_a_changed_one_is() -> None:
    captured = _capture("empty = 'now set'", {})  # nothing to take the unchanged text from
    assert captured["note"] == {"error": "the value could not be read back"}
    assert captured["empty"] == {"ok": "now set"}
    assert captured["count"] == {"ok": 3}


def test_long_ascii_texts_travel_beside_the_memory_json_and_arrive_whole() -> None:
    long_ascii, long_other = "a" * memory.RAW_TEXT, "\u00e9" * memory.RAW_TEXT
    kept = memory.Memory(variables={"a": long_ascii, "b": long_other, "c": 1, "short": "s"})
    state, texts = kept.guest_state()
    assert (
        texts == [long_ascii]
        and long_ascii not in state
        and long_other in json.loads(state)["variables"]["b"]
    )
    code = "return [a.length, a.slice(0, 2), b.length, b.slice(0, 2), c, short, typeof __host_text_0]"
    outcome = run_program(
        code,
        AnsweringBridge(None),
        [],
        chat=False,
        memory_state=state,
        memory_texts=texts,
        variables=kept.variables,
        known=list(kept.variables),
    )
    assert outcome.error is None, outcome
    assert outcome.value == [memory.RAW_TEXT, "aa", memory.RAW_TEXT, "\u00e9\u00e9", 1, "s", "undefined"]
    assert outcome.captured["a"] == {"ok": long_ascii} and outcome.captured["b"] == {"ok": long_other}
