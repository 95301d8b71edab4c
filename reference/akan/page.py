"""The page the chat sits on, live: its route and history, its screen, its readable keys, the built-ins.

``Page`` (``reference.akan.model``) is what the page is when the chat opens; ``LivePage`` is what it
becomes as the agent works: the route moves, dropdowns and modals open, a form and local state are
written, readers unmount. The built-in tools act on the page, not on the conversation, so they live here
beside what they read and move: ``navigate`` and ``goBack`` change the route, ``readScreen`` and
``highlight`` resolve names on the declared screen (``reference.akan.screen``), ``readState`` reads
one subscribed key. Each turn's context (route, scopes on screen, key names) is taken from the same place.
Every decision is read from the ``AkanPolicies`` the page was given.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from reference.akan import forms
from reference.akan.html_tree import Element, parse_html
from reference.akan.model import Page
from reference.akan.policies import DEFAULT_POLICIES, AkanPolicies
from reference.akan.wire import json_text


class LivePage:
    def __init__(self, page: Page, policies: AkanPolicies) -> None:
        self.model = page
        self.policies = policies
        self.route = page.route
        self.history = [page.route]
        in_view = policies.placement.in_view
        #: Keys whose reading components are mounted (akan.surface.key-readable-while-reader-mounted).
        self.state = {k: v for k, v in page.state.items() if in_view(v.zone, page.zone)}
        self.ui_open = [component.open for component in page.components]
        self.local_states = [s for s in page.local_state if in_view(s.zone, page.zone)]
        #: Current values of the published useState / expose names.
        published = policies.local_state.published(self.local_states)
        self.local = {name: state.value for name, state in published.items()}
        #: The page's HTML now, and a change a tool's work has started that has not landed yet.
        self.html: str | None = page.html
        self.pending_html: str | None = None
        #: Guides whose components are rendered (akan.guide.is-a-rendered-component).
        self.rendered_guides = list(page.guides)
        form = page.form
        self.form_values: dict[str, Any] = {f.name: f.value for f in form.fields} if form else {}
        #: Dialog dismissals tools started, not yet reported (akan.ui.dialog-close-uses-dismissal).
        self.dismissals: list[dict[str, Any]] = []
        #: Told when a ``ScreenSettle.wait()`` starts and ends (``"start"``, ``"end"``); the session's
        #: record, when it observes waits.
        self.on_wait: Callable[[str], None] = lambda phase: None

    def context(self) -> dict[str, Any]:
        """akan.surface.context-completed-by-scopes-route-keys: route, scopes on screen, readable keys.

        akan.state.subscribed-key-listed-and-read-on-demand: keys are listed by name; values only through
        ``readState``.
        """
        scopes: list[str] = []
        if self.html is not None:
            scopes = [e.attrs["data-agent-scope"] for e in self.screen_root().elements()
                      if "data-agent-scope" in e.attrs and e.visible()]
        reader = self.policies.state
        keys = [
            *(reader.listed(name, entry) for name, entry in reader.readable(self.state).items()),
            *self.local, *self.policies.ui.state_keys(self.model.components),
        ]
        return {"route": self.route, "scopes": scopes, "keys": keys}

    def run_builtin(self, name: str, arguments: dict[str, Any]) -> str:
        if name == "navigate":
            return self.navigate(str(arguments.get("path", "")))
        if name == "goBack":
            return self.go_back()
        if name == "readState":
            return self.read_state(str(arguments.get("key", "")))
        section = arguments.get("section" if name == "readScreen" else "target")
        if name == "readScreen":
            return self.read_screen(None if section is None else str(section))
        if self.html is None:
            return json_text({"error": "this screen declares no elements to highlight"})
        root = self.screen_root()
        screen = self.policies.screen
        if screen.resolve(root, str(section or "")) is None:
            return screen.refusal(root, str(section or ""))
        return json_text({"highlighted": section})

    def settle(self) -> None:
        """Time passes (a model call, a person's pause): a change a tool's work started lands now."""
        if self.pending_html is not None:
            self.html, self.pending_html = self.pending_html, None

    def wait_for_screen(self) -> None:
        """``ScreenSettle.wait()``: resolves once the DOM is quiet (bounded), so a change in flight lands
        before it does. Unlike ``settle``, it is an awaited call a tool or the session makes, and is
        reported as one."""
        self.on_wait("start")
        self.settle()
        self.on_wait("end")

    def read_screen(self, section: str | None = None) -> str:
        """``readScreen``: the declared HTML as compact text, or the plain-text screen when there is none."""
        if self.html is None:
            return self.policies.screen.read_text(self.model.screen)
        return self.policies.screen.read(self.screen_root(), section)

    def form_tools(self) -> list[dict[str, Any]]:
        return self.policies.forms.tools(self.model.form)

    def run_form_tool(self, name: str, arguments: dict[str, Any]) -> str | None:
        """A published form tool's call, or None when ``name`` is not one."""
        form, policy = self.model.form, self.policies.forms
        if form is None or name not in {tool["name"] for tool in policy.tools(form)}:
            return None
        if name == forms.fill_name(form):
            patch = arguments.get("patch")
            writes, refused = policy.fill(form, patch if isinstance(patch, dict) else {})
        else:
            op, field = policy.operations(form)[name]
            value, refused = policy.apply(op, field, self.form_values.get(field.name), arguments)
            if op == "load":
                return json_text(value)
            writes = {field.name: value}
        if refused is not None:
            return json_text({"error": refused})
        self.form_values.update(writes)
        writer: Literal["control", "fill"] = "fill" if name == forms.fill_name(form) else "control"
        self.form_values.update(policy.after_write(form, self.form_values, list(writes), writer))
        return json_text({"written": writes})

    def local_tools(self) -> list[dict[str, Any]]:
        describe = self.policies.declarations.parameters
        return self.policies.local_state.setter_tools(self.local_states, describe)

    def run_local_tool(self, name: str, arguments: dict[str, Any]) -> str | None:
        """A writable ``useState``'s setter (akan.state.use-state-read-only-unless-set), or None."""
        setters = self.policies.local_state.setters(self.local_states, self.policies.declarations.parameters)
        target = setters.get(name)
        if target is None:
            return None
        self.local[target[0]] = arguments.get("value")
        return json_text({"written": {target[0]: self.local[target[0]]}})

    def guides(self) -> list[str]:
        """The rendered guides for the route; module docs only where a policy serves them.

        akan.guide.abstract-md-never-served: ``*.abstract.md`` docs are for developers, never the agent.
        """
        rendered = self.policies.placement.guides(self.rendered_guides, self.route, self.model.zone)
        return [*rendered, *self.model.module_docs] if self.policies.serves_module_docs else rendered

    def ui_tools(self) -> list[dict[str, Any]]:
        return self.policies.ui.tools(self.model.components, self.ui_open)

    def run_ui_tool(self, name: str, arguments: dict[str, Any]) -> str | None:
        """A call to a tool an ``akanjs/ui`` component publishes now, or None when ``name`` is not one."""
        if name not in {tool["name"] for tool in self.ui_tools()}:
            return None
        for index, is_open in self.policies.ui.effects(name, self.model.components).items():
            self.ui_open[index] = is_open
        dismissal = self.policies.ui.dismiss(name, self.model.components, self.ui_open)
        if dismissal is not None:
            index, outcome = dismissal
            self.ui_open[index] = not outcome["closed"]
            self.dismissals.append(outcome)
            return json_text({"done": name, **outcome})
        return json_text({"done": name, **arguments})

    def _open_dropdowns(self) -> set[str]:
        return {c.namespace or "" for c, is_open in zip(self.model.components, self.ui_open, strict=True)
                if c.type == "Dropdown" and is_open}

    def screen_root(self) -> Element:
        """The page, or a zone agent's own container (akan.zone.read-screen-limited-to-container).

        akan.ui.closed-menu-text-not-read: a dropdown's menu is on the page while closed, but hidden.
        """
        root = parse_html(self.html or "")
        open_menus = self.policies.ui.open_menus(self.model.components, self.ui_open)
        for element in root.elements():
            menu = element.attrs.get("data-agent-dropdown")
            if menu is not None and menu not in open_menus:
                element.attrs["hidden"] = ""
        return self.policies.placement.zone_root(root, self.model.zone)

    def navigate(self, path: str) -> str:
        """akan.builtin.navigate-internal-only: an external destination is refused, the page stays."""
        if not self.policies.builtins.is_internal(path):
            return json_text({"error": f"navigate only moves within this app; {path!r} is not an app path"})
        self.route = path
        self.history.append(path)
        if self.policies.navigate_awaits_settle:
            # akan.builtin.navigate-awaits-screen-settle: the router's push hands its promise to nobody, so
            # navigate waits for the screen itself before it answers.
            self.wait_for_screen()
        return json_text({"route": path})

    def go_back(self) -> str:
        """akan.builtin.go-back-session-history-everywhere: this session's own history, on any page."""
        self.history, answer = self.policies.builtins.go_back(self.history)
        self.route = self.history[-1]
        return json_text(answer)

    def read_state(self, key: str) -> str:
        """One key, as its model lets an agent see it (akan.builtin.read-state-one-masked-key).

        A key no mounted component subscribes for the agent is refused, whatever its siblings
        (akan.state.unread-sibling-key-unreadable).
        """
        if key in self.policies.ui.state_keys(self.model.components):
            is_open = key.removeprefix("dropdownIn") in self._open_dropdowns()
            return json_text({"key": key, "value": {"open": is_open}})
        if key in self.local:
            return json_text({"key": key, "value": self.local[key]})
        keys = self.policies.state.readable(self.state)
        entry = keys.get(key)
        if entry is None:
            return json_text({"error": f"no readable store key named {key!r}", "keys": list(keys)})
        value, refused = self.policies.state.agent_view(entry)
        if refused is not None:
            return json_text({"error": refused, "key": key})
        return json_text({"key": key, "value": value})


def read_screen(page: Page, section: str | None = None, *, policies: AkanPolicies = DEFAULT_POLICIES) -> str:
    """What ``readScreen`` answers on ``page`` as it opens: the whole screen, or the named ``section``.

    Useful on its own to see what an agent would read of a page before scripting a conversation on it.
    """
    return LivePage(page, policies).read_screen(section)
