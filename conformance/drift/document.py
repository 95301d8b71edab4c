"""A markdown document as sections of paragraphs of units (sentences, table rows, code blocks).

Why units and not lines or paragraphs: a rule rests on a sentence or two, and a new release often adds a
sentence to a paragraph whose other sentences stay as they were. Comparing whole paragraphs would report
every rule of that paragraph; comparing lines would report re-wrapping. A table row and a code block are
one unit each (a row is one fact; code is read as a whole).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from conformance.drift.fingerprint import fingerprint

BlockKind = Literal["prose", "list", "table", "code"]
PREAMBLE = "(before the first heading)"

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_TABLE_RULE = re.compile(r"^\s*\|?[\s:|-]+\|?\s*$")


@dataclass(frozen=True)
class Unit:
    fingerprint: str
    text: str
    block: int
    """Index of the paragraph (block) within its section that holds this unit."""
    line: int


@dataclass(frozen=True)
class Block:
    kind: BlockKind
    text: str
    line: int


@dataclass(frozen=True)
class Section:
    path: tuple[str, ...]
    """Heading path, outermost first; empty for the text before the first heading."""
    line: int
    blocks: tuple[Block, ...]
    units: tuple[Unit, ...]

    @property
    def title(self) -> str:
        return self.path[-1] if self.path else PREAMBLE

    def fingerprints(self) -> set[str]:
        return {unit.fingerprint for unit in self.units}


@dataclass(frozen=True)
class Document:
    sections: tuple[Section, ...]

    def section(self, title: str) -> Section | None:
        """The first section whose heading is ``title`` (or whose path, joined by " > ", is); failing that,
        one whose heading line starts with ``title`` and a space: the re-flowed Akan guideline runs some
        headings and their first paragraph into one line (``## Built-In Tools - The framework ...``)."""
        exact = next((s for s in self.sections if title in (s.title, " > ".join(s.path))), None)
        return exact or next((s for s in self.sections if s.title.startswith(title + " ")), None)


def sentences(text: str) -> list[str]:
    """Split prose at a full stop, question or exclamation mark followed by a space and a word that does
    not start in lower case, never inside an inline code span (code holds dots: ``session.status``)."""
    parts: list[str] = []
    start, in_code = 0, False
    for i, char in enumerate(text):
        if char == "`":
            in_code = not in_code
        elif char in ".!?" and not in_code and _sentence_ends(text, i):
            parts.append(text[start : i + 1].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return [p for p in parts if p]


_AFTER_STOP = re.compile(r"[\"')*_]*\s+(\S)")
"""After a stop: closing quotes, brackets or emphasis, at least one space, then the next word's first
character."""


def _sentence_ends(text: str, i: int) -> bool:
    """Matched in place: copying the rest of the text at every stop made a long paragraph quadratic
    (a 2 MB paragraph took minutes; issue 23)."""
    after = _AFTER_STOP.match(text, i + 1)
    return after is not None and not after.group(1).islower()


def parse(text: str) -> Document:
    """Every section of a markdown document, in order."""
    sections: list[Section] = []
    path: list[tuple[int, str]] = []
    body: list[tuple[int, str]] = []
    start = 1
    for number, line in enumerate(text.splitlines(), start=1):
        heading = _HEADING.match(line)
        if heading and not _inside_code(body):
            sections.append(_section(tuple(t for _, t in path), start, body))
            level = len(heading.group(1))
            path = [*(p for p in path if p[0] < level), (level, heading.group(2))]
            body, start = [], number
        else:
            body.append((number, line))
    sections.append(_section(tuple(t for _, t in path), start, body))
    return Document(tuple(s for s in sections if s.path or s.units))


def _inside_code(body: list[tuple[int, str]]) -> bool:
    return sum(1 for _, line in body if line.lstrip().startswith("```")) % 2 == 1


def _section(path: tuple[str, ...], line: int, body: list[tuple[int, str]]) -> Section:
    blocks = _blocks(body)
    units = tuple(unit for index, block in enumerate(blocks) for unit in _units(block, index))
    return Section(path, line, tuple(blocks), units)


def _blocks(body: list[tuple[int, str]]) -> list[Block]:
    """Paragraphs: runs of non-blank lines; a fenced code block is one block, blank lines and all."""
    blocks: list[Block] = []
    current: list[tuple[int, str]] = []
    fenced = False
    for number, line in body:
        if line.lstrip().startswith("```"):
            if not fenced and current:
                blocks.append(_block(current))
                current = []
            current.append((number, line))
            fenced = not fenced
            if not fenced:
                blocks.append(_block(current))
                current = []
        elif fenced or line.strip():
            current.append((number, line))
        elif current:
            blocks.append(_block(current))
            current = []
    if current:
        blocks.append(_block(current))
    return blocks


def _block(lines: list[tuple[int, str]]) -> Block:
    first = lines[0][1].lstrip()
    kind: BlockKind = (
        "code" if first.startswith("```") else
        "table" if first.startswith("|") else
        "list" if _LIST_ITEM.match(first) else
        "prose"
    )  # fmt: skip
    return Block(kind, "\n".join(line for _, line in lines), lines[0][0])


def _units(block: Block, index: int) -> list[Unit]:
    lines = block.text.splitlines()
    if block.kind == "code":
        return [Unit(fingerprint(block.text), block.text, index, block.line)]
    if block.kind == "table":
        return [
            Unit(fingerprint(row), row.strip(), index, block.line + n)
            for n, row in enumerate(lines)
            if not _TABLE_RULE.match(row)
        ]
    units: list[Unit] = []
    for offset, item in _items(lines) if block.kind == "list" else [(0, " ".join(lines))]:
        units += [Unit(fingerprint(s), s, index, block.line + offset) for s in sentences(item)]
    return units


def _items(lines: list[str]) -> list[tuple[int, str]]:
    """A list block's items (an item's continuation lines joined to it), each with its line offset."""
    items: list[tuple[int, str]] = []
    for offset, line in enumerate(lines):
        if _LIST_ITEM.match(line) or not items:
            items.append((offset, _LIST_ITEM.sub("", line, count=1).strip()))
        else:
            items[-1] = (items[-1][0], f"{items[-1][1]} {line.strip()}")
    return items
