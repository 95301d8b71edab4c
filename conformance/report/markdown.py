"""The Markdown compliance report: per-system summary, then every rule with its verdict."""

from __future__ import annotations

from collections import Counter

from conformance.report.console import rules_phrase
from conformance.report.model import Report

_COLUMNS = ("pass", "fail", "error", "skip", "xfail")


_MESSAGE = 500


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _clip(text: str, limit: int = _MESSAGE) -> str:
    """At most ``limit`` characters, and a visible ellipsis when anything was cut (report.json has it all)."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def to_markdown(report: Report) -> str:
    impl, s = report.implementation, report.summary
    lines = [
        f"# Conformance report: {impl.name} {impl.version} ({impl.language})",
        "",
        f"**{s.passed} passed, {s.failed} failed, {s.errored} errored, {s.skipped} skipped, "
        f"{s.xfailed} expected failures** of {s.total} scenarios. Skips count against compliance.",
        "",
        "| system | " + " | ".join(_COLUMNS) + " | rules |",
        "| --- |" + " ---: |" * (len(_COLUMNS) + 1),
    ]
    for system in sorted({c.system for c in report.scenarios} | {r.id.split(".")[0] for r in report.rules}):
        counts: Counter[str] = Counter(c.verdict for c in report.scenarios if c.system == system)
        rules: Counter[str] = Counter(r.verdict for r in report.rules if r.id.startswith(system + "."))
        lines.append(
            f"| {system} | " + " | ".join(str(counts[v]) for v in _COLUMNS) + f" | {rules_phrase(rules)} |"
        )
    if report.catalogue_errors:
        lines += ["", "## Catalogue errors", ""] + [f"- {_cell(e)}" for e in report.catalogue_errors]
    if report.baseline:
        lines += ["", "## Baseline problems", ""] + [f"- {_cell(p.message)}" for p in report.baseline]
    problems = [c for c in report.scenarios if c.verdict in ("fail", "error", "xfail")]
    if problems:
        lines += ["", "## Failures", ""]
        for case in problems:
            lines.append(f"- **{case.verdict}** `{case.id}`: {_cell(_clip(case.message))}")
    skips = [c for c in report.scenarios if c.verdict == "skip"]
    if skips:
        lines += ["", "## Skips", "", "Skips count against compliance; reasons are the implementation's.", ""]
        lines += [f"- `{case.id}`: {_cell(_clip(case.message)) or '(no reason given)'}" for case in skips]
    noted = [c for c in report.scenarios if c.notes]
    if noted:
        lines += [
            "",
            "## Set aside and undocumented values",
            "",
            "Allowed, and not judged: events of the implementation's own types, `x-` fields, and values of "
            "open sets that the documents do not name.",
            "",
        ]
        lines += [f"- `{case.id}`: " + "; ".join(_cell(note) for note in case.notes) for case in noted]
    lines += ["", "## Rules", "", "| rule | verdict | scenarios |", "| --- | --- | --- |"]
    lines += [f"| `{r.id}` | {r.verdict} | {', '.join(r.scenarios)} |" for r in report.rules]
    return "\n".join(lines) + "\n"
