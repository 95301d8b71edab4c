"""``compare OLD NEW``: which rules and scenarios regressed, were fixed or changed verdict between two runs.

Theory of operation. Two ``report.json`` files are read (the models of ``conformance.report.model``), and
only the systems both runs covered are compared: a bridge to llmz alone says nothing about falai. For each
rule and each scenario present in either report, the verdicts are paired. Verdicts are ranked from good to
bad, ``pass`` < ``skip``/``untested``/``excluded`` < ``xfail`` < ``error`` < ``fail``; a pair whose new
verdict is ``pass`` and old was not is *fixed*, one whose new verdict ranks worse is *regressed*, any other
difference is *changed* (``fail`` to ``error``, say, or an id only one side has). A regression to ``xfail``
is *explained*: the new run's expected-failures baseline covers it and gives its reason. The exit status is
for CI: 1 when anything regressed unexplained, 0 otherwise, 2 when a report cannot be read. When the two
runs used different catalogues or scenarios (their digests differ), that is said first: a verdict may have
changed because the suite did.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from conformance.report.model import Report

RANK = {"pass": 0, "skip": 1, "untested": 1, "excluded": 1, "xfail": 2, "error": 3, "fail": 4}
ABSENT = "absent"


class ReportError(Exception):
    """A report file cannot be read; the message names the file and the field."""


@dataclass(frozen=True)
class Change:
    kind: str
    """rule | scenario"""
    id: str
    old: str
    new: str
    reason: str = ""
    """Why the new verdict is what it is: the baseline's reason, a skip reason, a failure's first line."""

    @property
    def explained(self) -> bool:
        return self.new == "xfail"


@dataclass
class Comparison:
    old: Report
    new: Report
    systems: list[str]
    regressed: list[Change] = field(default_factory=list)
    fixed: list[Change] = field(default_factory=list)
    changed: list[Change] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def unexplained(self) -> list[Change]:
        return [c for c in self.regressed if not c.explained]


def load(path: Path) -> Report:
    """A report.json, or the report directory that holds one."""
    path = path / "report.json" if path.is_dir() else path
    try:
        return Report.model_validate_json(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ReportError(f"{path}: cannot read: {exc}") from exc
    except ValidationError as exc:
        fields = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or '(file)'}: {e['msg']}" for e in exc.errors()[:3]
        )
        raise ReportError(f"{path}: not a report.json of this suite version ({fields})") from exc


def classify(old: str, new: str) -> str | None:
    """fixed | regressed | changed, or None when the verdict did not change."""
    if old == new:
        return None
    if new == "pass" and old != ABSENT:
        return "fixed"
    if old != ABSENT and new != ABSENT and RANK[new] > RANK[old]:
        return "regressed"
    return "changed"


def _systems(report: Report) -> set[str]:
    return {s.system for s in report.scenarios}


def _reasons(report: Report) -> dict[str, str]:
    """Scenario id -> why its verdict is not pass (baseline reason, skip reason or first failure line)."""
    return {
        s.id: (s.expected_failure or s.message.split("\n", 1)[0]).strip()
        for s in report.scenarios
        if s.verdict != "pass"
    }


def _rule_reason(rule_scenarios: Iterable[str], new: Report) -> str:
    """For a rule: the scenarios naming it that did not pass in NEW (their own lines give the why)."""
    verdicts = {s.id: s.verdict for s in new.scenarios}
    failing = sorted(sid for sid in rule_scenarios if verdicts.get(sid, "pass") != "pass")
    shown = ", ".join(failing[:3]) + (f" (+{len(failing) - 3} more)" if len(failing) > 3 else "")
    return f"from {shown}" if failing else ""


def compare(old: Report, new: Report) -> Comparison:
    systems = sorted(_systems(old) & _systems(new))
    result = Comparison(old, new, systems)
    for label, report in (("OLD", old), ("NEW", new)):
        other = new if report is old else old
        for system in sorted(_systems(report) - _systems(other)):
            result.notes.append(f"{system}: only in {label}, not compared")
    if old.run.catalogue_digest != new.run.catalogue_digest:
        result.notes.append("the runs used different catalogues: a verdict may have changed with the rules")
    if old.run.scenarios_digest != new.run.scenarios_digest:
        result.notes.append("the runs used different scenarios: a verdict may have changed with them")
    wanted = set(systems)
    reasons = _reasons(new)
    new_rule_scenarios = {r.id: r.scenarios for r in new.rules}
    pairs: list[tuple[str, str, str, str, str]] = []
    for kind, olds, news in (
        ("rule", {r.id: r.verdict for r in old.rules}, {r.id: r.verdict for r in new.rules}),
        ("scenario", {s.id: s.verdict for s in old.scenarios}, {s.id: s.verdict for s in new.scenarios}),
    ):
        for item_id in sorted(olds.keys() | news.keys()):
            system = item_id.split("/" if kind == "scenario" else ".", 1)[0]
            if system not in wanted:
                continue
            before, after = olds.get(item_id, ABSENT), news.get(item_id, ABSENT)
            reason = (
                _rule_reason(new_rule_scenarios.get(item_id, []), new)
                if kind == "rule"
                else reasons.get(item_id, "")
            )
            pairs.append((kind, item_id, before, after, reason))
    for kind, item_id, before, after, reason in pairs:
        verdict_change = classify(before, after)
        if verdict_change is not None:
            getattr(result, verdict_change).append(Change(kind, item_id, before, after, reason))
    return result


def _title(report: Report) -> str:
    impl = report.implementation
    return f"{impl.name} {impl.version}"


def render(comparison: Comparison) -> list[str]:
    lines = [
        f"OLD: {_title(comparison.old)} ({comparison.old.run.started_at})",
        f"NEW: {_title(comparison.new)} ({comparison.new.run.started_at})",
        f"compared systems: {', '.join(comparison.systems) or 'none in common'}",
        *(f"note: {note}" for note in comparison.notes),
    ]
    for heading, changes in (
        ("regressed", comparison.regressed),
        ("fixed", comparison.fixed),
        ("changed verdict", comparison.changed),
    ):
        for kind in ("rule", "scenario"):
            chosen = [c for c in changes if c.kind == kind]
            if not chosen:
                continue
            lines.append(f"{kind}s {heading} ({len(chosen)}):")
            for change in chosen:
                tag = " [explained by the baseline]" if heading == "regressed" and change.explained else ""
                lines.append(f"  {change.id}: {change.old} -> {change.new}{tag}")
                if change.reason and change.new != "pass":
                    lines.append(f"      {change.reason}")
    lines.append("; ".join(tally(comparison, kind) for kind in ("rule", "scenario")))
    return lines


def tally(comparison: Comparison, kind: str) -> str:
    """``rules: 13 regressed (9 unexplained, 4 explained by the baseline), 2 fixed, 0 changed``: one
    kind's counts, never mixed with the other's (a rule and the scenarios naming it regress together)."""

    def count(changes: list[Change]) -> int:
        return sum(1 for change in changes if change.kind == kind)

    regressed = count(comparison.regressed)
    unexplained = count(comparison.unexplained)
    return (
        f"{kind}s: {regressed} regressed ({unexplained} unexplained, {regressed - unexplained} explained by "
        f"the baseline), {count(comparison.fixed)} fixed, {count(comparison.changed)} changed"
    )


def command(args: argparse.Namespace) -> int:
    try:
        comparison = compare(load(args.old), load(args.new))
    except ReportError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print("\n".join(render(comparison)))
    return 1 if comparison.unexplained else 0
