"""Per-rule verdicts, derived from the per-scenario ones.

A rule's verdict is the worst verdict of any case naming it: ``fail`` > ``error`` > ``xfail`` > ``skip`` >
``pass``; a rule no case names is ``untested``, or ``excluded`` when the catalogue says no test could ever
check it (a reader needs the two apart: one is work left, the other is not). So a rule passes only when
every scenario naming it passed. A failing case counts against all of its rules, not only those whose
matchers failed: once a scenario has gone off its expected course, the checks that still held there prove
little (an ``absent`` matcher holds trivially on a run that stopped early). Which matchers failed is still
reported per case (``failing_rules``) and is what baselines match on.
"""

from __future__ import annotations

from collections.abc import Iterable

from conformance.runner import CaseResult

SEVERITY = ("pass", "skip", "xfail", "error", "fail")


def case_verdict_for_rule(case: CaseResult, rule_id: str) -> str:
    """The verdict ``case`` gives ``rule_id``: the case's own, whichever of its matchers failed."""
    return case.verdict


def rule_verdicts(
    cases: list[CaseResult], rule_ids: Iterable[str], excluded: Iterable[str] = ()
) -> dict[str, tuple[str, list[str]]]:
    """Rule id -> (verdict, ids of the cases naming it), for the given ids plus every id a case names;
    ``excluded`` are the catalogue's never-checkable rules."""
    never = set(excluded)
    naming: dict[str, list[CaseResult]] = {rule_id: [] for rule_id in rule_ids}
    for case in cases:
        for rule_id in case.rules:
            naming.setdefault(rule_id, []).append(case)
    result: dict[str, tuple[str, list[str]]] = {}
    for rule_id in sorted(naming):
        found = naming[rule_id]
        if not found:
            result[rule_id] = ("excluded" if rule_id in never else "untested", [])
            continue
        worst = max((case_verdict_for_rule(c, rule_id) for c in found), key=SEVERITY.index)
        result[rule_id] = (worst, [c.id for c in found])
    return result
