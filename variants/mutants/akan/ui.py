"""Mutants of the akanjs/ui component tools."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from reference.akan.model import UiComponent
from reference.akan.ui_components import UiCatalogue
from variants import Mutant
from variants.mutants.akan.common import mutant

_REPEATABLE = ("Tab", "Dialog", "Dropdown")
_NEW = ("Model.New", "Model.NewWrapper")


class _UnnamedRepeatablesPublish(UiCatalogue):
    def component_tools(self, component: UiComponent, is_open: bool) -> list[dict[str, Any]]:
        if component.type in _REPEATABLE and not component.namespace:
            component = replace(component, namespace="X")
        return super().component_tools(component, is_open)


class _NamespaceWithoutIn(UiCatalogue):
    def component_tools(self, component: UiComponent, is_open: bool) -> list[dict[str, Any]]:
        tools = super().component_tools(component, is_open)
        namespace = component.namespace
        if component.type in _REPEATABLE and namespace:
            return [{**t, "name": t["name"].replace(f"In{namespace}", namespace)} for t in tools]
        return tools


class _SureToRemoveAlways(UiCatalogue):
    def component_tools(self, component: UiComponent, is_open: bool) -> list[dict[str, Any]]:
        if component.type == "Model.SureToRemove":
            component = replace(component, type_name_to_remove=False)
        return super().component_tools(component, is_open)


class _ModalVerbsAlways(UiCatalogue):
    def component_tools(self, component: UiComponent, is_open: bool) -> list[dict[str, Any]]:
        return super().component_tools(component, is_open or component.type.endswith("Modal"))


class _NewNeedsNamespace(UiCatalogue):
    def component_tools(self, component: UiComponent, is_open: bool) -> list[dict[str, Any]]:
        if component.type in _NEW and not component.namespace:
            return []
        return super().component_tools(component, is_open)


class _NewIgnoresNamespace(UiCatalogue):
    def component_tools(self, component: UiComponent, is_open: bool) -> list[dict[str, Any]]:
        if component.type in _NEW:
            component = replace(component, namespace=None)
        return super().component_tools(component, is_open)


class _VerbsPerRow(UiCatalogue):
    def tools(self, components: Sequence[UiComponent], open_flags: Sequence[bool]) -> list[dict[str, Any]]:
        return [t for c, o in zip(components, open_flags, strict=True) for t in self.component_tools(c, o)]


class _NoDropdownState(UiCatalogue):
    def state_keys(self, components: Sequence[UiComponent]) -> list[str]:
        return []


class _ClosedMenuRead(UiCatalogue):
    def open_menus(self, components: Sequence[UiComponent], open_flags: Sequence[bool]) -> set[str]:
        return {c.namespace or "" for c in components if c.type == "Dropdown"}


class _ListWithoutRows(UiCatalogue):
    def row_verbs(self, component: UiComponent) -> list[dict[str, Any]]:
        return []


class _ListWithoutToolbar(UiCatalogue):
    def toolbar(self, component: UiComponent) -> list[dict[str, Any]]:
        return []


class _SetPageWithoutOf(UiCatalogue):
    def set_page(self, component: UiComponent) -> dict[str, Any]:
        return {**super().set_page(component), "name": f"setPage{component.model or ''}"}


class _SilentShell(UiCatalogue):
    def shell(self, component: UiComponent) -> list[dict[str, Any]]:
        return []


class _DialogCloseFlipsState(UiCatalogue):
    """closeDialogIn sets the dialog's open flag to false: no confirmation, no onCancel."""

    def dismiss(
        self, name: str, components: Sequence[UiComponent], open_flags: Sequence[bool]
    ) -> tuple[int, dict[str, Any]] | None:
        found = super().dismiss(name, components, open_flags)
        if found is None:
            return None
        index, outcome = found
        return index, {**outcome, "confirm_asked": False, "on_cancel_ran": False, "closed": True}


@dataclass(frozen=True)
class _CatalogueFrozenPerRun(UiCatalogue):
    """Takes the components' tools once, when first asked, and offers that list for the whole run."""

    taken: list[list[dict[str, Any]]] = field(default_factory=list)

    def tools(self, components: Sequence[UiComponent], open_flags: Sequence[bool]) -> list[dict[str, Any]]:
        if not self.taken:
            self.taken.append(super().tools(components, open_flags))
        return self.taken[0]


class _FirstDialogDismissed(UiCatalogue):
    """closeDialogIn<namespace> dismisses the first namespaced dialog on the page, whichever it names."""

    def dismiss(
        self, name: str, components: Sequence[UiComponent], open_flags: Sequence[bool]
    ) -> tuple[int, dict[str, Any]] | None:
        first = next((c.namespace for c in components if c.type == "Dialog" and c.namespace), None)
        return super().dismiss(f"closeDialogIn{first}" if first else name, components, open_flags)


class _DropdownCloseIgnored(UiCatalogue):
    """closeDropdownIn<namespace> answers but leaves the dropdown open, so its state keeps saying open."""

    def effects(self, name: str, components: Sequence[UiComponent]) -> dict[int, bool]:
        changes = super().effects(name, components)
        return {
            index: opened
            for index, opened in changes.items()
            if opened or components[index].type != "Dropdown"
        }


class _DropdownOpensItsNamespace(UiCatalogue):
    """openDropdownIn<namespace> opens every component of that namespace, a dialog beside the dropdown too."""

    def effects(self, name: str, components: Sequence[UiComponent]) -> dict[int, bool]:
        changes = super().effects(name, components)
        for index, component in enumerate(components):
            if component.namespace and name.endswith(f"DropdownIn{component.namespace}"):
                changes[index] = name.startswith("open")
        return changes


MUTANTS: list[Mutant] = [
    mutant(
        "akan-unnamed-repeatables-publish",
        "akan.ui.repeatable-components-need-namespace",
        "a Tab, Dialog or Dropdown without a namespace publishes its tools",
        ui=_UnnamedRepeatablesPublish(),
    ),
    mutant(
        "akan-first-dialog-dismissed",
        "akan.ui.namespace-suffixes-tool-name",
        "closeDialogIn<namespace> dismisses the first namespaced dialog rather than the one it names",
        ui=_FirstDialogDismissed(),
    ),
    mutant(
        "akan-dropdown-opens-its-namespace",
        "akan.ui.dropdown-tools-and-state",
        "opening a named dropdown also opens another component under the same namespace",
        ui=_DropdownOpensItsNamespace(),
    ),
    mutant(
        "akan-namespace-without-in",
        "akan.ui.namespace-suffixes-tool-name",
        "the namespace is appended without In (switchTabDetail)",
        ui=_NamespaceWithoutIn(),
    ),
    mutant(
        "akan-sure-to-remove-always",
        "akan.ui.sure-to-remove-type-name-publishes-nothing",
        "SureToRemove publishes remove even behind a typed-name gate",
        ui=_SureToRemoveAlways(),
    ),
    mutant(
        "akan-modal-verbs-always",
        "akan.ui.modal-verbs-only-while-open",
        "a closed modal still offers its verbs",
        ui=_ModalVerbsAlways(),
    ),
    mutant(
        "akan-new-needs-namespace",
        "akan.ui.new-wrapper-publishes-new",
        "Model.NewWrapper publishes nothing without a namespace",
        ui=_NewNeedsNamespace(),
    ),
    mutant(
        "akan-new-ignores-namespace",
        "akan.ui.new-wrapper-namespace-suffix",
        "two create triggers both answer to new",
        ui=_NewIgnoresNamespace(),
    ),
    mutant(
        "akan-row-verbs-per-row",
        "akan.ui.row-wrappers-publish-verbs",
        "every row's wrapper is offered as its own tool",
        ui=_VerbsPerRow(),
    ),
    mutant(
        "akan-dropdown-close-ignored",
        "akan.ui.dropdown-tools-and-state",
        "closeDropdownIn answers but the dropdown stays open",
        ui=_DropdownCloseIgnored(),
    ),
    mutant(
        "akan-no-dropdown-state",
        "akan.ui.dropdown-tools-and-state",
        "a named dropdown publishes no dropdownIn state",
        ui=_NoDropdownState(),
    ),
    mutant(
        "akan-closed-menu-read",
        "akan.ui.closed-menu-text-not-read",
        "readScreen reads a closed dropdown's items",
        ui=_ClosedMenuRead(),
    ),
    mutant(
        "akan-list-without-row-verbs",
        "akan.ui.list-container-publishes-toolbar-and-rows",
        "a list container publishes its toolbar but no row verbs",
        ui=_ListWithoutRows(),
    ),
    mutant(
        "akan-list-without-toolbar",
        "akan.ui.list-container-publishes-toolbar-and-rows",
        "a list container publishes its row verbs but no toolbar",
        ui=_ListWithoutToolbar(),
    ),
    mutant(
        "akan-set-page-without-of",
        "akan.ui.pagination-publishes-set-page",
        "pagination publishes setPage<Model>, not setPageOf",
        ui=_SetPageWithoutOf(),
    ),
    mutant(
        "akan-silent-shell",
        "akan.ui.shell-components-publish",
        "the shell components publish nothing",
        ui=_SilentShell(),
    ),
    mutant(
        "akan-dialog-close-flips-state",
        "akan.ui.dialog-close-uses-dismissal",
        "closeDialogIn only sets open to false, skipping confirmClose and onCancel",
        ui=_DialogCloseFlipsState(),
    ),
    # A fresh catalogue for every run: the change is applied once per played case.
    mutant(
        "akan-catalogue-frozen-per-run",
        "akan.ui.catalogue-reread-after-opening-tool",
        "tools a call made appear are never offered, the list being taken once",
        lambda p: replace(p, ui=_CatalogueFrozenPerRun()),
    ),
]
