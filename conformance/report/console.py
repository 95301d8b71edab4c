"""The console summary. Its last line is always ``N passed, N failed, N errored, N skipped``.

What a reader needs without opening a file: each failing or erroring case with its why, each skipped case
with its reason on one line (skips count against compliance, so they are never only a number), per system
the case counts and the rules as "N pass, M fail, U untested, X excluded", and, when nothing reached a
verdict, which of "skipped" or "errored" is the reason.
"""

from __future__ import annotations

from collections import Counter

from conformance.report.build import played
from conformance.report.model import Report, ScenarioReport

_DETAIL_LINES = 12
_SKIP_LINES = 20
"""Up to this many skips are listed one line each; beyond it they are grouped by reason (report.md lists
every one), so a run that skips a whole system does not bury the rest of the summary."""

#: The order rule verdicts are told in; the first four always, the others only when some rule has them.
_RULE_WORDS = (("pass", "pass"), ("fail", "fail"), ("untested", "untested"), ("excluded", "excluded"))
_RULE_EXTRA = (("error", "error"), ("xfail", "expected failure"), ("skip", "skipped"))


def final_line(report: Report) -> str:
    s = report.summary
    return f"{s.passed} passed, {s.failed} failed, {s.errored} errored, {s.skipped} skipped"


def _reason(case: ScenarioReport) -> str:
    return case.message.strip().splitlines()[0] if case.message.strip() else "(no reason given)"


def skip_lines(cases: list[ScenarioReport]) -> list[str]:
    """One ``SKIP`` line per skipped case with its reason, or one per reason when there are many."""
    skips = [c for c in cases if c.verdict == "skip"]
    if len(skips) <= _SKIP_LINES:
        return [f"SKIP  {c.id}: {_reason(c)}" for c in skips]
    by_reason: dict[str, list[str]] = {}
    for case in skips:
        by_reason.setdefault(_reason(case), []).append(case.id)
    return [
        f"SKIP  {len(ids)} cases ({ids[0]}{', ...' if len(ids) > 1 else ''}): {reason}"
        for reason, ids in sorted(by_reason.items(), key=lambda item: -len(item[1]))
    ] + ["      every skipped case is listed in report.md"]


def rules_phrase(verdicts: Counter[str]) -> str:
    """``"N pass, M fail, U untested, X excluded"``, then errors, expected failures and skips if any."""
    words = [f"{verdicts[key]} {word}" for key, word in _RULE_WORDS]
    words += [f"{verdicts[key]} {word}" for key, word in _RULE_EXTRA if verdicts[key]]
    return ", ".join(words)


def not_green(report: Report) -> str | None:
    """Why a run checked nothing, in the words that fit: skipped, errored, or some of each."""
    s = report.summary
    if played(s):
        return None
    if s.errored and not s.skipped:
        return (
            f"NOT GREEN: {s.errored} of {s.total} selected scenarios errored; none reached a verdict "
            "(the ERROR lines above say why)"
        )
    if s.skipped and not s.errored:
        return f"NOT GREEN: nothing was played; all {s.skipped} selected scenarios were skipped"
    return (
        f"NOT GREEN: no scenario reached a verdict: {s.errored} errored, {s.skipped} skipped "
        f"(of {s.total} selected)"
    )


def render(report: Report, *, verbose: bool = False) -> list[str]:
    lines: list[str] = []
    for case in report.scenarios:
        if case.verdict in ("fail", "error") or (verbose and case.verdict == "xfail"):
            lines.append(f"{case.verdict.upper():5} {case.id}")
            detail = case.message.splitlines()
            lines += [f"      {line}" for line in detail[:_DETAIL_LINES]]
            if len(detail) > _DETAIL_LINES:
                lines.append(f"      ... ({len(detail) - _DETAIL_LINES} more lines in report.json)")
    lines += skip_lines(report.scenarios)
    for problem in report.baseline:
        lines.append(f"BASELINE {problem.message}")
    for error in report.catalogue_errors:
        lines.append(f"CATALOGUE {error}")
    impl = report.implementation
    lines.append(f"implementation: {impl.name} {impl.version} ({impl.language})")
    for system in sorted({c.system for c in report.scenarios}):
        counts: Counter[str] = Counter(c.verdict for c in report.scenarios if c.system == system)
        rules: Counter[str] = Counter(r.verdict for r in report.rules if r.id.startswith(system + "."))
        lines.append(
            f"{system}: {counts['pass']} passed, {counts['fail']} failed, {counts['error']} errored, "
            f"{counts['skip']} skipped, {counts['xfail']} expected failures; "
            f"rules: {rules_phrase(rules)}"
        )
    if report.summary.xfailed:
        lines.append(f"{report.summary.xfailed} expected failures (baseline)")
    reason = not_green(report)
    if reason:
        lines.append(reason)
    lines.append(final_line(report))
    return lines
