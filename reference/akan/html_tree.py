"""A declared HTML screen as a small element tree, for ``readScreen`` and ``highlight`` to walk.

The browser hands the built-ins a live DOM; headlessly a scenario declares the screen as HTML and the
standard library's tolerant parser turns it into the same shape: elements with attributes and children,
text kept as strings. Visibility is decided from the markup alone (there is no layout engine): the
``hidden`` attribute, ``aria-hidden="true"``, an inline ``display: none`` or ``visibility: hidden``, and
``<input type="hidden">`` all hide an element and everything inside it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser

#: Elements that never have children, so the parser must not wait for their end tag.
VOID = frozenset({
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr",
})
#: Elements whose content is never page text.
INERT = frozenset({"script", "style", "template", "head", "noscript"})
_HIDDEN_STYLE = re.compile(r"(display\s*:\s*none|visibility\s*:\s*hidden)", re.IGNORECASE)


@dataclass(eq=False)
class Element:
    tag: str
    attrs: dict[str, str] = field(default_factory=dict)
    children: list[Element | str] = field(default_factory=list)
    parent: Element | None = None

    def elements(self) -> Iterator[Element]:
        """This element and every element below it, in document order."""
        yield self
        for child in self.children:
            if isinstance(child, Element):
                yield from child.elements()

    def text(self) -> str:
        """The visible text inside, whitespace collapsed (hidden and inert parts left out)."""
        parts: list[str] = []
        for child in self.children:
            if isinstance(child, str):
                parts.append(child)
            elif not child.hides_itself() and child.tag not in INERT:
                parts.append(child.text())
        return collapse(" ".join(parts))

    def hides_itself(self) -> bool:
        attrs = self.attrs
        return (
            "hidden" in attrs
            or attrs.get("aria-hidden", "").lower() == "true"
            or bool(_HIDDEN_STYLE.search(attrs.get("style", "")))
            or (self.tag == "input" and attrs.get("type", "").lower() == "hidden")
        )

    def visible(self) -> bool:
        """Not hidden itself nor inside anything hidden (akan.readscreen.hidden-never-resolves)."""
        node: Element | None = self
        while node is not None:
            if node.hides_itself() or node.tag in INERT:
                return False
            node = node.parent
        return True

    def inside(self, attribute: str) -> bool:
        node: Element | None = self
        while node is not None:
            if attribute in node.attrs:
                return True
            node = node.parent
        return False

    def first_element_child(self) -> Element | None:
        for child in self.children:
            if isinstance(child, Element):
                return child
            if child.strip():
                return None
        return None


def collapse(text: str) -> str:
    return " ".join(text.split())


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#document")
        self._open = self.root

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {name: value or "" for name, value in attrs}, parent=self._open)
        self._open.children.append(element)
        if tag not in VOID:
            self._open = element

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._open.children.append(Element(tag, {n: v or "" for n, v in attrs}, parent=self._open))

    def handle_endtag(self, tag: str) -> None:
        node: Element | None = self._open
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:
            self._open = node.parent  # an unmatched end tag is ignored, as browsers do

    def handle_data(self, data: str) -> None:
        self._open.children.append(data)


def parse_html(html: str) -> Element:
    builder = _Builder()
    builder.feed(html)
    builder.close()
    return builder.root
