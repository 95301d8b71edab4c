"""Traceability: which rules the scenarios pin, which no scenario pins yet, and which are excluded.

A rule is ``tested`` when at least one scenario lists it in ``rules``, ``excluded`` when the catalogue
says nothing could ever check it, and ``untested`` otherwise. A scenario naming an id that is not in the
catalogue, or pinning an excluded rule, is an error: either the scenario or the catalogue is wrong.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from conformance.catalogue.load import Catalogue
from conformance.systems import SYSTEMS, SystemName

Status = Literal["tested", "untested", "excluded"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RuleTrace(_Model):
    id: str
    system: SystemName
    area: str
    title: str
    level: str
    observable: str
    status: Status
    scenarios: list[str] = Field(description="Ids of the scenarios that pin this rule.")
    excluded: str | None = None
    untested_reason: str | None = Field(default=None, description="The rule's `untested` reason, if any.")
    open_question: str | None = None


class Totals(_Model):
    system: str = Field(description='A system name, or "all".')
    tested: int = Field(ge=0)
    untested: int = Field(ge=0)
    excluded: int = Field(ge=0)
    total: int = Field(ge=0)


class Traceability(_Model):
    """``build/spec/traceability.json``."""

    totals: Totals
    systems: list[Totals]
    rules: list[RuleTrace]


def pinning(scenario_rules: Iterable[tuple[str, list[str]]]) -> dict[str, list[str]]:
    """Rule id -> sorted ids of the scenarios naming it."""
    pins: dict[str, list[str]] = defaultdict(list)
    for scenario_id, rules in scenario_rules:
        for rule_id in dict.fromkeys(rules):
            pins[rule_id].append(scenario_id)
    return {rule_id: sorted(ids) for rule_id, ids in pins.items()}


def reference_errors(catalogue: Catalogue, pins: dict[str, list[str]]) -> list[str]:
    errors = []
    for rule_id, scenario_ids in sorted(pins.items()):
        entry = catalogue.rules.get(rule_id)
        if entry is None:
            errors.append(
                f"scenario(s) {', '.join(scenario_ids)}: field rules: {rule_id!r} is not a catalogue rule id"
            )
        elif entry.rule.excluded is not None:
            errors.append(
                f"scenario(s) {', '.join(scenario_ids)}: field rules: {rule_id!r} is excluded "
                f"in {entry.path} ({entry.rule.excluded}); pin a checkable rule or drop the exclusion"
            )
    return errors


def untested_reason_errors(catalogue: Catalogue, pins: dict[str, list[str]]) -> list[str]:
    """A rule that says why it is untested while a scenario pins it: the reason is stale."""
    return [
        f"{entry.path}: rule {rule_id}: field untested says no scenario pins it, but "
        f"{', '.join(pins[rule_id])} do; drop the reason"
        for rule_id, entry in sorted(catalogue.rules.items())
        if entry.rule.untested is not None and pins.get(rule_id)
    ]


def unexplained(trace: Traceability) -> list[RuleTrace]:
    """Untested rules that do not say why: every one of them is a gap or a missing reason."""
    return [r for r in trace.rules if r.status == "untested" and r.untested_reason is None]


def _totals(name: str, traces: list[RuleTrace]) -> Totals:
    count = {
        status: sum(1 for t in traces if t.status == status) for status in ("tested", "untested", "excluded")
    }
    return Totals(system=name, total=len(traces), **count)


def build(catalogue: Catalogue, pins: dict[str, list[str]]) -> Traceability:
    traces = []
    for rule_id in catalogue.ids():
        entry = catalogue.rules[rule_id]
        rule = entry.rule
        scenarios = pins.get(rule_id, [])
        status: Status = "excluded" if rule.excluded is not None else ("tested" if scenarios else "untested")
        traces.append(
            RuleTrace(
                id=rule_id,
                system=rule.system,
                area=entry.area,
                title=rule.title,
                level=rule.level,
                observable=rule.observable,
                status=status,
                scenarios=scenarios,
                excluded=rule.excluded,
                untested_reason=rule.untested,
                open_question=rule.open_question,
            )
        )
    systems = [_totals(system, [t for t in traces if t.system == system]) for system in SYSTEMS]
    return Traceability(totals=_totals("all", traces), systems=systems, rules=traces)


def summary_lines(trace: Traceability) -> list[str]:
    """One line per system: ``llmz: T tested, U untested, X excluded of N``."""
    return [
        f"{t.system}: {t.tested} tested, {t.untested} untested, {t.excluded} excluded of {t.total}"
        for t in trace.systems
    ]


def to_markdown(trace: Traceability) -> str:
    t = trace.totals
    lines = [
        "# Traceability",
        "",
        f"**{t.tested} tested, {t.untested} untested, {t.excluded} excluded of {t.total} rules.**",
        "",
        "| system | tested | untested | excluded | total |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    lines += [f"| {s.system} | {s.tested} | {s.untested} | {s.excluded} | {s.total} |" for s in trace.systems]
    for system in SYSTEMS:
        rules = [r for r in trace.rules if r.system == system]
        if not rules:
            continue
        lines += ["", f"## {system}"]
        for area in sorted({r.area for r in rules}):
            lines += ["", f"### {system}/{area}", "", "| rule | status | scenarios |", "| --- | --- | --- |"]
            for r in (r for r in rules if r.area == area):
                detail = ", ".join(f"`{s}`" for s in r.scenarios) or (r.excluded or r.untested_reason or "")
                lines.append(f"| `{r.id}` | {r.status} | {detail.replace('|', '/')} |")
    questions = [r for r in trace.rules if r.open_question]
    if questions:
        lines += ["", f"## Open questions ({len(questions)})", ""]
        lines += [f"- `{r.id}`: {r.open_question}" for r in questions]
    return "\n".join(lines) + "\n"
