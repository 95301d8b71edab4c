"""st.tool declarations to published tools (reference.akan.declarations)."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.scenario import akan as vocab
from reference.akan.declarations import Declarations
from reference.akan.model import PageTool, ToolArg

DECLARATIONS = Declarations()
call_refusal, clashes = DECLARATIONS.call_refusal, DECLARATIONS.clashes
page_entries, parameters = DECLARATIONS.page_entries, DECLARATIONS.parameters
published, scalar_type = DECLARATIONS.published, DECLARATIONS.scalar_type


def _tool(name: str | None, *args: dict[str, Any], shared: bool = False) -> PageTool:
    return PageTool(name=name, args=[ToolArg(**arg) for arg in args], shared=shared)


def test_enum_type_follows_the_values() -> None:
    # akan.tool.enum-of-argument
    assert scalar_type([1, 2, 3]) == "integer"
    assert scalar_type([1, 2.5]) == "number"
    assert scalar_type(["a", 1]) == "string"
    assert scalar_type([True, False]) == "string"  # booleans are not numbers in JSON


def test_parameters_list_every_argument_as_required() -> None:
    schema = parameters([ToolArg(name="id"), ToolArg(name="n", type="integer")])
    assert schema == {
        "type": "object",
        "properties": {"id": {"type": "string"}, "n": {"type": "integer"}},
        "required": ["id", "n"],
    }


@pytest.mark.parametrize("kind", ["model", "Any", "Map"])
def test_one_undescribable_argument_withdraws_the_tool(kind: str) -> None:
    # akan.tool.undescribable-arg-withdraws-tool
    tool = _tool("importIt", {"name": "ok"}, {"name": "payload", "type": kind})
    assert parameters(tool.args) is None
    assert published([tool]) == {}


def test_falsy_names_are_never_published_and_shared_repeats_once() -> None:
    # akan.tool.falsy-name-declares-without-publishing, akan.tool.shared-merges-repeats
    tools = [_tool(""), _tool(None), _tool("rm", shared=True), _tool("rm", shared=True), _tool("save")]
    assert [entry["name"] for entry in page_entries(tools)] == ["rm", "save"]


def test_unshared_repeats_leave_one_reachable_and_are_reported() -> None:
    # akan.tool.duplicate-name-warns, akan.tool.shared-merges-repeats
    first, last = PageTool(name="save", description="first"), PageTool(name="save", description="last")
    assert published([first, last])["save"].description == "last"
    assert clashes([first, last]) == {"save": 2}
    assert clashes([_tool("rm", shared=True), _tool("rm", shared=True)]) == {}
    assert clashes([_tool("rm", shared=True), _tool("rm")]) == {"rm": 2}


def test_off_values_are_refused_by_name_and_json_equality_is_used() -> None:
    # akan.tool.enum-of-refuses-off-values, akan.tool.one-of-render-values
    tool = _tool("set", {"name": "p", "type": "enumOf", "values": [1, 2]},
                 {"name": "who", "one_of": ["ada"]})
    assert call_refusal(tool, {"p": 2.0, "who": "ada"}) is None
    refused = call_refusal(tool, {"p": "2"})
    assert refused is not None and "'2'" in refused
    assert call_refusal(tool, {"p": True}) is not None
    assert "linus" in (call_refusal(tool, {"p": 1, "who": "linus"}) or "")
    assert call_refusal(tool, {}) is None  # a missing argument is not this rule's business


@pytest.mark.parametrize("arg_type", [ToolArg, vocab.ToolArg])
def test_values_must_come_with_enum_of_and_only_then(arg_type: Any) -> None:
    with pytest.raises(ValueError, match="values"):
        arg_type(name="p", type="enumOf")
    with pytest.raises(ValueError, match="values"):
        arg_type(name="p", values=["a"])


def _module_and_render() -> list[PageTool]:
    return [PageTool("exportCsv", chain="module"), PageTool("saveTask")]


def test_exec_is_the_only_hook_so_a_module_scope_chain_is_declared() -> None:
    # akan.tool.exec-is-the-only-hook
    tools, errors = Declarations().render([], _module_and_render(), first=True)
    assert [t.name for t in tools] == ["exportCsv", "saveTask"] and errors == []
    hooks = Declarations(hooks=frozenset({"tool", "arg", "exec"}))
    tools, errors = hooks.render([], _module_and_render(), first=True)
    assert [t.name for t in tools] == ["saveTask"]
    assert len(errors) == 1 and "exportCsv" in errors[0]


def test_exec_again_on_a_render_is_the_same_declaration() -> None:
    statements = _module_and_render()
    again, _ = Declarations().render(statements, statements, first=False)
    assert again == statements and Declarations().clashes(again) == {}
    plain, _ = Declarations(hooks=frozenset()).render(statements, statements, first=False)
    assert Declarations().clashes(plain) == {"exportCsv": 2, "saveTask": 2}
