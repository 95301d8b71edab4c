"""What the ``akanjs/ui`` components publish, as a table, and what calling their tools changes.

The components publish their own tools so an app writes none. Names follow three patterns: a fixed verb
(``new``, ``edit``, ``view``, ``remove``, and a modal's ``submit`` / ``cancelEditOf`` / ``closeViewOf``); a
base name plus ``In`` plus the namespace for components that can appear twice on a screen, which publish
nothing without one (akan.ui.repeatable-components-need-namespace, akan.ui.namespace-suffixes-tool-name);
and ``Model.NewWrapper``, which publishes without a namespace and takes the suffix when given one
(akan.ui.new-wrapper-publishes-new, akan.ui.new-wrapper-namespace-suffix). Modals publish only while
open (akan.ui.modal-verbs-only-while-open); the tools are taken afresh for every request, so a verb a call
opened is offered on the very next one (akan.ui.catalogue-reread-after-opening-tool).

Lists, pagination and the shell publish too (akan.ui.list-container-publishes-toolbar-and-rows,
akan.ui.pagination-publishes-set-page, akan.ui.shell-components-publish). The documents name only the
row verbs and the ``setPageOf`` prefix; the toolbar's and the shell's tool names below are the
reference's own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from reference.akan.model import UiComponent

_ID = {"modelId": {"type": "string"}}
_FIXED: dict[str, tuple[str, dict[str, Any]]] = {
    "Model.EditWrapper": ("edit", _ID),
    "Model.ViewWrapper": ("view", _ID),
    "Model.RemoveWrapper": ("remove", _ID),
    "Model.Remove": ("remove", _ID),
    "Model.SureToRemove": ("remove", _ID),
}
#: akan.ui.repeatable-components-need-namespace: base names, suffixed ``In<namespace>``.
_REPEATABLE: dict[str, tuple[tuple[str, dict[str, Any]], ...]] = {
    "Tab": (("switchTab", {"tab": {"type": "string"}}),),
    "Dialog": (("closeDialog", {}),),
    "Dropdown": (("openDropdown", {}), ("closeDropdown", {})),  # akan.ui.dropdown-tools-and-state
}
#: akan.ui.list-container-publishes-toolbar-and-rows: the row verbs (the same ones the Model.* row
#: wrappers publish); the toolbar's names are ours.
_ROW_VERBS: tuple[tuple[str, dict[str, Any]], ...] = (("edit", _ID), ("view", _ID), ("remove", _ID))
_LISTS = ("Data.ListContainer", "Model.AdminPanel")
#: akan.ui.pagination-publishes-set-page: ``setPageOf`` completed by the model shown.
_PAGINATION = ("Load.Units", "Load.Pagination", "Data.Pagination")
#: akan.ui.shell-components-publish: the tool each shell component publishes (names are ours).
_SHELL: dict[str, tuple[str, dict[str, Any]]] = {
    "Layout.Sider": ("toggleSider", {}),
    "System.SelectLanguage": ("selectLanguage", {"language": {"type": "string"}}),
    "Link.Back": ("followBackLink", {}),
    "System.ThemeToggle": ("toggleTheme", {}),
}
_MODAL_VERBS: dict[str, tuple[str, ...]] = {
    "Model.EditModal": ("submit", "cancelEditOf"),
    "Model.ViewModal": ("closeViewOf",),
    "Model.ViewEditModal": ("edit", "submit", "closeViewOf"),
}


def _entry(name: str, properties: dict[str, Any]) -> dict[str, Any]:
    parameters = {"type": "object", "properties": properties, "required": list(properties)}
    return {"name": name, "description": f"The screen's {name} control.", "parameters": parameters}


#: Which modal a row verb opens.
_OPENS = {"edit": ("Model.EditModal", "Model.ViewEditModal"), "view": ("Model.ViewModal",)}


@dataclass(frozen=True)
class UiCatalogue:
    """The tools and state keys the mounted components publish, and what a call to one opens or closes."""

    def toolbar(self, component: UiComponent) -> list[dict[str, Any]]:
        """akan.ui.list-container-publishes-toolbar-and-rows: a list's toolbar (names are ours)."""
        model = component.model or ""
        return [_entry("new", {}), _entry(f"refreshListOf{model}", {})]

    def row_verbs(self, component: UiComponent) -> list[dict[str, Any]]:
        """akan.ui.list-container-publishes-toolbar-and-rows: each row's verbs, taking ``modelId``."""
        return [_entry(*verb) for verb in _ROW_VERBS]

    def set_page(self, component: UiComponent) -> dict[str, Any]:
        """akan.ui.pagination-publishes-set-page."""
        return _entry(f"setPageOf{component.model or ''}", {"page": {"type": "integer"}})

    def shell(self, component: UiComponent) -> list[dict[str, Any]]:
        """akan.ui.shell-components-publish: the shell action the component renders."""
        return [_entry(*_SHELL[component.type])]

    def component_tools(self, component: UiComponent, is_open: bool) -> list[dict[str, Any]]:
        """The tools one mounted component publishes right now."""
        kind, namespace = component.type, component.namespace
        if kind in _LISTS:
            return [*self.toolbar(component), *self.row_verbs(component)]
        if kind in _PAGINATION:
            return [self.set_page(component)]
        if kind in _SHELL:
            return self.shell(component)
        if kind in ("Model.NewWrapper", "Model.New"):
            # akan.ui.new-wrapper-publishes-new, akan.ui.new-wrapper-namespace-suffix
            return [_entry(f"newIn{namespace}" if namespace else "new", {})]
        if kind == "Model.SureToRemove" and component.type_name_to_remove:
            return []  # akan.ui.sure-to-remove-type-name-publishes-nothing
        if kind in _FIXED:
            return [_entry(*_FIXED[kind])]  # akan.ui.row-wrappers-publish-verbs
        if kind in _REPEATABLE:  # akan.ui.namespace-suffixes-tool-name
            suffix = f"In{namespace}"
            return [_entry(base + suffix, props) for base, props in _REPEATABLE[kind]] if namespace else []
        # akan.ui.modal-verbs-only-while-open
        return [_entry(verb, _ID if verb == "edit" else {}) for verb in _MODAL_VERBS[kind]] if is_open else []

    def tools(self, components: Sequence[UiComponent], open_flags: Sequence[bool]) -> list[dict[str, Any]]:
        """Every component's tools, one entry per name (rows repeat the same verb).

        akan.ui.row-wrappers-publish-verbs. The page asks again before every request
        (akan.ui.catalogue-reread-after-opening-tool).
        """
        seen: dict[str, dict[str, Any]] = {}
        for component, is_open in zip(components, open_flags, strict=True):
            for entry in self.component_tools(component, is_open):
                seen.setdefault(entry["name"], entry)
        return list(seen.values())

    def state_keys(self, components: Sequence[UiComponent]) -> list[str]:
        """akan.ui.dropdown-tools-and-state: a named dropdown publishes ``dropdownIn<namespace>``."""
        return [f"dropdownIn{c.namespace}" for c in components if c.type == "Dropdown" and c.namespace]

    def open_menus(self, components: Sequence[UiComponent], open_flags: Sequence[bool]) -> set[str]:
        """The dropdown menus (by namespace) readScreen may read: those of open dropdowns.

        akan.ui.closed-menu-text-not-read: every other menu is on the page but hidden.
        """
        return {c.namespace or "" for c, is_open in zip(components, open_flags, strict=True)
                if c.type == "Dropdown" and is_open}

    def dismiss(
        self, name: str, components: Sequence[UiComponent], open_flags: Sequence[bool]
    ) -> tuple[int, dict[str, Any]] | None:
        """What ``closeDialogIn<namespace>`` does: the dialog's own dismissal, the path its X button takes.

        akan.ui.dialog-close-uses-dismissal: ``confirmClose`` asks first (the dialog stays open until the
        person answers) and ``onCancel`` runs when it does close; it is never a bare ``open = false``.
        Returns the dialog's index and the outcome, or None when ``name`` closes no open dialog.
        """
        for index, (component, is_open) in enumerate(zip(components, open_flags, strict=True)):
            closes_it = component.namespace and name == f"closeDialogIn{component.namespace}"
            if component.type == "Dialog" and closes_it:
                if not is_open:
                    return None
                asks = component.confirm_close
                return index, {
                    "namespace": component.namespace, "confirm_asked": asks,
                    "on_cancel_ran": component.on_cancel and not asks, "closed": not asks,
                }
        return None

    def effects(self, name: str, components: Sequence[UiComponent]) -> dict[int, bool]:
        """Which components a call opens (True) or closes (False), by index."""
        changes: dict[int, bool] = {}
        for index, component in enumerate(components):
            kind, namespace = component.type, component.namespace
            if kind == "Dropdown" and namespace and name.endswith(f"DropdownIn{namespace}"):
                changes[index] = name.startswith("open")
            elif kind in _OPENS.get(name, ()):
                changes[index] = True
            elif kind in _MODAL_VERBS and name in ("submit", "cancelEditOf", "closeViewOf"):
                changes[index] = False
        return changes
