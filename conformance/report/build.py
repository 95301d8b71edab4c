"""Assembling ``report.json`` (the ``Report`` model) from a run's case results."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from conformance.protocol import ImplementationInfo
from conformance.report.metadata import run_metadata
from conformance.report.model import (
    BaselineProblem,
    FailedCheck,
    ImplementationReport,
    Report,
    RuleReport,
    RunMetadata,
    ScenarioReport,
    Summary,
)
from conformance.runner import CaseResult
from conformance.verdicts import rule_verdicts

if TYPE_CHECKING:
    from conformance.baseline import Problem


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


def played(summary: Summary) -> int:
    """Scenarios an implementation actually played to a verdict; a run where this is 0 checked nothing."""
    return summary.passed + summary.failed + summary.xfailed


def scenario_report(case: CaseResult) -> ScenarioReport:
    return ScenarioReport(
        id=case.id,
        system=case.system,
        area=case.area,
        rules=case.rules,
        verdict=case.verdict,
        message=case.message,
        failing_rules=case.failing_rules,
        expected_failure=case.expected_failure,
        duration_ms=round(case.duration_ms, 3),
        checks=[
            FailedCheck(
                rule=m.rule,
                expectation=m.index,
                matcher=m.matcher,
                path=m.path,
                expected=m.expected,
                found=m.found,
                message=m.message,
                why=m.why,
            )
            for m in case.checks
        ],
        notes=case.notes,
    )


def build_report(
    spec: str,
    info: ImplementationInfo,
    cases: list[CaseResult],
    catalogue_ids: Iterable[str],
    problems: list[Problem] | None = None,
    run: RunMetadata | None = None,
    catalogue_errors: list[str] | None = None,
    excluded: Iterable[str] = (),
) -> Report:
    problems = problems or []
    catalogue_errors = catalogue_errors or []
    summary = summarise(cases)
    implementation = ImplementationReport(
        spec=spec, **info.model_dump(include={"name", "version", "language", "systems", "capabilities"})
    )
    rules = [
        RuleReport(id=rule_id, verdict=verdict, scenarios=ids)
        for rule_id, (verdict, ids) in rule_verdicts(cases, catalogue_ids, excluded).items()
    ]
    return Report(
        run=run or run_metadata(),
        implementation=implementation,
        summary=summary,
        ok=summary.failed == 0
        and summary.errored == 0
        and not problems
        and not catalogue_errors
        and played(summary) > 0,
        scenarios=[scenario_report(case) for case in cases],
        rules=rules,
        baseline=[BaselineProblem(id=p.id, problem=p.kind, message=p.message) for p in problems],
        catalogue_errors=catalogue_errors,
    )
