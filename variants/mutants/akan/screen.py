"""Mutants of the built-in tools, readScreen, the loop bound and the screen context."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from reference.akan.builtins import BUILTIN_TOOLS, Builtins
from reference.akan.html_tree import Element
from reference.akan.model import StateKey
from reference.akan.placement import Placement
from reference.akan.screen import EXACT_ATTRIBUTES, Line, Rendering, ScreenReader, skip_name
from reference.akan.state_read import StateReader
from variants import Mutant
from variants.mutants.akan.common import mutant

_WAIT = {
    "name": "wait",
    "description": "Wait until a store key changes.",
    "parameters": {"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]},
}


class _BuiltinBeatsHookTool(Builtins):
    """Lists every built-in even when a page tool took its name, and runs the built-in when called."""

    def offered(self, page_tools: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        return [*page_tools, *(dict(tool) for tool in self.tools)]


class _NavigatesAnywhere(Builtins):
    def is_internal(self, path: str) -> bool:
        return True


class _Unmasked(StateReader):
    def agent_view(self, entry: StateKey) -> tuple[Any, str | None]:
        return entry.value, None


class _ValuesInContext(StateReader):
    def listed(self, name: str, entry: StateKey) -> str:
        return f"{name}={json.dumps(entry.value, sort_keys=True)}"


class _ReadsPassword(ScreenReader):
    def control(self, control: Element, labels: dict[str, str]) -> str:
        if control.attrs.get("type", "").lower() == "password":
            return f"[password {control.attrs.get('name', '')}: {control.attrs.get('value', '')}]"
        return super().control(control, labels)


class _SelectShowsFirstOption(ScreenReader):
    """A select always reads as its first option, whichever one is chosen."""

    def control(self, control: Element, labels: dict[str, str]) -> str:
        token = super().control(control, labels)
        options = [o for o in control.elements() if o.tag == "option"] if control.tag == "select" else []
        chosen = next((o for o in options if "selected" in o.attrs), None)
        return token.replace(chosen.text(), options[0].text()) if chosen is not None else token


class _TextareaUnread(ScreenReader):
    """A textarea reads like an empty input: its text is not given."""

    def control(self, control: Element, labels: dict[str, str]) -> str:
        if control.tag == "textarea":
            return "[textarea]"
        return super().control(control, labels)


class _ReadsChatUi(ScreenReader):
    def is_chat_ui(self, element: Element) -> bool:
        return False


class _NoDisabledMarker(ScreenReader):
    def disabled_marker(self, element: Element) -> str:
        return ""


class _HiddenResolves(ScreenReader):
    def eligible(self, element: Element) -> bool:
        return True


class _HeadingExact(ScreenReader):
    def slug(self, text: str) -> str:
        return text


class _LooseEverything(ScreenReader):
    """Applies the heading tolerance to every kind of name."""

    def resolve(self, root: Element, name: str) -> Element | None:
        for element in root.elements():
            values = [element.attrs.get(a) for a in EXACT_ATTRIBUTES]
            if element.visible() and any(v and self.slug(v) == self.slug(name) for v in values):
                return element
        return super().resolve(root, name)


class _SectionToTheEnd(ScreenReader):
    def heading_section(self, root: Element, heading: Element) -> list[Line]:
        whole = self.render(root, skip=False)
        return whole.lines[whole.heading_at[id(heading)] :]


class _SectionEndsAtSameLevelOnly(ScreenReader):
    """A heading section ends only at the next heading of exactly its level, so it runs past a higher one."""

    def heading_section(self, root: Element, heading: Element) -> list[Line]:
        whole = self.render(root, skip=False)
        start = whole.heading_at[id(heading)]
        level = whole.lines[start].level
        end = next(
            (i for i in range(start + 1, len(whole.lines)) if whole.lines[i].level == level), len(whole.lines)
        )
        return whole.lines[start:end]


class _SectionHoldsNextLine(ScreenReader):
    """A heading section always takes the line after its heading, even when that line is the next heading."""

    def heading_section(self, root: Element, heading: Element) -> list[Line]:
        whole = self.render(root, skip=False)
        start = whole.heading_at[id(heading)]
        level = whole.lines[start].level or 1
        end = next(
            (i for i in range(start + 2, len(whole.lines)) if (whole.lines[i].level or 7) <= level),
            len(whole.lines),
        )
        return whole.lines[start:end]


class _TypedInputsUnread(ScreenReader):
    """An input whose type is not plain text (email, number, date, ...) is listed without its value."""

    def control(self, control: Element, labels: dict[str, str]) -> str:
        kind = control.attrs.get("type", "text").lower()
        if control.tag == "input" and kind not in ("text", "checkbox", "radio", "submit", "button", "reset"):
            return f"[input {kind}]"
        return super().control(control, labels)


class _LabelSwallowingRendering(Rendering):
    def _element(self, node: Element) -> None:
        if node.tag != "label":
            super()._element(node)


class _LabelsSwallowControls(ScreenReader):
    """Every label is left out of the read, with whatever it wraps."""

    def render(self, root: Element, scope: Element | None = None, *, skip: bool) -> Rendering:
        rendering = _LabelSwallowingRendering(self, {}, skip=skip)
        rendering.walk(scope or root)
        rendering.flush()
        return rendering


class _SkipNameBySlug(ScreenReader):
    """A skipped region's name is matched on letters and digits, the tolerance only headings have."""

    def resolve(self, root: Element, name: str) -> Element | None:
        found = super().resolve(root, name)
        if found is not None:
            return found
        wanted = self.slug(name)
        return next(
            (
                e
                for e in root.elements()
                if self.eligible(e) and "data-agent-skip" in e.attrs and self.slug(skip_name(e)) == wanted
            ),
            None,
        )


class _NoSkipMarker(ScreenReader):
    def render(self, root: Element, scope: Element | None = None, *, skip: bool) -> Rendering:
        return super().render(root, scope, skip=False)


class _CutKeepsNothing(ScreenReader):
    """A read past the limit keeps none of the page: only the list of headings below the cut."""

    def limit(self, lines: list[Line]) -> str:
        text = "\n".join(line.text for line in lines)
        if len(text) <= self.max_chars:
            return text
        below = "; ".join(line.heading for line in lines if line.level is not None)
        return f"[read cut; further down: {below}]"


class _DropsOverlongFirstLine(ScreenReader):
    """Cuts only between lines, so a first line longer than the limit is dropped whole."""

    def limit(self, lines: list[Line]) -> str:
        text = "\n".join(line.text for line in lines)
        if len(text) <= self.max_chars or len(lines[0].text) <= self.max_chars:
            return super().limit(lines)
        below = "; ".join(line.heading for line in lines if line.level is not None)
        return f"[read cut; further down: {below}]"


class _ZoneReadsWholePage(Placement):
    def zone_root(self, page: Element, agent_zone: str | None) -> Element:
        return page


MUTANTS: list[Mutant] = [
    mutant(
        "akan-builtin-beats-hook-tool",
        "akan.builtin.hook-tool-shadows-builtin",
        "a page tool named like a built-in is listed twice and calls run the built-in",
        builtins=_BuiltinBeatsHookTool(call_order=("builtin", "page", "form", "ui", "local")),
    ),
    mutant(
        "akan-wait-builtin",
        "akan.builtin.no-general-wait",
        "a general-purpose wait tool is offered on every screen",
        builtins=Builtins(tools=(*BUILTIN_TOOLS, _WAIT)),
    ),
    mutant(
        "akan-navigate-anywhere",
        "akan.builtin.navigate-internal-only",
        "navigate follows any address, external ones included",
        builtins=_NavigatesAnywhere(),
    ),
    mutant(
        "akan-unmasked-state",
        ("akan.builtin.read-state-one-masked-key", "akan.state.read-masked-by-declared-model"),
        "readState returns masked fields in the clear",
        state=_Unmasked(),
    ),
    mutant(
        "akan-reads-password",
        "akan.builtin.read-screen-never-reads-password",
        "readScreen prints a password field's value",
        screen=_ReadsPassword(),
    ),
    mutant(
        "akan-select-reads-first-option",
        "akan.builtin.read-screen-compact-text",
        "a select's value is read as its first option, not the chosen one",
        screen=_SelectShowsFirstOption(),
    ),
    mutant(
        "akan-textarea-unread",
        "akan.builtin.read-screen-compact-text",
        "a textarea is listed without its text",
        screen=_TextareaUnread(),
    ),
    mutant(
        "akan-reads-chat-ui",
        "akan.builtin.read-screen-skips-chat-ui",
        "readScreen reads the chat panel as part of the page",
        screen=_ReadsChatUi(),
    ),
    mutant(
        "akan-no-disabled-marker",
        ("akan.builtin.read-screen-compact-text", "akan.form.read-screen-marks-disabled"),
        "disabled controls and buttons read like enabled ones",
        screen=_NoDisabledMarker(),
    ),
    mutant(
        "akan-hidden-resolves",
        "akan.readscreen.hidden-never-resolves",
        "a hidden element can be named as a section or highlight target",
        screen=_HiddenResolves(),
    ),
    mutant(
        "akan-heading-exact",
        "akan.readscreen.heading-match-letters-digits",
        "a heading resolves only by its exact text, so a slug misses it",
        screen=_HeadingExact(),
    ),
    mutant(
        "akan-loose-everything",
        "akan.readscreen.exact-match-for-non-headings",
        "scope, id and annotation names match on letters and digits like headings",
        screen=_LooseEverything(),
    ),
    mutant(
        "akan-section-to-the-end",
        "akan.readscreen.heading-section-extent",
        "a heading section runs to the end of the page",
        screen=_SectionToTheEnd(),
    ),
    mutant(
        "akan-section-ends-at-same-level-only",
        "akan.readscreen.heading-section-extent",
        "a heading section runs past a heading of higher level, ending only at one of its own level",
        screen=_SectionEndsAtSameLevelOnly(),
    ),
    mutant(
        "akan-section-holds-next-line",
        "akan.readscreen.heading-section-extent",
        "a heading section always takes the line after its heading, even when that line is the next heading",
        screen=_SectionHoldsNextLine(),
    ),
    mutant(
        "akan-typed-inputs-unread",
        "akan.builtin.read-screen-compact-text",
        "an email, number or date input is listed without its value",
        screen=_TypedInputsUnread(),
    ),
    mutant(
        "akan-labels-swallow-controls",
        "akan.builtin.read-screen-compact-text",
        "a label is left out of the read together with the control it wraps",
        screen=_LabelsSwallowControls(),
    ),
    mutant(
        "akan-skip-name-by-slug",
        "akan.readscreen.exact-match-for-non-headings",
        "a skipped region's name resolves by its slug, like a heading",
        screen=_SkipNameBySlug(),
    ),
    mutant(
        "akan-no-read-limit",
        ("akan.readscreen.character-limit", "akan.readscreen.truncated-read-lists-remaining-headings"),
        "readScreen returns the whole page however long",
        screen=ScreenReader(max_chars=10**9),
    ),
    mutant(
        "akan-read-limit-7999",
        "akan.readscreen.character-limit",
        "readScreen cuts at 7999 characters, so a read of exactly 8000 loses its end",
        screen=ScreenReader(max_chars=7999),
    ),
    mutant(
        "akan-read-limit-7998",
        "akan.readscreen.character-limit",
        "readScreen cuts at 7998 characters, so a read of 7999 loses its end",
        screen=ScreenReader(max_chars=7998),
    ),
    mutant(
        "akan-read-limit-8001",
        "akan.readscreen.character-limit",
        "readScreen lets 8001 characters through whole",
        screen=ScreenReader(max_chars=8001),
    ),
    mutant(
        "akan-read-cut-keeps-nothing",
        "akan.readscreen.character-limit",
        "a read past the limit returns none of the page, only the headings below the cut",
        screen=_CutKeepsNothing(),
    ),
    mutant(
        "akan-read-drops-overlong-first-line",
        "akan.readscreen.character-limit",
        "a first line longer than the limit is dropped whole instead of cut inside",
        screen=_DropsOverlongFirstLine(),
    ),
    mutant(
        "akan-no-skip-marker",
        "akan.readscreen.skip-marker",
        "skipped regions are read in full by the default read",
        screen=_NoSkipMarker(),
    ),
    mutant(
        "akan-max-turns-ignored",
        "akan.builtin.max-turns-bound",
        "the loop keeps posting however many turns it has taken",
        max_turns=lambda configured: 10**6,
    ),
    mutant(
        "akan-zone-reads-whole-page",
        "akan.zone.read-screen-limited-to-container",
        "a zone agent's readScreen reads the whole page",
        placement=_ZoneReadsWholePage(),
    ),
    mutant(
        "akan-key-values-in-context",
        "akan.state.subscribed-key-listed-and-read-on-demand",
        "each turn's context carries the subscribed keys' values instead of their names",
        state=_ValuesInContext(),
    ),
]
