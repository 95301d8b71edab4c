"""Which rules a change touches, and how: looked up by the passages (fingerprints) each rule rests on.

A rule's *passage status* says what happened to the units it cites: ``unchanged``; ``new`` (every cited
unit exists only in the new version: the rule rests on text the release added); ``removed`` (every cited
unit is gone); ``changed`` (any other mix, including a cited unit edited); ``unresolved`` (a cited
fingerprint is on neither side: the anchor is stale). A rule without passages falls back to its section:
``section-changed`` when anything in the section changed. Independently, its *section status* says whether
the cited section kept its heading, was renamed, removed or cannot be found.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from conformance.drift.align import Alignment, SectionAlignment, UnitChange
from conformance.drift.normative import is_normative

PassageStatus = Literal["unchanged", "new", "changed", "removed", "unresolved", "section-changed"]
SectionStatus = Literal["same", "renamed", "added", "removed", "missing"]


@dataclass(frozen=True)
class RuleRef:
    """What drift needs of a catalogue rule (plain values, so the lookup needs no catalogue loaded)."""

    id: str
    file: str
    statement: str
    section: str
    passages: tuple[str, ...]
    since: str


@dataclass(frozen=True)
class RuleImpact:
    rule: RuleRef
    passage: PassageStatus
    section: SectionStatus
    pair: SectionAlignment | None
    changes: tuple[UnitChange, ...]
    """The unit changes touching this rule's passages (all of its section's for a rule without passages)."""

    @property
    def affected(self) -> bool:
        return self.passage != "unchanged" or self.section not in ("same", "added")


def impacts(rules: list[RuleRef], alignment: Alignment) -> list[RuleImpact]:
    """Every rule that the change touches, in catalogue order."""
    found = [_impact(rule, alignment) for rule in rules]
    return [impact for impact in found if impact.affected]


def _impact(rule: RuleRef, alignment: Alignment) -> RuleImpact:
    pair = alignment.for_section(rule.section)
    if pair is None:
        return RuleImpact(rule, "unresolved", "missing", None, ())
    section: SectionStatus = pair.kind
    if not rule.passages:
        return RuleImpact(
            rule, "section-changed" if pair.changes else "unchanged", section, pair, pair.changes
        )
    touched = [c for c in pair.changes if _cites(rule, c)]
    sides = [s.fingerprints() for s in (pair.old, pair.new) if s is not None]
    kinds = {c.kind for c in touched}
    untouched = [p for p in rule.passages if not any(p in _fps(c) for c in touched)]
    if any(not all(p in side for side in sides) for p in untouched):
        return RuleImpact(rule, "unresolved", section, pair, tuple(touched))
    status: PassageStatus = (
        "unchanged" if not kinds else
        "new" if kinds == {"added"} and not untouched else
        "removed" if kinds == {"removed"} and not untouched else
        "changed"
    )  # fmt: skip
    return RuleImpact(rule, status, section, pair, tuple(touched))


def _fps(change: UnitChange) -> set[str]:
    return {u.fingerprint for u in (change.old, change.new) if u is not None}


def _cites(rule: RuleRef, change: UnitChange) -> bool:
    return bool(_fps(change) & set(rule.passages))


@dataclass(frozen=True)
class Candidate:
    """A new or edited normative unit no rule cites (on either side of the edit): a rule may be missing."""

    section: str
    change: UnitChange


def uncited(alignment: Alignment, rules: list[RuleRef]) -> list[Candidate]:
    cited = {p for rule in rules for p in rule.passages}
    found: list[Candidate] = []
    for pair in alignment.sections:
        if pair.new is None:
            continue
        for change in pair.changes:
            unit = change.new
            if unit is not None and not _fps(change) & cited and is_normative(unit, pair.new.blocks):
                found.append(Candidate(pair.new.title, change))
    return found
