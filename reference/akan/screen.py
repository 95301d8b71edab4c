"""``readScreen`` and ``highlight``'s target: the screen as compact text, and names resolved on it.

Theory of operation. The screen is rendered to lines: a heading is a line of its own (``## Orders``),
block elements break lines, and links and controls are inline tokens (``[Open](/orders/7)``,
``[input Email: ada@example.com]``, ``[button: Save] (disabled)``). What the agent may not read never
reaches a line: the chat's own UI (``data-agent-ui``), hidden elements, and a password's value. A default
read replaces each region marked ``data-agent-skip`` with ``[skipped: name]``.

A ``section`` (or ``highlight`` ``target``) is a name the agent has seen. It is looked up in a fixed order
-- annotations, scope containers, element ids, skip regions, then headings -- among visible elements only;
everything matches exactly except a heading, which matches on letters and digits alone so a slug of its
text finds it. An element section reads that element; a heading section reads from the heading to the
next heading of its level or higher. Every read is held to 8000 characters, and a read that had to be cut
ends by naming the headings below the cut, so the agent can ask for them.

Line formats are the reference's own (akan.builtin.read-screen-compact-text leaves them open); what the
rules fix is contents and markers: ``(disabled)``, ``(#anchor)``, ``[skipped: name]``.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from reference.akan.html_tree import INERT, Element, collapse

#: akan.readscreen.character-limit
MAX_CHARS = 8000
HEADINGS = {f"h{level}": level for level in range(1, 7)}
BLOCKS = frozenset({
    "address", "article", "aside", "blockquote", "body", "br", "dd", "div", "dl", "dt", "fieldset", "figure",
    "footer", "form", "header", "hr", "html", "li", "main", "nav", "ol", "p", "pre", "section", "table",
    "tbody", "tfoot", "thead", "tr", "ul",
})
#: akan.readscreen.resolvable-names: the exact-match kinds, in the order they are tried.
EXACT_ATTRIBUTES = ("data-akan-action", "data-akan-state", "data-agent-scope", "id")


class Line(NamedTuple):
    text: str
    level: int | None = None
    """The heading level when the line is a heading."""
    heading: str = ""
    """The heading's own text (without ``#`` and anchor), for the list below a cut."""


def skip_name(element: Element) -> str:
    """akan.readscreen.skip-raw-attribute: an empty ``data-agent-skip`` is named by its tag."""
    return element.attrs.get("data-agent-skip") or element.tag


def anchor(heading: Element) -> str | None:
    """akan.readscreen.anchor-printed: the scope or id of the container this heading opens."""
    container = heading.parent
    if container is None or container.first_element_child() is not heading:
        return None
    return container.attrs.get("data-agent-scope") or container.attrs.get("id") or None


def _label(control: Element, labels: dict[str, str]) -> str:
    attrs = control.attrs
    for candidate in (attrs.get("aria-label"), labels.get(attrs.get("id", "")), attrs.get("placeholder"),
                      attrs.get("name")):
        if candidate:
            return collapse(candidate)
    return control.tag


def _labels(root: Element) -> dict[str, str]:
    return {e.attrs["for"]: e.text() for e in root.elements() if e.tag == "label" and e.attrs.get("for")}


def text_lines(screen: str) -> list[Line]:
    """A plain-text screen (``Page.screen``) as lines; markdown-style ``#`` lines count as headings."""
    lines: list[Line] = []
    for raw in screen.splitlines():
        match = re.match(r"^(#{1,6})\s+(.*)$", raw)
        lines.append(Line(raw, len(match.group(1)), match.group(2)) if match else Line(raw))
    return lines


class Rendering:
    """Walks a subtree and writes lines; ``skip`` is on for the default read only."""

    def __init__(self, reader: ScreenReader, labels: dict[str, str], *, skip: bool) -> None:
        self.reader = reader
        self.labels = labels
        self.skip = skip
        self.lines: list[Line] = []
        self.heading_at: dict[int, int] = {}
        self._inline: list[str] = []

    def flush(self) -> None:
        text = collapse(" ".join(self._inline))
        if text:
            self.lines.append(Line(text))
        self._inline = []

    def walk(self, node: Element | str) -> None:
        if isinstance(node, str):
            self._inline.append(node)
            return
        if node.hides_itself() or node.tag in INERT or self.reader.is_chat_ui(node):
            return  # akan.builtin.read-screen-skips-chat-ui, akan.readscreen.hidden-never-resolves
        if self.skip and "data-agent-skip" in node.attrs:
            self.flush()
            self.lines.append(Line(f"[skipped: {skip_name(node)}]"))  # akan.readscreen.skip-marker
            return
        self._element(node)

    def _element(self, node: Element) -> None:
        marker = self.reader.disabled_marker
        if node.tag in HEADINGS:
            self.flush()
            text, level = node.text(), HEADINGS[node.tag]
            name = anchor(node)
            self.heading_at[id(node)] = len(self.lines)
            self.lines.append(Line("#" * level + f" {text}" + (f" (#{name})" if name else ""), level, text))
        elif node.tag in ("input", "select", "textarea"):
            self._inline.append(self.reader.control(node, self.labels))
        elif node.tag == "button":
            self._inline.append(f"[button: {node.text()}]{marker(node)}")
        elif node.tag == "label" and node.attrs.get("for", "") in self.labels:
            return  # its text is printed as the control's label instead
        elif node.tag == "a" and node.attrs.get("href"):
            self._inline.append(f"[{node.text()}]({node.attrs['href']})")
        else:
            block = node.tag in BLOCKS
            if block:
                self.flush()
                if node.tag == "li":
                    self._inline.append("-")
            for child in node.children:
                self.walk(child)
            if block:
                self.flush()


class ScreenReader(NamedTuple):
    """``readScreen`` and the names ``highlight`` resolves: every decision about reading the screen.

    ``max_chars`` holds every read (akan.readscreen.character-limit). Like ``Line``, a named tuple: an
    immutable value, with no ``frozen=True`` flag that decides no rule.
    """

    max_chars: int = MAX_CHARS

    def slug(self, text: str) -> str:
        """akan.readscreen.heading-match-letters-digits: only letters and digits count, case folded."""
        return "".join(char for char in text.casefold() if char.isalnum())

    def is_chat_ui(self, element: Element) -> bool:
        """akan.builtin.read-screen-skips-chat-ui: the chat's own panel is never part of the page read."""
        return "data-agent-ui" in element.attrs

    def disabled_marker(self, element: Element) -> str:
        """A disabled control or button says so, from the native attribute or ``aria-disabled``.

        akan.builtin.read-screen-compact-text, akan.form.read-screen-marks-disabled.
        """
        native = "disabled" in element.attrs
        aria = element.attrs.get("aria-disabled", "").lower() == "true"
        return " (disabled)" if native or aria else ""

    def control(self, control: Element, labels: dict[str, str]) -> str:
        """One control as an inline token. akan.builtin.read-screen-never-reads-password."""
        kind = control.attrs.get("type", "text").lower() if control.tag == "input" else control.tag
        label = _label(control, labels)
        if kind == "password":
            token = f"[password {label}]"
        elif kind in ("checkbox", "radio"):
            token = f"[{kind} {label}: {'checked' if 'checked' in control.attrs else 'unchecked'}]"
        elif kind in ("submit", "button", "reset"):  # only an input's kind comes from its type
            token = f"[button: {control.attrs.get('value', kind)}]"
        elif control.tag == "select":
            chosen = [o for o in control.elements() if o.tag == "option" and "selected" in o.attrs]
            options = chosen or [o for o in control.elements() if o.tag == "option"][:1]
            token = f"[select {label}: {options[0].text() if options else ''}]"
        elif control.tag == "textarea":
            token = f"[textarea {label}: {control.text()}]"
        else:
            token = f"[input {label}: {control.attrs.get('value', '')}]"
        return token + self.disabled_marker(control)

    def render(self, root: Element, scope: Element | None = None, *, skip: bool) -> Rendering:
        """The lines of ``scope`` (or the whole ``root``); ``skip`` marks ``data-agent-skip`` regions."""
        rendering = Rendering(self, _labels(root), skip=skip)
        rendering.walk(scope or root)
        rendering.flush()
        return rendering

    def eligible(self, element: Element) -> bool:
        """Whether a name may resolve to ``element``: visible and not the chat's own UI.

        akan.readscreen.hidden-never-resolves.
        """
        return element.visible() and not element.inside("data-agent-ui")

    def resolve(self, root: Element, name: str) -> Element | None:
        """The element a ``section`` / ``target`` names, or None (akan.readscreen.resolvable-names).

        akan.readscreen.exact-match-for-non-headings: every kind but headings compares exactly.
        akan.readscreen.hidden-never-resolves: an invisible match is passed over.
        """
        candidates = [e for e in root.elements() if self.eligible(e)]
        for attribute in EXACT_ATTRIBUTES:
            found = next((e for e in candidates if e.attrs.get(attribute) == name), None)
            if found is not None:
                return found
        skipped = next((e for e in candidates if "data-agent-skip" in e.attrs and skip_name(e) == name), None)
        if skipped is not None:
            return skipped  # akan.readscreen.skip-marker-name-is-section
        wanted = self.slug(name)
        return next(
            (e for e in candidates if e.tag in HEADINGS and wanted and self.slug(e.text()) == wanted), None
        )

    def sections(self, root: Element) -> list[str]:
        """Names on screen, in order, that a refusal offers (akan.readscreen.refusal-lists-sections)."""
        names: list[str] = []
        for element in root.elements():
            if not self.eligible(element):
                continue
            if "data-agent-scope" in element.attrs:
                names.append(element.attrs["data-agent-scope"])
            if "data-agent-skip" in element.attrs:
                names.append(skip_name(element))
            if element.tag in HEADINGS and element.text():
                names.append(element.text())
        return [name for name in dict.fromkeys(names) if name]

    def refusal(self, root: Element, name: str) -> str:
        listed = ", ".join(self.sections(root)) or "none"
        return f'Nothing named "{name}" is on this screen. Sections: {listed}.'

    def heading_section(self, root: Element, heading: Element) -> list[Line]:
        """akan.readscreen.heading-section-extent: up to the next heading of the same level or higher."""
        whole = self.render(root, skip=False)
        start = whole.heading_at[id(heading)]
        level = HEADINGS[heading.tag]
        levels = [line.level for line in whole.lines]
        end = next(
            (i for i in range(start + 1, len(levels)) if (found := levels[i]) is not None and found <= level),
            len(levels),
        )
        return whole.lines[start:end]

    def limit(self, lines: list[Line]) -> str:
        """The read held to ``max_chars`` in total, the note listing headings past the cut included.

        akan.readscreen.character-limit, akan.readscreen.truncated-read-lists-remaining-headings. The cut
        falls between lines (within the first line only when that line alone is too long); the document
        leaves the marking open, so the note is ours.
        """
        max_chars = self.max_chars
        text = "\n".join(line.text for line in lines)
        if len(text) <= max_chars:
            return text
        below: list[str] = []
        for kept in range(len(lines) - 1, -1, -1):
            if lines[kept].level is not None:
                below.insert(0, lines[kept].heading)
            body = "\n".join(line.text for line in lines[:kept])
            further = "; ".join(below) or "no headings"
            note = f"\n[read cut to fit {max_chars} characters; further down: {further}]"
            if kept and len(body) + len(note) <= max_chars:
                return body + note
        return (lines[0].text + "\n")[: max_chars - len(note)] + note

    def read(self, root: Element, section: str | None) -> str:
        """The ``readScreen`` tool: the default read, or the named section, or a refusal."""
        if section is None or section == "":
            return self.limit(self.render(root, skip=True).lines)
        target = self.resolve(root, section)
        if target is None:
            return self.refusal(root, section)
        if target.tag in HEADINGS:
            return self.limit(self.heading_section(root, target))
        return self.limit(self.render(root, target, skip=False).lines)

    def read_text(self, screen: str) -> str:
        """``readScreen`` on a page that declares no HTML: its plain-text screen, held to the limit."""
        return self.limit(text_lines(screen))
