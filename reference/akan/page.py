"""The page the chat sits on: its route and history, its screen, its readable keys, and the five built-ins.

The built-in tools act on the page, not on the conversation, so they live here beside what they read and
move: ``navigate`` and ``goBack`` change the route, ``readScreen`` and ``highlight`` resolve names on the
declared screen (``reference.akan.read_screen``), ``readState`` reads one subscribed key. Each turn's
context (route, scopes on screen, key names) is taken from the same place.
"""

from __future__ import annotations

from typing import Any

from conformance.scenario.akan import Setup, expand_fillers
from reference.akan import builtins, forms, local_state, placement, ui_components
from reference.akan.html_tree import Element, parse_html
from reference.akan.read_screen import limit, read_screen, refusal, resolve, text_lines
from reference.akan.state_read import agent_view, readable
from reference.akan.wire import json_text


class Page:
    def __init__(self, setup: Setup) -> None:
        self.setup = setup
        self.route = setup.route
        self.history = [setup.route]
        #: Keys whose reading components are mounted (akan.surface.key-readable-while-reader-mounted).
        self.state = {k: v for k, v in setup.state.items() if placement.in_view(v.zone, setup.zone)}
        self.ui_open = [component.open for component in setup.components]
        self.local_states = [s for s in setup.local_state if placement.in_view(s.zone, setup.zone)]
        #: Current values of the published useState / expose names.
        self.local = {name: state.value for name, state in local_state.published(self.local_states).items()}
        form = setup.form
        self.form_values: dict[str, Any] = {f.name: f.value for f in form.fields} if form else {}

    def context(self) -> dict[str, Any]:
        """akan.surface.context-completed-by-scopes-route-keys: route, scopes on screen, readable keys.

        akan.state.subscribed-key-listed-and-read-on-demand: keys are listed by name; values only through
        ``readState``.
        """
        scopes: list[str] = []
        if self.setup.html is not None:
            scopes = [e.attrs["data-agent-scope"] for e in self.screen_root().elements()
                      if "data-agent-scope" in e.attrs and e.visible()]
        keys = [*readable(self.state), *self.local, *ui_components.state_keys(self.setup.components)]
        return {"route": self.route, "scopes": scopes, "keys": keys}

    def run_builtin(self, name: str, arguments: dict[str, Any]) -> str:
        if name == "navigate":
            return self.navigate(str(arguments.get("path", "")))
        if name == "goBack":
            return self.go_back()
        if name == "readState":
            return self.read_state(str(arguments.get("key", "")))
        section = arguments.get("section" if name == "readScreen" else "target")
        if self.setup.html is None:
            return limit(text_lines(self.setup.screen)) if name == "readScreen" else json_text(
                {"error": "this screen declares no elements to highlight"})
        root = self.screen_root()
        if name == "readScreen":
            return read_screen(root, None if section is None else str(section))
        if resolve(root, str(section or "")) is None:
            return refusal(root, str(section or ""))
        return json_text({"highlighted": section})

    def unmount_readers(self, keys: list[str]) -> None:
        """The components reading ``keys`` unmount: the keys leave the agent's surface."""
        for key in keys:
            self.state.pop(key, None)

    def form_tools(self) -> list[dict[str, Any]]:
        return forms.tools(self.setup.form)

    def run_form_tool(self, name: str, arguments: dict[str, Any]) -> str | None:
        """A published form tool's call, or None when ``name`` is not one."""
        form = self.setup.form
        if form is None or name not in {tool["name"] for tool in forms.tools(form)}:
            return None
        if name == forms.fill_name(form):
            patch = arguments.get("patch")
            writes, refused = forms.fill(form, patch if isinstance(patch, dict) else {})
        else:
            op, field = forms.operations(form)[name]
            value, refused = forms.apply(op, field, self.form_values.get(field.name), arguments)
            if op == "load":
                return json_text(value)
            writes = {field.name: value}
        if refused is not None:
            return json_text({"error": refused})
        self.form_values.update(writes)
        return json_text({"written": writes})

    def local_tools(self) -> list[dict[str, Any]]:
        return local_state.setter_tools(self.local_states)

    def run_local_tool(self, name: str, arguments: dict[str, Any]) -> str | None:
        """A writable ``useState``'s setter (akan.state.use-state-read-only-unless-set), or None."""
        target = local_state.setters(self.local_states).get(name)
        if target is None:
            return None
        self.local[target[0]] = arguments.get("value")
        return json_text({"written": {target[0]: self.local[target[0]]}})

    def guides(self) -> list[str]:
        return placement.guides(self.setup.guides, self.route, self.setup.zone)

    def ui_tools(self) -> list[dict[str, Any]]:
        return ui_components.tools(self.setup.components, self.ui_open)

    def run_ui_tool(self, name: str, arguments: dict[str, Any]) -> str | None:
        """A call to a tool an ``akanjs/ui`` component publishes now, or None when ``name`` is not one."""
        if name not in {tool["name"] for tool in self.ui_tools()}:
            return None
        for index, is_open in ui_components.effects(name, self.setup.components).items():
            self.ui_open[index] = is_open
        return json_text({"done": name, **arguments})

    def _open_dropdowns(self) -> set[str]:
        return {c.namespace or "" for c, is_open in zip(self.setup.components, self.ui_open, strict=True)
                if c.type == "Dropdown" and is_open}

    def screen_root(self) -> Element:
        """The page, or a zone agent's own container (akan.zone.read-screen-limited-to-container).

        akan.ui.closed-menu-text-not-read: a dropdown's menu is on the page while closed, but hidden.
        """
        root = parse_html(expand_fillers(self.setup.html or ""))
        open_menus = self._open_dropdowns()
        for element in root.elements():
            menu = element.attrs.get("data-agent-dropdown")
            if menu is not None and menu not in open_menus:
                element.attrs["hidden"] = ""
        if self.setup.zone is None:
            return root
        zone = next((e for e in root.elements() if e.attrs.get("data-agent-zone") == self.setup.zone), None)
        return zone or Element("#document")

    def navigate(self, path: str) -> str:
        """akan.builtin.navigate-internal-only: an external destination is refused, the page stays."""
        if not builtins.is_internal(path):
            return json_text({"error": f"navigate only moves within this app; {path!r} is not an app path"})
        self.route = path
        self.history.append(path)
        return json_text({"route": path})

    def go_back(self) -> str:
        """akan.builtin.go-back-session-history-everywhere: this session's own history, on any page."""
        if len(self.history) < 2:
            return json_text({"error": "there is no earlier page in this session"})
        self.history.pop()
        self.route = self.history[-1]
        return json_text({"route": self.route})

    def read_state(self, key: str) -> str:
        """One key, as its model lets an agent see it (akan.builtin.read-state-one-masked-key).

        A key no mounted component subscribes for the agent is refused, whatever its siblings
        (akan.state.unread-sibling-key-unreadable).
        """
        if key in ui_components.state_keys(self.setup.components):
            is_open = key.removeprefix("dropdownIn") in self._open_dropdowns()
            return json_text({"key": key, "value": {"open": is_open}})
        if key in self.local:
            return json_text({"key": key, "value": self.local[key]})
        keys = readable(self.state)
        entry = keys.get(key)
        if entry is None:
            return json_text({"error": f"no readable store key named {key!r}", "keys": list(keys)})
        value, refused = agent_view(entry)
        if refused is not None:
            return json_text({"error": refused, "key": key})
        return json_text({"key": key, "value": value})
