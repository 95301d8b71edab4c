"""Expected-failures baselines: what an implementation is known to get wrong, and why.

A baseline is a YAML list of ``{id, reason}``; ``id`` is a rule id or a scenario id. Applying it:

* A failing case is *covered* when its scenario id is listed, or every rule whose matchers failed is.
  An erroring case is covered when its scenario id, or any of its rules, is listed (an error does not
  say which rule it concerns). A covered case becomes ``xfail`` and no longer fails the run.
* An entry is *stale* when the cases it speaks about ran and it covered none of them: the implementation
  got fixed, so the entry must go (otherwise a regression would later hide behind it). Stale entries fail
  the run. Cases that were skipped or not selected are not evidence either way.
* An entry naming an id that is neither a rule nor a scenario is an error (a typo would hide nothing and
  silently cover nothing).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from conformance.runner import CaseResult
from conformance.yamlio import YamlFileError, read_yaml_file


class BaselineError(Exception):
    """The baseline file cannot be read; names the file, the entry and the field."""


class Entry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1)
    reason: str = Field(min_length=1)


@dataclass(frozen=True)
class Problem:
    id: str
    kind: str
    """stale | unknown"""
    message: str


def load(path: Path) -> list[Entry]:
    try:
        document = read_yaml_file(path)
    except YamlFileError as exc:
        raise BaselineError(str(exc)) from exc
    if document is None:
        return []
    if not isinstance(document, list):
        raise BaselineError(
            f"{path}: expected a list of {{id, reason}} entries, got {type(document).__name__}"
        )
    entries = []
    for index, raw in enumerate(document):
        try:
            entries.append(Entry.model_validate(raw))
        except ValidationError as exc:
            fields = "; ".join(
                f"field {'.'.join(map(str, e['loc'])) or '(entry)'}: {e['msg']}" for e in exc.errors()
            )
            raise BaselineError(f"{path}: entry {index}: {fields}") from exc
    return entries


def _covers(case: CaseResult, listed: dict[str, Entry]) -> Entry | None:
    if case.id in listed:
        return listed[case.id]
    if case.verdict == "fail" and case.failing_rules and all(r in listed for r in case.failing_rules):
        return listed[case.failing_rules[0]]
    if case.verdict == "error":
        return next((listed[r] for r in case.rules if r in listed), None)
    return None


def _relevant(entry: Entry, case: CaseResult) -> bool:
    return case.id == entry.id or entry.id in case.rules


def apply(cases: list[CaseResult], entries: list[Entry], known_ids: set[str]) -> list[Problem]:
    """Mark covered cases ``xfail`` (in place) and return the stale and unknown entries."""
    listed = {entry.id: entry for entry in entries}
    used: set[str] = set()
    for case in cases:
        if case.verdict not in ("fail", "error"):
            continue
        entry = _covers(case, listed)
        if entry is None:
            continue
        used.update(e for e in (case.id, *case.failing_rules, *case.rules) if e in listed)
        case.expected_failure = entry.reason
        case.message = f"expected failure ({entry.reason}): {case.message}"
        case.verdict = "xfail"
    problems = []
    for entry in entries:
        if entry.id not in known_ids:
            problems.append(
                Problem(entry.id, "unknown", f"baseline entry {entry.id!r} names no rule or scenario")
            )
            continue
        ran = [c for c in cases if _relevant(entry, c) and c.verdict != "skip"]
        if ran and entry.id not in used and not any(_still_failing(entry.id, c) for c in ran):
            problems.append(
                Problem(
                    entry.id,
                    "stale",
                    f"baseline entry {entry.id!r} is stale: its cases now pass "
                    f"({', '.join(c.id for c in ran)}); remove it from the baseline",
                )
            )
    return problems


def _still_failing(entry_id: str, case: CaseResult) -> bool:
    """A case that still fails on this entry's rule (but was not covered by it) keeps the entry alive."""
    return case.verdict in ("fail", "error") and (case.id == entry_id or entry_id in case.failing_rules)
