"""The drift report as data (JSON), as Markdown for a reviewer, and as console lines.

The JSON is the one source; Markdown and console are renderings of it. It carries the documents' own
changed text (a reviewer reads the diff next to the rule's statement), so it is written under ``build/``
and never committed.
"""

from __future__ import annotations

import re
from difflib import unified_diff
from typing import Any

from conformance.drift.align import Alignment, UnitChange
from conformance.drift.impact import Candidate, RuleImpact
from conformance.drift.radius import Index, radius

_VERSION = re.compile(r"-(\d+\.\d+\.\d+(?:-(?:alpha|beta|rc)[.\d]*[0-9])?)")


def version_of(file_name: str) -> str | None:
    """The release a document's file name carries: ``llmz-1.0.2-DOCS.md`` -> ``1.0.2``."""
    found = _VERSION.search(file_name)
    return found.group(1) if found else None


def diff_lines(changes: tuple[UnitChange, ...] | list[UnitChange]) -> list[str]:
    """The changed units, old side then new side, one unit a line, as a unified diff without headers."""
    old = [c.old.text for c in changes if c.old is not None]
    new = [c.new.text for c in changes if c.new is not None]
    return [
        line for line in unified_diff(old, new, lineterm="", n=0) if not line.startswith(("---", "+++", "@@"))
    ]


def _change(change: UnitChange) -> dict[str, Any]:
    return {
        "kind": change.kind,
        "old": None
        if change.old is None
        else {"line": change.old.line, "fingerprint": change.old.fingerprint},
        "new": None
        if change.new is None
        else {"line": change.new.line, "fingerprint": change.new.fingerprint},
    }


def build(
    document: str,
    versions: tuple[str | None, str | None],
    alignment: Alignment,
    affected: list[RuleImpact],
    candidates: list[Candidate],
    index: Index,
) -> dict[str, Any]:
    new_version = versions[1]
    return {
        "document": document,
        "old_version": versions[0],
        "new_version": new_version,
        "sections": [
            {"kind": p.kind, "old": p.old.title if p.old else None, "new": p.new.title if p.new else None,
             "changes": len(p.changes)}
            for p in alignment.sections
            if p.kind != "same" or p.changes
        ],
        "rules": [_rule(impact, index, new_version) for impact in affected],
        "candidates": [
            {"section": c.section, **_change(c.change), "diff": diff_lines([c.change]),
             "suggested_since": new_version}
            for c in candidates
        ],
    }  # fmt: skip


def _rule(impact: RuleImpact, index: Index, new_version: str | None) -> dict[str, Any]:
    pair, rule = impact.pair, impact.rule
    reach = radius(rule.id, index)
    return {
        "id": rule.id,
        "file": rule.file,
        "since": rule.since,
        "suggested_since": new_version if impact.passage == "new" else None,
        "passage": impact.passage,
        "section": impact.section,
        "section_old": pair.old.title if pair and pair.old else None,
        "section_new": pair.new.title if pair and pair.new else None,
        "statement": rule.statement,
        "changes": [_change(c) for c in impact.changes],
        "diff": diff_lines(impact.changes),
        "scenarios": list(reach.scenarios),
        "goldens": list(reach.goldens),
        "mutants": list(reach.mutants),
        "permitted": list(reach.permitted),
    }


def to_markdown(report: dict[str, Any]) -> str:
    lines = [
        f"# Spec drift: {report['document']} {report['old_version']} -> {report['new_version']}",
        "",
        *_summary(report),
        "",
        "## Sections",
        "",
        *[f"- {s['kind']}: {s['old'] or '-'} -> {s['new'] or '-'} ({s['changes']} passage changes)"
          for s in report["sections"]],
    ]  # fmt: skip
    for file, rules in _by_file(report["rules"]).items():
        lines += ["", f"## {file}", ""]
        for rule in rules:
            lines += _rule_markdown(rule)
    lines += ["", "## Changed normative passages no rule cites", ""]
    for c in report["candidates"]:
        where = c["new"]["line"] if c["new"] else "?"
        lines += [f"- {c['section']} (line {where}, {c['kind']}; suggested since {c['suggested_since']})", "",
                  "  ```diff", *[f"  {d}" for d in c["diff"]], "  ```"]  # fmt: skip
    return "\n".join(lines) + "\n"


def _rule_markdown(rule: dict[str, Any]) -> list[str]:
    section = rule["section_new"] or rule["section_old"]
    if rule["section"] == "renamed":
        section = f"{rule['section_old']} -> {rule['section_new']} (renamed)"
    lines = [
        f"### {rule['id']}",
        "",
        f"- passage: **{rule['passage']}**; section: {section} ({rule['section']}); since {rule['since']}"
        + (f"; suggested since {rule['suggested_since']}" if rule["suggested_since"] else ""),
        f"- rule: {rule['statement']}",
    ]
    for key in ("scenarios", "goldens", "mutants", "permitted"):
        lines.append(f"- {key}: {', '.join(rule[key]) or 'none'}")
    if rule["diff"]:
        where = ", ".join(_lines(rule["changes"]))
        lines += ["", f"Changed units ({where}):", "", "```diff", *rule["diff"], "```"]
    return [*lines, ""]


def _lines(changes: list[dict[str, Any]]) -> list[str]:
    """Where a rule's changed units are: ``old line 141``, ``new line 145``, each place once."""
    found: list[str] = []
    for change in changes:
        for side in ("old", "new"):
            if change[side] and f"{side} line {change[side]['line']}" not in found:
                found.append(f"{side} line {change[side]['line']}")
    return found


def _by_file(rules: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    grouped: dict[str, list[dict[str, Any]]] = {}
    for rule in rules:
        grouped.setdefault(rule["file"], []).append(rule)
    return grouped


def _summary(report: dict[str, Any]) -> list[str]:
    rules = report["rules"]
    tally: dict[str, int] = {}
    for r in rules:
        for kind in [r["passage"], *([f"section {r['section']}"] if r["section"] != "same" else [])]:
            tally[kind] = tally.get(kind, 0) + 1
    counts = ", ".join(f"{n} {kind}" for kind, n in sorted(tally.items()))
    return [
        f"{len(rules)} rules affected ({counts or 'none'}) in {len(_by_file(rules))} files; "
        f"{len(report['candidates'])} changed normative passages no rule cites; "
        f"{sum(len(r['scenarios']) for r in rules)} scenario references, "
        f"{len({g for r in rules for g in r['goldens']})} goldens"
    ]


def console(report: dict[str, Any]) -> list[str]:
    lines = [f"spec drift: {report['document']} {report['old_version']} -> {report['new_version']}"]
    for s in report["sections"]:
        lines.append(
            f"  section {s['kind']}: {s['old'] or '-'} -> {s['new'] or '-'} ({s['changes']} changes)"
        )
    for file, rules in _by_file(report["rules"]).items():
        lines.append(file)
        for r in rules:
            extra = f", section {r['section']}" if r["section"] != "same" else ""
            lines.append(
                f"  {r['id']}: {r['passage']}{extra} (since {r['since']}"
                + (f", suggested {r['suggested_since']}" if r["suggested_since"] else "")
                + f"); {len(r['scenarios'])} scenarios, {len(r['goldens'])} goldens, "
                f"{len(r['mutants'])} mutants, {len(r['permitted'])} permitted variants"
            )
    for c in report["candidates"]:
        line = c["new"]["line"] if c["new"] else "?"
        lines.append(f"  uncited {c['kind']} passage in {c['section']!r} at line {line}")
    return [*lines, *_summary(report)]
