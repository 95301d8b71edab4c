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
* An entry may also say *how* its case fails, so the reason stays true: ``fails`` lists rule ids the case
  must still fail on, ``error`` a piece of the error message it must still give. A covered case that no
  longer fails that way is *changed*: the reason no longer describes it, which fails the run too.
* ``or_error`` (only beside ``fails``) names the error the same deviation shows when the implementation
  loses a race differently, for example a runaway program that a loaded machine lets run past the host's
  give-up bound instead of into a memory error. Either outcome keeps the entry true; anything else is
  *changed*. It is for a deviation whose outcome depends on timing, not a way to widen an entry.

The file format is published as ``spec/schema/baseline.schema.json``, generated from ``Entry`` (with
the two cross-field rules written into it as ``allOf``), and documented in ``docs/baselines.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

from conformance.runner import CaseResult
from conformance.yamlio import YamlFileError, read_yaml_file


class BaselineError(Exception):
    """The baseline file cannot be read; names the file, the entry and the field."""


#: The two rules of ``Entry._one_way_of_failing``, as JSON Schema, for editors and other languages.
_CROSS_FIELD_RULES: dict[str, Any] = {
    "allOf": [
        {
            "description": "fails (the case fails on rules) or error (the case errors), not both",
            "if": {"required": ["error"], "properties": {"error": {"type": "string"}}},
            "then": {"properties": {"fails": {"maxItems": 0}}},
        },
        {
            "description": "or_error is the timing-dependent alternative to fails: give fails too",
            "if": {"required": ["or_error"], "properties": {"or_error": {"type": "string"}}},
            "then": {"required": ["fails"], "properties": {"fails": {"minItems": 1}}},
        },
    ]
}


class Entry(BaseModel):
    """One known failure: a rule id or a scenario id, why it fails, and optionally how."""

    model_config = ConfigDict(
        extra="forbid", frozen=True, use_attribute_docstrings=True, json_schema_extra=_CROSS_FIELD_RULES
    )

    id: str = Field(min_length=1)
    """A rule id (spec/) or a scenario id (its path under fixtures/scenarios/ without .yaml)."""
    reason: str = Field(min_length=1)
    """Why it fails: what the implementation did and which documented statement that breaks."""
    fails: tuple[str, ...] = ()
    """Rule ids the listed case is observed to fail on; each must stay among its failing rules."""
    error: str | None = Field(default=None, min_length=1)
    """For a case observed to error instead: a piece of the error message it gives."""
    or_error: str | None = Field(default=None, min_length=1)
    """Beside ``fails``: the error the same deviation gives when timing goes the other way."""

    @model_validator(mode="after")
    def _one_way_of_failing(self) -> Entry:
        if self.fails and self.error is not None:
            raise ValueError("give fails (the case fails on rules) or error (the case errors), not both")
        if self.or_error is not None and not self.fails:
            raise ValueError("or_error is the timing-dependent alternative to fails: give fails too")
        return self


#: The whole file: a list of entries (an empty file is an empty baseline).
BASELINE_ADAPTER: TypeAdapter[list[Entry]] = TypeAdapter(list[Entry])


@dataclass(frozen=True)
class Problem:
    id: str
    kind: str
    """stale | unknown | changed"""
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
    changes: list[Problem] = []
    for case in cases:
        if case.verdict not in ("fail", "error"):
            continue
        entry = _covers(case, listed)
        if entry is None:
            continue
        used.update(e for e in (case.id, *case.failing_rules, *case.rules) if e in listed)
        changed = _changed(listed.get(case.id), case)
        if changed:
            changes.append(changed)
        case.expected_failure = entry.reason
        case.message = f"expected failure ({entry.reason}): {case.message}"
        case.verdict = "xfail"
    problems = list(changes)
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


def _changed(entry: Entry | None, case: CaseResult) -> Problem | None:
    """The case no longer fails the way its scenario entry says (``fails`` / ``error``)."""
    if entry is None or (not entry.fails and entry.error is None):
        return None
    if entry.error is not None:
        if case.verdict == "error" and entry.error in case.message:
            return None
        found = f"it now {case.verdict}s: {case.message[:200]}"
        return Problem(
            entry.id,
            "changed",
            f"baseline entry {entry.id!r} expects an error with {entry.error!r}, but {found}",
        )
    missing = [rule for rule in entry.fails if rule not in case.failing_rules]
    if case.verdict == "fail" and not missing:
        return None
    if entry.or_error is not None and case.verdict == "error" and entry.or_error in case.message:
        return None
    now = ", ".join(case.failing_rules) or f"no rule ({case.verdict})"
    return Problem(
        entry.id,
        "changed",
        f"baseline entry {entry.id!r} says the case fails on {', '.join(entry.fails)}, but it now fails "
        f"on {now}: update the reason and its fails list",
    )
