"""Per-rule verdicts, derived from the per-scenario ones.

A rule's verdict is the worst thing any case naming it says about that rule: ``fail`` > ``error`` >
``xfail`` > ``skip`` > ``pass``; a rule no case names is ``untested``. A failing case implicates only the
rules whose matchers failed (its other rules were checked and held); an error or skip says nothing about
any of its rules, so it applies to all of them.
"""

from __future__ import annotations

from collections.abc import Iterable

from conformance.runner import CaseResult

SEVERITY = ("pass", "skip", "xfail", "error", "fail")


def case_verdict_for_rule(case: CaseResult, rule_id: str) -> str:
    if case.verdict == "fail" or (case.verdict == "xfail" and case.failing_rules):
        if rule_id in case.failing_rules:
            return case.verdict
        return "pass"
    return case.verdict


def rule_verdicts(cases: list[CaseResult], rule_ids: Iterable[str]) -> dict[str, tuple[str, list[str]]]:
    """Rule id -> (verdict, ids of the cases naming it), for the given ids plus every id a case names."""
    naming: dict[str, list[CaseResult]] = {rule_id: [] for rule_id in rule_ids}
    for case in cases:
        for rule_id in case.rules:
            naming.setdefault(rule_id, []).append(case)
    result: dict[str, tuple[str, list[str]]] = {}
    for rule_id in sorted(naming):
        found = naming[rule_id]
        if not found:
            result[rule_id] = ("untested", [])
            continue
        worst = max((case_verdict_for_rule(c, rule_id) for c in found), key=SEVERITY.index)
        result[rule_id] = (worst, [c.id for c in found])
    return result
