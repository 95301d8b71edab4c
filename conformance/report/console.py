"""The console summary. Its last line is always ``N passed, N failed, N errored, N skipped``."""

from __future__ import annotations

from collections import Counter

from conformance.report.build import played
from conformance.report.escape import terminal_text
from conformance.report.model import Report

_DETAIL_LINES = 12


def final_line(report: Report) -> str:
    s = report.summary
    return f"{s.passed} passed, {s.failed} failed, {s.errored} errored, {s.skipped} skipped"


def render(report: Report, *, verbose: bool = False) -> list[str]:
    lines: list[str] = []
    for case in report.scenarios:
        if case.verdict in ("fail", "error") or (verbose and case.verdict != "pass"):
            lines.append(f"{case.verdict.upper():5} {case.id}")
            detail = case.message.splitlines()
            lines += [f"      {line}" for line in detail[:_DETAIL_LINES]]
            if len(detail) > _DETAIL_LINES:
                lines.append(f"      ... ({len(detail) - _DETAIL_LINES} more lines in report.json)")
    for problem in report.baseline:
        lines.append(f"BASELINE {problem.message}")
    for error in report.catalogue_errors:
        lines.append(f"CATALOGUE {error}")
    impl = report.implementation
    lines.append(f"implementation: {impl.name} {impl.version} ({impl.language})")
    for system in sorted({c.system for c in report.scenarios}):
        counts: Counter[str] = Counter(c.verdict for c in report.scenarios if c.system == system)
        rules = [r for r in report.rules if r.id.startswith(system + ".")]
        passing = sum(1 for r in rules if r.verdict == "pass")
        lines.append(
            f"{system}: {counts['pass']} passed, {counts['fail']} failed, {counts['error']} errored, "
            f"{counts['skip']} skipped, {counts['xfail']} expected failures; "
            f"{passing}/{len(rules)} rules pass"
        )
    if report.summary.xfailed:
        lines.append(f"{report.summary.xfailed} expected failures (baseline)")
    if not played(report.summary):
        total = report.summary.total
        lines.append(f"NOT GREEN: nothing was played; all {total} selected scenarios were skipped or errored")
    lines.append(final_line(report))
    return [terminal_text(line) for line in lines]  # the implementation's text cannot drive the terminal
