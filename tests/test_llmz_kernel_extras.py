"""The kernel's optional parts (``kernel.EXTRAS``: tools, chat components, registered objects) reach a
program's setup only when its configuration needs them, a missing one fails the setup instead of leaving
part of the API out, and the parts give the guest nothing it could not reach before."""

from __future__ import annotations

import json
from typing import Any

import pytest
from llmz_bridges import AnsweringBridge

from reference.llmz import containment, kernel
from reference.llmz.sandbox import run_program

SMALL = containment.Limits(budget=5.0, backstop=10.0, heap=32 * 1024 * 1024)


OBJECTS = json.dumps({"shelf": {"count": 1}})


def _setup(tools: list[str], chat: bool, objects_state: str) -> str:
    return kernel.kernel_source(
        tools=tools, chat=chat, objects_state=objects_state, declared=[], known=[], max_chars=1 << 20
    )


@pytest.mark.parametrize(
    ("tools", "chat", "objects_state", "included"),
    [
        ([], False, "{}", set()),
        (["t"], False, "{}", {"tools"}),
        ([], True, "{}", {"chat"}),
        ([], False, OBJECTS, {"objects"}),
        (["t"], True, OBJECTS, {"tools", "chat", "objects"}),
    ],
)
def test_a_setup_carries_only_the_parts_its_configuration_needs(
    tools: list[str], chat: bool, objects_state: str, included: set[str]
) -> None:
    setup = _setup(tools, chat, objects_state)
    assert {name for name, source in kernel.EXTRAS.items() if source.strip() in setup} == included


@pytest.mark.parametrize(
    ("tools", "chat", "objects_state"),
    [(["t"], False, "{}"), ([], True, "{}"), ([], False, OBJECTS)],
    ids=["tools", "chat", "objects"],
)
def test_a_missing_part_fails_the_setup(tools: list[str], chat: bool, objects_state: str) -> None:
    complete = _setup(tools, chat, objects_state)
    bare = _setup([], False, "{}")
    config = complete[complete.index("const config = ") : complete.index("; config.memory")]
    setup = bare[: bare.index("const config = ")] + config + bare[bare.index("; config.memory") :]
    memory = json.dumps({"variables": {}, "iterations": [], "hasReturn": False, "returned": None})
    result = containment.run(
        kernel.DEFINITION,
        setup,
        kernel.program_source("return 1"),
        lambda op, args: "{}",
        SMALL,
        memory=memory,
    )
    assert result.failure is not None and "TypeError" in result.failure
    assert result.answers == []


def _run(code: str, **kwargs: Any) -> Any:
    return run_program(code, AnsweringBridge(), kwargs.pop("tools", []), limits=SMALL, **kwargs)


def test_the_parts_work_and_leave_no_global_behind() -> None:
    probe = "return ['kit', 'extras', 'track', 'toolSource', 'remember'].map((n) => typeof globalThis[n])"
    outcome = _run(
        "await t({})\nchat.card({})\nshelf.count = 2\n" + probe,
        tools=["t"],
        chat=True,
        objects_state=json.dumps({"shelf": {"count": {"$": "-0"}}}),
    )
    assert outcome.error is None, outcome.error
    assert outcome.value == ["undefined"] * 5


def test_a_program_without_the_parts_does_not_see_them() -> None:
    outcome = _run("return [typeof t, typeof chat, typeof shelf]", chat=False)
    assert outcome.value == ["undefined", "undefined", "undefined"]
