"""The host side a kernel test plays against: ``run_program`` calls it for every host operation a program
makes. One class for the tests that only need programs to run (tools answer, the rest is ``undefined``);
a test that checks what reached the host records calls itself (``test_llmz_containment.Recording``)."""

from __future__ import annotations

from typing import Any

from reference.llmz.preview import UNDEFINED
from reference.llmz.sandbox import encode_value


class AnsweringBridge:
    """Every tool answers ``tool_answer``; exits, components and object writes give ``undefined``; an
    inspect is refused; an internal failure fails the test where it happens."""

    def __init__(self, tool_answer: Any = "ok") -> None:
        self.tool_answer = tool_answer

    def tool(self, name: str, input_json: str | None, line: int | None) -> str:
        return encode_value(self.tool_answer)

    def exit(self, name: str, payload_json: str | None) -> str:
        return encode_value(UNDEFINED)

    def component(self, name: str, props_json: str | None) -> str:
        return encode_value(UNDEFINED)

    def inspect(self, value_json: str | None) -> str | None:
        return None

    def object_set(self, obj: str, prop: str, tagged_json: str | None) -> str:
        return encode_value(UNDEFINED)

    def internal_failure(self, message: str) -> None:
        raise AssertionError(message)
