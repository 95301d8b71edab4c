"""Mutants of the built-in tools, readScreen, the loop bound and the screen context."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any
from unittest import mock

from reference.akan import (
    builtins,
    read_screen,
)
from reference.akan.html_tree import Element, parse_html
from reference.akan.mutants.common import patch_all as _patch_all
from reference.akan.page import Page
from reference.akan.session import ChatSession
from reference.mutants import Mutant

MUTANTS: list[Mutant] = []


def _context_with_values(self: Page) -> dict[str, object]:
    values = [f"{k}={json.dumps(v.value, sort_keys=True)}" for k, v in self.setup.state.items()]
    return {**_page_context(self), "keys": values}


_page_context = Page.context


def _builtins_beside_hooks(page_tools: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Lists every built-in even when a page tool took its name, and runs the built-in when called."""
    return [*page_tools, *(dict(tool) for tool in builtins.BUILTIN_TOOLS)]


_run_tool = ChatSession._run_tool


def _builtin_first(self: ChatSession, tool: object, name: str, arguments: dict[str, object]) -> str:
    if name in builtins.BUILTIN_NAMES:
        return self.page.run_builtin(name, dict(arguments))
    return _run_tool(self, tool, name, arguments)  # type: ignore[arg-type]


def _with_wait(page_tools: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    wait = {
        "name": "wait",
        "description": "Wait until a store key changes.",
        "parameters": {"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]},
    }
    return [*_offered(page_tools), wait]


_offered = builtins.offered
_control = read_screen._control
_walk = read_screen._Renderer.walk
_render = read_screen.render
_resolve = read_screen.resolve


def _control_with_password(control: Element, labels: dict[str, str]) -> str:
    if control.attrs.get("type", "").lower() == "password":
        return f"[password {control.attrs.get('name', '')}: {control.attrs.get('value', '')}]"
    return _control(control, labels)


def _walk_into_chat_ui(self: read_screen._Renderer, node: Element | str) -> None:
    if isinstance(node, Element) and "data-agent-ui" in node.attrs:
        for child in node.children:
            _walk(self, child)
        return
    _walk(self, node)


def _render_without_skipping(root: Element, scope: Element | None = None, *, skip: bool) -> object:
    return _render(root, scope, skip=False)


def _loose_resolve(root: Element, name: str) -> Element | None:
    """Applies the heading tolerance to every kind of name."""
    for element in root.elements():
        values = [element.attrs.get(a) for a in read_screen.EXACT_ATTRIBUTES]
        if element.visible() and any(v and read_screen.slug(v) == read_screen.slug(name) for v in values):
            return element
    return _resolve(root, name)


def _section_to_the_end(root: Element, heading: Element) -> list[read_screen.Line]:
    whole = read_screen.render(root, skip=False)
    return whole.lines[whole.heading_at[id(heading)] :]


MUTANTS += [
    Mutant(
        "akan-builtin-beats-hook-tool",
        ("akan.builtin.hook-tool-shadows-builtin",),
        lambda: _patch_all(
            mock.patch.object(builtins, "offered", _builtins_beside_hooks),
            mock.patch.object(ChatSession, "_run_tool", _builtin_first),
        ),
        "a page tool named like a built-in is listed twice and calls run the built-in",
    ),
    Mutant(
        "akan-wait-builtin",
        ("akan.builtin.no-general-wait",),
        lambda: mock.patch.object(builtins, "offered", _with_wait),
        "a general-purpose wait tool is offered on every screen",
    ),
    Mutant(
        "akan-navigate-anywhere",
        ("akan.builtin.navigate-internal-only",),
        lambda: mock.patch.object(builtins, "is_internal", lambda path: True),
        "navigate follows any address, external ones included",
    ),
    Mutant(
        "akan-unmasked-state",
        ("akan.builtin.read-state-one-masked-key", "akan.state.read-masked-by-declared-model"),
        lambda: mock.patch("reference.akan.page.agent_view", lambda entry: (entry.value, None)),
        "readState returns masked fields in the clear",
    ),
    Mutant(
        "akan-reads-password",
        ("akan.builtin.read-screen-never-reads-password",),
        lambda: mock.patch.object(read_screen, "_control", _control_with_password),
        "readScreen prints a password field's value",
    ),
    Mutant(
        "akan-reads-chat-ui",
        ("akan.builtin.read-screen-skips-chat-ui",),
        lambda: mock.patch.object(read_screen._Renderer, "walk", _walk_into_chat_ui),
        "readScreen reads the chat panel as part of the page",
    ),
    Mutant(
        "akan-no-disabled-marker",
        ("akan.builtin.read-screen-compact-text", "akan.form.read-screen-marks-disabled"),
        lambda: mock.patch.object(read_screen, "disabled_marker", lambda element: ""),
        "disabled controls and buttons read like enabled ones",
    ),
    Mutant(
        "akan-hidden-resolves",
        ("akan.readscreen.hidden-never-resolves",),
        lambda: mock.patch.object(read_screen, "_eligible", lambda element: True),
        "a hidden element can be named as a section or highlight target",
    ),
    Mutant(
        "akan-heading-exact",
        ("akan.readscreen.heading-match-letters-digits",),
        lambda: mock.patch.object(read_screen, "slug", lambda text: text),
        "a heading resolves only by its exact text, so a slug misses it",
    ),
    Mutant(
        "akan-loose-everything",
        ("akan.readscreen.exact-match-for-non-headings",),
        lambda: mock.patch.object(read_screen, "resolve", _loose_resolve),
        "scope, id and annotation names match on letters and digits like headings",
    ),
    Mutant(
        "akan-section-to-the-end",
        ("akan.readscreen.heading-section-extent",),
        lambda: mock.patch.object(read_screen, "_heading_section", _section_to_the_end),
        "a heading section runs to the end of the page",
    ),
    Mutant(
        "akan-no-read-limit",
        ("akan.readscreen.character-limit", "akan.readscreen.truncated-read-lists-remaining-headings"),
        lambda: mock.patch.object(read_screen, "MAX_CHARS", 10**9),
        "readScreen returns the whole page however long",
    ),
    Mutant(
        "akan-no-skip-marker",
        ("akan.readscreen.skip-marker",),
        lambda: mock.patch.object(read_screen, "render", _render_without_skipping),
        "skipped regions are read in full by the default read",
    ),
]

MUTANTS += [
    Mutant(
        "akan-max-turns-ignored",
        ("akan.builtin.max-turns-bound",),
        lambda: mock.patch.object(ChatSession, "max_turns", lambda self: 10**6),
        "the loop keeps posting however many turns it has taken",
    ),
    Mutant(
        "akan-zone-reads-whole-page",
        ("akan.zone.read-screen-limited-to-container",),
        lambda: mock.patch.object(Page, "screen_root", lambda self: parse_html(self.setup.html or "")),
        "a zone agent's readScreen reads the whole page",
    ),
    Mutant(
        "akan-key-values-in-context",
        ("akan.state.subscribed-key-listed-and-read-on-demand",),
        lambda: mock.patch.object(Page, "context", _context_with_values),
        "each turn's context carries the subscribed keys' values instead of their names",
    ),
]
