"""Mutants of the akanjs/ui component tools."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from unittest import mock

from conformance.scenario.akan import UiComponent
from reference.akan import (
    ui_components,
)
from reference.akan.page import Page
from reference.mutants import Mutant

MUTANTS: list[Mutant] = []

_component_tools = ui_components.component_tools
_ui_tools = Page.ui_tools


def _component_variant(variant: str) -> Any:
    def component_tools(component: UiComponent, is_open: bool) -> list[dict[str, Any]]:
        kind, namespace = component.type, component.namespace
        if variant == "unnamed-publish" and kind in ("Tab", "Dialog", "Dropdown") and not namespace:
            return _component_tools(component.model_copy(update={"namespace": "X"}), is_open)
        if variant == "bare-suffix" and kind in ("Tab", "Dialog", "Dropdown") and namespace:
            return [{**t, "name": t["name"].replace(f"In{namespace}", namespace)}
                    for t in _component_tools(component, is_open)]
        if variant == "sure-always" and kind == "Model.SureToRemove":
            return _component_tools(component.model_copy(update={"type_name_to_remove": False}), is_open)
        if variant == "modal-always" and kind.endswith("Modal"):
            return _component_tools(component, True)
        if variant == "new-needs-namespace" and kind in ("Model.New", "Model.NewWrapper") and not namespace:
            return []
        if variant == "new-ignores-namespace" and kind in ("Model.New", "Model.NewWrapper"):
            return _component_tools(component.model_copy(update={"namespace": None}), is_open)
        return _component_tools(component, is_open)
    return component_tools


def _tools_per_row(components: Sequence[UiComponent], open_flags: Sequence[bool]) -> list[dict[str, Any]]:
    return [t for c, o in zip(components, open_flags, strict=True) for t in _component_tools(c, o)]


def _frozen_ui_tools(self: Page) -> list[dict[str, Any]]:
    """Takes the components' tools once, when first asked, and offers that list for the whole run."""
    frozen: list[dict[str, Any]] | None = getattr(self, "_frozen_ui", None)
    if frozen is None:
        frozen = _ui_tools(self)
        self._frozen_ui = frozen  # type: ignore[attr-defined]
    return frozen


def _menus_never_hidden(self: Page) -> set[str]:
    return {c.namespace or "" for c in self.setup.components if c.type == "Dropdown"}


def _component_mutant(name: str, rule: str, variant: str, description: str) -> Mutant:
    return Mutant(
        name, (rule,),
        lambda: mock.patch.object(ui_components, "component_tools", _component_variant(variant)),
        description,
    )


MUTANTS += [
    _component_mutant("akan-unnamed-repeatables-publish", "akan.ui.repeatable-components-need-namespace",
                      "unnamed-publish", "a Tab, Dialog or Dropdown without a namespace publishes its tools"),
    _component_mutant("akan-namespace-without-in", "akan.ui.namespace-suffixes-tool-name", "bare-suffix",
                      "the namespace is appended without In (switchTabDetail)"),
    _component_mutant("akan-sure-to-remove-always", "akan.ui.sure-to-remove-type-name-publishes-nothing",
                      "sure-always", "SureToRemove publishes remove even behind a typed-name gate"),
    _component_mutant("akan-modal-verbs-always", "akan.ui.modal-verbs-only-while-open", "modal-always",
                      "a closed modal still offers its verbs"),
    _component_mutant("akan-new-needs-namespace", "akan.ui.new-wrapper-publishes-new",
                      "new-needs-namespace", "Model.NewWrapper publishes nothing without a namespace"),
    _component_mutant("akan-new-ignores-namespace", "akan.ui.new-wrapper-namespace-suffix",
                      "new-ignores-namespace", "two create triggers both answer to new"),
    Mutant(
        "akan-row-verbs-per-row",
        ("akan.ui.row-wrappers-publish-verbs",),
        lambda: mock.patch.object(ui_components, "tools", _tools_per_row),
        "every row's wrapper is offered as its own tool",
    ),
    Mutant(
        "akan-no-dropdown-state",
        ("akan.ui.dropdown-tools-and-state",),
        lambda: mock.patch.object(ui_components, "state_keys", lambda components: []),
        "a named dropdown publishes no dropdownIn state",
    ),
    Mutant(
        "akan-closed-menu-read",
        ("akan.ui.closed-menu-text-not-read",),
        lambda: mock.patch.object(Page, "_open_dropdowns", _menus_never_hidden),
        "readScreen reads a closed dropdown's items",
    ),
    Mutant(
        "akan-catalogue-frozen-per-run",
        ("akan.ui.catalogue-reread-after-opening-tool",),
        lambda: mock.patch.object(Page, "ui_tools", _frozen_ui_tools),
        "tools a call made appear are never offered, the list being taken once",
    ),
]
