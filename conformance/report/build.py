"""Assembling ``report.json`` (the ``Report`` model) from a run's case results."""

from __future__ import annotations

from collections.abc import Iterable

from conformance.baseline import Problem
from conformance.protocol import ImplementationInfo
from conformance.report.model import (
    BaselineProblem,
    ImplementationReport,
    Report,
    RuleReport,
    ScenarioReport,
    Summary,
)
from conformance.runner import CaseResult
from conformance.verdicts import rule_verdicts


def summarise(cases: list[CaseResult]) -> Summary:
    def count(verdict: str) -> int:
        return sum(1 for c in cases if c.verdict == verdict)

    return Summary(
        passed=count("pass"),
        failed=count("fail"),
        errored=count("error"),
        skipped=count("skip"),
        xfailed=count("xfail"),
        total=len(cases),
    )


def build_report(
    spec: str,
    info: ImplementationInfo,
    cases: list[CaseResult],
    catalogue_ids: Iterable[str],
    problems: list[Problem] | None = None,
) -> Report:
    problems = problems or []
    summary = summarise(cases)
    implementation = ImplementationReport(
        name=info.name,
        version=info.version,
        language=info.language,
        systems=list(info.systems),
        capabilities=list(info.capabilities),
        spec=spec,
    )
    scenarios = [
        ScenarioReport(
            id=c.id,
            system=c.system,
            area=c.area,
            rules=c.rules,
            verdict=c.verdict,
            message=c.message,
            failing_rules=c.failing_rules,
            expected_failure=c.expected_failure,
            duration_ms=round(c.duration_ms, 3),
        )
        for c in cases
    ]
    rules = [
        RuleReport(id=rule_id, verdict=verdict, scenarios=ids)
        for rule_id, (verdict, ids) in rule_verdicts(cases, catalogue_ids).items()
    ]
    return Report(
        implementation=implementation,
        summary=summary,
        ok=summary.failed == 0 and summary.errored == 0 and not problems,
        scenarios=scenarios,
        rules=rules,
        baseline=[BaselineProblem(id=p.id, problem=p.kind, message=p.message) for p in problems],
    )
