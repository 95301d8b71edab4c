"""``report.html``: the rule matrix people read, one self-contained file (no network, no external assets).

Theory of operation. Rows are the catalogue's rules, grouped by system and area; columns are the reports
given, side by side (the reference, llmz 1.0.1, your runtime), each headed by its implementation and run
metadata. A cell is the rule's verdict in that run, or blank where the run did not cover the system. Opening
a row shows the rule's statement and, per run, the scenarios naming it with their verdicts; a scenario
that did not pass shows why: its failing checks with what each expected and what the record held, its
skip reason, or the baseline's reason for an expected failure; and any scenario lists what judging set
aside from its record (events of the implementation's own types, ``x-`` fields) and the values of open
sets the documents do not name. The page is rendered here, in Python, so it
reads without JavaScript; a few lines of inline script add the filters (verdict, system, text, "differs
between runs"), which also read and write the URL fragment (``#verdict=fail,xfail&system=llmz``, plus
``open=<rule id>`` to open one rule) so a filtered view can be linked, and checked in a headless browser.

The page opens with the failures: a summary bar per run (its rules per verdict, and links to each rule
that failed or errored), and within the matrix the systems, areas and rules with a failure come first,
so a reader sees what is wrong before scrolling past hundreds of passing rules.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from collections.abc import Callable, Sequence
from html import escape
from pathlib import Path

from conformance.catalogue.load import Catalogue, load_catalogue
from conformance.report.compare import ReportError, load
from conformance.report.escape import html_page
from conformance.report.files import file_problem, write_atomic
from conformance.report.model import Report, ScenarioReport
from conformance.systems import SYSTEMS

VERDICTS = ("pass", "fail", "error", "xfail", "skip", "untested", "excluded")
NOT_COVERED = "none"

STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d232a;background:#fafbfc}
header{position:sticky;top:0;background:#fff;border-bottom:1px solid #d8dde3;padding:10px 18px;z-index:2}
h1{font-size:19px;margin:0 0 6px}h2{font-size:17px;margin:22px 18px 6px}
table{border-collapse:collapse}main{padding:0 0 40px}
.runs td,.runs th{padding:2px 10px 2px 0;text-align:left;vertical-align:top;font-size:12.5px}
.runs th{font-weight:600}.digest{font-family:monospace;color:#5b6570}
form{display:flex;flex-wrap:wrap;gap:6px 16px;align-items:center;margin-top:8px}
form label{white-space:nowrap}#shown{color:#5b6570}
.matrix{margin:0 18px;width:calc(100% - 36px);background:#fff;border:1px solid #d8dde3}
.matrix th,.matrix td{border-bottom:1px solid #eceff3;padding:4px 8px;text-align:left;vertical-align:top}
.matrix thead th{background:#f1f3f6;position:sticky;top:0}
tr.area th{background:#f7f8fa;font-weight:600;color:#3d4650}
td.v{width:1%;white-space:nowrap;text-align:center;font-weight:600}
.b{display:inline-block;border-radius:3px;padding:0 6px;font-size:12px;font-weight:600}
.pass{background:#dcf5e3;color:#14632e}.fail{background:#fbdcdc;color:#8c1515}
.error{background:#fde8cf;color:#8a4b00}.xfail{background:#ebe1fa;color:#55308f}
.skip{background:#e9ecef;color:#4a525a}.untested,.excluded{background:#f4f4f4;color:#8a9198}
.none{color:#b0b6bc;font-weight:400}
summary{cursor:pointer}summary code{font-size:12.5px}
.statement{margin:6px 0 4px;max-width:70em}.meta{color:#5b6570;font-size:12.5px}
.run{margin:8px 0 4px;padding-left:10px;border-left:3px solid #d8dde3}
.run h4{margin:0 0 2px;font-size:13px}.sc{margin:3px 0}.why{color:#3d4650;font-size:12.5px;max-width:70em}
.checks{margin:4px 0 6px;font-size:12px}.checks td,.checks th{border:1px solid #e3e7eb;padding:2px 6px}
.checks code{white-space:pre-wrap;word-break:break-all}
.passed{color:#5b6570;font-size:12.5px}
.bar{margin:0 0 6px;font-size:13px}.bar a{margin-right:6px}.bar .ok{color:#14632e;font-weight:600}
"""

SCRIPT = """
const form = document.getElementById('filters');
const boxes = () => [...form.querySelectorAll('input[name=verdict]')];
function readHash() {
  const p = new URLSearchParams(location.hash.slice(1));
  if (p.has('verdict')) {
    const v = p.get('verdict').split(',');
    boxes().forEach(b => b.checked = v.includes(b.value));
  }
  if (p.has('system')) form.system.value = p.get('system');
  if (p.has('q')) form.q.value = p.get('q');
  form.differ.checked = p.get('differ') === '1';
  if (p.has('open')) {
    const row = document.querySelector('tr.rule[data-id="' + CSS.escape(p.get('open')) + '"]');
    if (row) { row.querySelector('details').open = true; row.scrollIntoView({block: 'center'}); }
  }
}
function apply() {
  const verdicts = new Set(boxes().filter(b => b.checked).map(b => b.value));
  const system = form.system.value, q = form.q.value.trim().toLowerCase(), differ = form.differ.checked;
  let shown = 0, total = 0;
  for (const section of document.querySelectorAll('section.system')) {
    const inSystem = !system || section.dataset.system === system;
    for (const row of section.querySelectorAll('tr.rule')) {
      total++;
      const ok = inSystem && row.dataset.verdicts.split(' ').some(v => verdicts.has(v))
        && (!q || row.dataset.search.includes(q)) && (!differ || row.dataset.differ === '1');
      row.hidden = !ok; if (ok) shown++;
    }
    for (const body of section.querySelectorAll('table.matrix > tbody')) {
      body.hidden = !body.querySelector('tr.rule:not([hidden])');
    }
    section.hidden = !section.querySelector('tr.rule:not([hidden])');
  }
  document.getElementById('shown').textContent = shown + ' of ' + total + ' rules shown';
  const p = new URLSearchParams();
  const all = boxes().every(b => b.checked);
  if (!all) p.set('verdict', [...verdicts].join(','));
  if (system) p.set('system', system);
  if (q) p.set('q', q);
  if (differ) p.set('differ', '1');
  try { history.replaceState(null, '', p.toString() ? '#' + p.toString() : location.pathname); } catch (e) {}
}
readHash(); apply();
form.addEventListener('input', apply);
window.addEventListener('hashchange', () => { readHash(); apply(); });
"""


def _badge(verdict: str) -> str:
    text = "not run" if verdict == NOT_COVERED else verdict
    return f'<span class="b {verdict}">{escape(text)}</span>'


def _column_title(report: Report) -> str:
    impl = report.implementation
    return f"{impl.name} {impl.version}"


def _runs_table(reports: list[Report]) -> str:
    rows: list[tuple[str, Callable[[Report], str]]] = [
        ("implementation", lambda r: f"{_column_title(r)} ({r.implementation.language})"),
        ("--impl", lambda r: r.implementation.spec),
        ("systems", lambda r: ", ".join(sorted({s.system for s in r.scenarios}))),
        (
            "scenarios",
            lambda r: (
                f"{r.summary.passed} passed, {r.summary.failed} failed, {r.summary.errored} errored, "
                f"{r.summary.skipped} skipped, {r.summary.xfailed} expected failures"
            ),
        ),
        ("suite", lambda r: f"{r.run.suite_version}, protocol {r.run.protocol_version}"),
        ("catalogue", lambda r: r.run.catalogue_digest[:12]),
        ("started", lambda r: f"{r.run.started_at} ({r.run.duration_s:.1f}s)"),
        ("platform", lambda r: f"{r.run.platform}, Python {r.run.python}"),
    ]
    head = "".join(f"<th>{escape(_column_title(r))}</th>" for r in reports)
    body = "".join(
        f"<tr><th>{escape(label)}</th>"
        + "".join(
            f"<td{' class=digest' if label == 'catalogue' else ''}>{escape(value(r))}</td>" for r in reports
        )
        + "</tr>"
        for label, value in rows
    )
    return f'<table class="runs"><tr><th></th>{head}</tr>{body}</table>'


BAD = ("fail", "error")
_BAR_LINKS = 25


def summary_bar(report: Report) -> str:
    """One line for a run: its rules per verdict (failures first), then a link to each failing rule."""
    counts: dict[str, int] = {}
    for rule in report.rules:
        counts[rule.verdict] = counts.get(rule.verdict, 0) + 1
    told = ", ".join(f"{_badge(v)} {counts[v]}" for v in VERDICTS if counts.get(v))
    failing = [r.id for r in report.rules if r.verdict in BAD]
    links = "".join(
        f'<a href="#{escape(f"verdict=fail,error&open={rule_id}")}"><code>{escape(rule_id)}</code></a>'
        for rule_id in failing[:_BAR_LINKS]
    )
    if len(failing) > _BAR_LINKS:
        links += f'<a href="#verdict=fail,error">and {len(failing) - _BAR_LINKS} more</a>'
    tail = (
        f"{len(failing)} rules failing or erroring: {links}"
        if failing
        else '<span class="ok">no rule fails or errors</span>'
    )
    return f'<div class="bar"><b>{escape(_column_title(report))}</b> · rules: {told} · {tail}</div>'


def _filters(systems: Sequence[str]) -> str:
    boxes = "".join(
        f'<label><input type="checkbox" name="verdict" value="{v}" checked> {_badge(v)}</label>'
        for v in (*VERDICTS, NOT_COVERED)
    )
    options = "".join(f'<option value="{s}">{s}</option>' for s in systems)
    return (
        f'<form id="filters" onsubmit="return false">{boxes}'
        f'<label>system <select name="system"><option value="">all</option>{options}</select></label>'
        '<label>rule <input type="search" name="q" placeholder="id or title"></label>'
        '<label><input type="checkbox" name="differ"> only rules whose verdicts differ</label>'
        '<output id="shown"></output></form>'
    )


def _checks(case: ScenarioReport, rule_id: str) -> str:
    rows = "".join(
        f"<tr><td>{escape(c.rule)}{' ◀' if c.rule == rule_id else ''}</td><td>{escape(c.matcher)}</td>"
        f"<td><code>{escape(c.path)}</code></td>"
        f"<td><code>{escape(json.dumps(c.expected, ensure_ascii=False))}</code></td>"
        f"<td><code>{escape(c.found)}</code></td><td>{escape(c.why or '')}</td></tr>"
        for c in sorted(case.checks, key=lambda c: c.rule != rule_id)
    )
    head = "<tr><th>rule</th><th>matcher</th><th>path</th><th>expected</th><th>found</th><th>why</th></tr>"
    return f'<table class="checks">{head}{rows}</table>'


def _scenario(case: ScenarioReport, rule_id: str) -> str:
    parts = [f'<div class="sc">{_badge(case.verdict)} <code>{escape(case.id)}</code>']
    if case.expected_failure:
        parts.append(f'<div class="why">baseline: {escape(case.expected_failure)}</div>')
    if case.checks:
        parts.append(_checks(case, rule_id))
    elif case.verdict != "pass" and case.message:
        label = "skip reason" if case.verdict == "skip" else "message"
        parts.append(f'<div class="why">{label}: {escape(case.message)}</div>')
    if case.notes:
        items = "".join(f"<li><code>{escape(note)}</code></li>" for note in case.notes)
        parts.append(
            f'<div class="why">set aside or undocumented (allowed):<ul class="notes">{items}</ul></div>'
        )
    return "".join(parts) + "</div>"


def _rule_details(
    rule_id: str,
    reports: list[Report],
    catalogue: Catalogue,
    by_id: list[dict[str, ScenarioReport]],
    naming: list[dict[str, list[str]]],
) -> str:
    entry = catalogue.rules.get(rule_id)
    if entry is None:
        text = '<p class="statement">(not in the current catalogue)</p>'
    else:
        rule = entry.rule
        meta = f"{rule.level} · since {rule.since} · {rule.source.document}, “{rule.source.section}”"
        text = f'<p class="statement">{escape(rule.statement)}</p><div class="meta">{escape(meta)}</div>'
        if rule.open_question:
            text += f'<div class="meta">open question: {escape(rule.open_question)}</div>'
    runs = []
    for report, cases, names in zip(reports, by_id, naming, strict=True):
        named = names.get(rule_id)
        if named is None:
            continue
        scenarios = [cases[s] for s in named if s in cases]
        shown = [c for c in scenarios if c.verdict != "pass" or c.notes]
        passed = [c.id for c in scenarios if c.verdict == "pass" and not c.notes]
        block = "".join(_scenario(c, rule_id) for c in shown)
        if passed:
            block += f'<div class="passed">{_badge("pass")} {escape(", ".join(passed))}</div>'
        if not scenarios:
            block = '<div class="passed">no scenario names this rule</div>'
        runs.append(f'<div class="run"><h4>{escape(_column_title(report))}</h4>{block}</div>')
    return text + "".join(runs)


def _not_named(catalogue: Catalogue, rule_id: str) -> str:
    """The verdict of a rule a report does not list: excluded if the catalogue says so, else untested."""
    entry = catalogue.rules.get(rule_id)
    return "excluded" if entry is not None and entry.rule.excluded is not None else "untested"


def _row(rule_id: str, cells: list[str], reports: list[Report], catalogue: Catalogue, views: _Views) -> str:
    entry = catalogue.rules.get(rule_id)
    title = entry.rule.title if entry else ""
    search = escape(f"{rule_id} {title}".lower())
    differ = "1" if len({c for c in cells if c != NOT_COVERED}) > 1 else "0"
    details = _rule_details(rule_id, reports, catalogue, views.by_id, views.naming)
    present = " ".join(sorted(set(cells)))
    return (
        f'<tr class="rule" data-id="{escape(rule_id)}" data-verdicts="{present}"'
        f' data-search="{search}" data-differ="{differ}"><td><details><summary>'
        f"<code>{escape(rule_id)}</code> {escape(title)}</summary>{details}</details></td>"
        + "".join(f'<td class="v">{_badge(c)}</td>' for c in cells)
        + "</tr>"
    )


class _Views:
    """Each report's verdicts, covered systems, scenarios by id and rule -> scenario ids, read once."""

    def __init__(self, reports: list[Report], catalogue: Catalogue) -> None:
        self.verdicts = [{r.id: r.verdict for r in report.rules} for report in reports]
        self.covered = [{s.system for s in report.scenarios} for report in reports]
        self.by_id = [{s.id: s for s in report.scenarios} for report in reports]
        self.naming = [{r.id: r.scenarios for r in report.rules} for report in reports]
        self.catalogue = catalogue

    def cells(self, rule_id: str) -> list[str]:
        system = rule_id.split(".", 1)[0]
        return [
            v.get(rule_id, _not_named(self.catalogue, rule_id)) if system in c else NOT_COVERED
            for v, c in zip(self.verdicts, self.covered, strict=True)
        ]


def render(reports: list[Report], catalogue: Catalogue) -> str:
    """The whole page for one or more reports (columns in the order given); failures first."""
    views = _Views(reports, catalogue)
    rule_ids = sorted(set(catalogue.rules) | {rule for v in views.verdicts for rule in v})
    cells = {rule_id: views.cells(rule_id) for rule_id in rule_ids}
    bad = {rule_id for rule_id, row in cells.items() if any(c in BAD for c in row)}
    areas: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for rule_id in rule_ids:
        entry = catalogue.rules.get(rule_id)
        areas[rule_id.split(".", 1)[0]][entry.area if entry else rule_id.split(".")[1]].append(rule_id)
    systems = [s for s in SYSTEMS if s in areas and any(s in c for c in views.covered)]

    def failing(ids: list[str]) -> bool:
        return any(rule_id in bad for rule_id in ids)

    systems.sort(key=lambda s: not failing([r for ids in areas[s].values() for r in ids]))
    head = "".join(f"<th>{escape(_column_title(r))}</th>" for r in reports)
    sections = []
    for system in systems:
        bodies = []
        for area, ids in sorted(areas[system].items(), key=lambda item: (not failing(item[1]), item[0])):
            rows = [f'<tr class="area"><th colspan="{len(reports) + 1}">{escape(area)}</th></tr>']
            rows += [
                _row(rule_id, cells[rule_id], reports, catalogue, views)
                for rule_id in sorted(ids, key=lambda r: (r not in bad, r))
            ]
            bodies.append(f'<tbody data-area="{escape(area)}">{"".join(rows)}</tbody>')
        sections.append(
            f'<section class="system" data-system="{system}"><h2>{system}</h2><table class="matrix">'
            f"<thead><tr><th>rule</th>{head}</tr></thead>{''.join(bodies)}</table></section>"
        )
    title = "Conformance report: " + " · ".join(_column_title(r) for r in reports)
    bars = "".join(summary_bar(report) for report in reports)
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
        f'<meta name="viewport" content="width=device-width"><style>{STYLE}</style></head><body>'
        f"<header><h1>{escape(title)}</h1>{bars}{_runs_table(reports)}{_filters(systems)}</header>"
        f"<main>{''.join(sections)}</main><script>{SCRIPT}</script></body></html>\n"
    )


def write(reports: list[Report], catalogue: Catalogue, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, html_page(render(reports, catalogue)))  # a reader never sees half a page
    return path


def command(args: argparse.Namespace) -> int:
    try:
        reports = [load(path) for path in args.reports]
    except ReportError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    problem = file_problem(args.output)  # checked before the page is built
    if problem:
        print(f"error: {problem}; choose another file with -o", file=sys.stderr)
        return 2
    print(f"wrote {write(reports, load_catalogue(), args.output)}")
    return 0
