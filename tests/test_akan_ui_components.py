"""What akanjs/ui components publish (reference.akan.ui_components)."""

from __future__ import annotations

from typing import Any

from reference.akan.model import UiComponent
from reference.akan.ui_components import UiCatalogue

CATALOGUE = UiCatalogue()
component_tools, effects, state_keys, tools = (
    CATALOGUE.component_tools, CATALOGUE.effects, CATALOGUE.state_keys, CATALOGUE.tools
)


def _names(component: dict[str, Any], is_open: bool = False) -> list[str]:
    return [tool["name"] for tool in component_tools(UiComponent(**component), is_open)]


def test_repeatable_components_publish_only_with_a_namespace() -> None:
    # akan.ui.repeatable-components-need-namespace, akan.ui.namespace-suffixes-tool-name
    assert _names({"type": "Tab"}) == []
    assert _names({"type": "Tab", "namespace": "Detail"}) == ["switchTabInDetail"]
    assert _names({"type": "Dropdown", "namespace": "Row"}) == ["openDropdownInRow", "closeDropdownInRow"]
    assert state_keys([UiComponent(type="Dropdown", namespace="Row"), UiComponent(type="Dropdown")]) == [
        "dropdownInRow"
    ]


def test_new_wrapper_needs_no_namespace_and_is_told_apart_by_one() -> None:
    # akan.ui.new-wrapper-publishes-new, akan.ui.new-wrapper-namespace-suffix
    assert _names({"type": "Model.NewWrapper"}) == ["new"]
    assert _names({"type": "Model.NewWrapper", "namespace": "Copy"}) != ["new"]


def test_modals_publish_while_open_and_row_verbs_open_them() -> None:
    # akan.ui.modal-verbs-only-while-open
    assert _names({"type": "Model.EditModal"}) == []
    assert _names({"type": "Model.EditModal"}, is_open=True) == ["submit", "cancelEditOf"]
    assert _names({"type": "Model.ViewEditModal"}, is_open=True) == ["edit", "submit", "closeViewOf"]
    components = [UiComponent(type="Model.EditWrapper"), UiComponent(type="Model.EditModal")]
    assert effects("edit", components) == {1: True}
    assert effects("submit", components) == {1: False}


def test_rows_share_one_tool_per_verb() -> None:
    # akan.ui.row-wrappers-publish-verbs, akan.ui.sure-to-remove-type-name-publishes-nothing
    rows = [UiComponent(type="Model.RemoveWrapper"), UiComponent(type="Model.Remove"),
            UiComponent(type="Model.SureToRemove", type_name_to_remove=True)]
    assert [tool["name"] for tool in tools(rows, [False, False, False])] == ["remove"]
    assert _names({"type": "Model.SureToRemove", "type_name_to_remove": True}) == []
