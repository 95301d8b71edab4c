"""Aligning two versions of a document: sections first, then the units inside each pair of sections.

Sections pair by heading path, then by heading alone (a parent heading renamed moves every path under it),
then, among those left over, by content: an unpaired old and new section sharing at least half of their
units are one section renamed. Inside a pair, difflib aligns the two sequences of fingerprints; a replaced
run is paired unit by unit where two units share most of their words (a sentence edited), and whatever
stays unpaired was added or removed. A unit that only moved within its section is no change.
"""

from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Literal

from conformance.drift.document import Document, Section, Unit
from conformance.drift.fingerprint import similarity

ChangeKind = Literal["changed", "added", "removed"]
PairKind = Literal["same", "renamed", "added", "removed"]

RENAME_OVERLAP = 0.5
"""Share of units two differently headed sections must have in common to be one section renamed."""
BOILERPLATE = 50
"""A unit found in more new sections than this identifies none of them, so it is not used to find the
candidates for a renamed section (the candidates are still scored on all their units); without this
bound, one sentence repeated under 10,000 renamed headings costs 10,000 squared comparisons."""
EDIT_SIMILARITY = 0.5
"""Word similarity above which a replaced unit is the old one edited rather than a new one."""
MAX_PAIRINGS = 250_000
"""The most unit comparisons one replaced run may cost when its units are paired as edits; a larger run
(a section rewritten wholesale: thousands of sentences against thousands) is reported as removed and
added units instead of taking hours (issue 23). A real release edits a few sentences at a time."""


@dataclass(frozen=True)
class UnitChange:
    kind: ChangeKind
    old: Unit | None
    new: Unit | None


@dataclass(frozen=True)
class SectionAlignment:
    old: Section | None
    new: Section | None
    changes: tuple[UnitChange, ...]

    @property
    def kind(self) -> PairKind:
        if self.old is None:
            return "added"
        if self.new is None:
            return "removed"
        return "same" if self.old.title == self.new.title else "renamed"

    @property
    def title(self) -> str:
        section = self.new or self.old
        assert section is not None
        return section.title

    def changed_fingerprints(self) -> dict[str, ChangeKind]:
        """Each fingerprint this section's changes touch, on either side, and how."""
        found: dict[str, ChangeKind] = {}
        for change in self.changes:
            for unit in (change.old, change.new):
                if unit is not None:
                    found.setdefault(unit.fingerprint, change.kind)
        return found


@dataclass(frozen=True)
class Alignment:
    sections: tuple[SectionAlignment, ...]

    def for_section(self, title: str) -> SectionAlignment | None:
        """The pair whose old or new heading (or heading path) is ``title`` (``Document.section``'s match)."""
        for exact in (True, False):
            for pair in self.sections:
                for side in (pair.old, pair.new):
                    if side is not None and _matches(side, title, exact):
                        return pair
        return None


def _matches(section: Section, title: str, exact: bool) -> bool:
    if exact:
        return title in (section.title, " > ".join(section.path))
    return section.title.startswith(title + " ")


def align(old: Document, new: Document) -> Alignment:
    pairs = _pair_sections(list(old.sections), list(new.sections))
    return Alignment(tuple(_align_section(a, b) for a, b in pairs))


def _pair_sections(old: list[Section], new: list[Section]) -> list[tuple[Section | None, Section | None]]:
    """Pairs by path, then by heading, then by shared units. Each pass looks candidates up in an index
    (issue 23): scanning every new section for every old one made a document of 10,000 headings take
    minutes. Among equal keys the first unpaired new section wins, as a scan in document order would."""
    pairs: list[tuple[Section | None, Section | None]] = []
    for key in (_path, _title):
        waiting: dict[tuple[str, ...], list[Section]] = {}
        for b in new:
            waiting.setdefault(key(b), []).append(b)
        matched: list[tuple[Section | None, Section | None]] = []
        for a in old:
            candidates = waiting.get(key(a))
            if candidates:
                matched.append((a, candidates.pop(0)))
        taken = {id(side) for pair in matched for side in pair}
        old = [a for a in old if id(a) not in taken]
        new = [b for b in new if id(b) not in taken]
        pairs += matched
    pairs += _pair_renamed(old, new)
    pairs += [(a, None) for a in old] + [(None, b) for b in new]
    return sorted(pairs, key=_position)


def _pair_renamed(old: list[Section], new: list[Section]) -> list[tuple[Section | None, Section | None]]:
    """Unpaired sections sharing at least ``RENAME_OVERLAP`` of their units; only sections sharing a unit
    that is not ``BOILERPLATE`` are compared (an index by fingerprint), so unrelated sections cost
    nothing. Pairs are removed from ``old`` and ``new``."""
    pairs: list[tuple[Section | None, Section | None]] = []
    prints = {id(b): b.fingerprints() for b in new}
    order = {id(b): position for position, b in enumerate(new)}
    holding: dict[str, list[Section]] = {}
    for b in new:
        for fingerprint in prints[id(b)]:
            holding.setdefault(fingerprint, []).append(b)
    holding = {fp: held for fp, held in holding.items() if len(held) <= BOILERPLATE}
    paired: set[int] = set()
    for a in old:
        ours = a.fingerprints()
        seen: dict[int, Section] = {}
        for fingerprint in ours:
            for b in holding.get(fingerprint, ()):
                if id(b) not in paired:
                    seen.setdefault(id(b), b)
        candidates = sorted(seen.values(), key=lambda b: order[id(b)])  # document order, as a scan
        best = max(candidates, key=lambda b: _shared(ours, prints[id(b)]), default=None)
        if best is not None and _shared(ours, prints[id(best)]) >= RENAME_OVERLAP:
            pairs.append((a, best))
            paired.add(id(best))
    taken = {id(a) for a, _ in pairs}
    old[:] = [a for a in old if id(a) not in taken]
    new[:] = [b for b in new if id(b) not in paired]
    return pairs


def _shared(ours: set[str], theirs: set[str]) -> float:
    return len(ours & theirs) / max(len(ours | theirs), 1)


def _path(section: Section) -> tuple[str, ...]:
    return section.path


def _title(section: Section) -> tuple[str, ...]:
    return (section.title,)


def _position(pair: tuple[Section | None, Section | None]) -> tuple[int, int]:
    """Document order of the new version; removed sections after the new one they preceded."""
    old, new = pair
    return (new.line, 1) if new is not None else (old.line if old is not None else 0, 0)


def _align_section(old: Section | None, new: Section | None) -> SectionAlignment:
    if old is None or new is None:
        kind: ChangeKind = "added" if old is None else "removed"
        units = (new or old).units  # type: ignore[union-attr]
        return SectionAlignment(old, new, tuple(
            UnitChange(kind, None if kind == "added" else u, u if kind == "added" else None) for u in units
        ))  # fmt: skip
    matcher = SequenceMatcher(
        None, [u.fingerprint for u in old.units], [u.fingerprint for u in new.units], autojunk=False
    )
    changes: list[UnitChange] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            changes += _pair_units(list(old.units[i1:i2]), list(new.units[j1:j2]))
    moved_old, moved_new = old.fingerprints(), new.fingerprints()
    kept = [
        c
        for c in changes
        if not (c.kind == "removed" and c.old and c.old.fingerprint in moved_new)
        and not (c.kind == "added" and c.new and c.new.fingerprint in moved_old)
    ]
    return SectionAlignment(old, new, tuple(kept))


def _pair_units(old: list[Unit], new: list[Unit]) -> list[UnitChange]:
    """Pair each old unit with the most similar unused new unit after the last one paired (order kept)."""
    if len(old) * len(new) > MAX_PAIRINGS:
        return [UnitChange("removed", u, None) for u in old] + [UnitChange("added", None, n) for n in new]
    changes: list[UnitChange] = []
    used: set[int] = set()
    floor = 0
    for unit in old:
        scored = [
            (similarity(unit.text, n.text), j) for j, n in enumerate(new) if j >= floor and j not in used
        ]
        score, j = max(scored, default=(0.0, -1))
        if score >= EDIT_SIMILARITY:
            changes.append(UnitChange("changed", unit, new[j]))
            used.add(j)
            floor = j + 1
        else:
            changes.append(UnitChange("removed", unit, None))
    changes += [UnitChange("added", None, n) for j, n in enumerate(new) if j not in used]
    return changes
