"""report.html: one self-contained page, runs side by side, and filters that work in a real browser."""

from __future__ import annotations

import re
from html import escape, unescape
from pathlib import Path

import pytest
from conftest import the_catalogue

from conformance.protocol import ImplementationInfo
from conformance.report import browser, html
from conformance.report.build import build_report
from conformance.report.model import FailedCheck, Report
from conformance.runner import CaseResult

CATALOGUE = the_catalogue()
LLMZ_RULES = sorted(r for r in CATALOGUE.rules if r.startswith("llmz."))[:3]
FALAI_RULE = min(r for r in CATALOGUE.rules if r.startswith("falai."))


def run(name: str, verdicts: list[str]) -> Report:
    cases = [
        CaseResult(f"llmz/area/case-{i}", [rule], verdict, message=f"{verdict}: why")
        for i, (rule, verdict) in enumerate(zip(LLMZ_RULES, verdicts, strict=True))
    ]
    cases.append(CaseResult("falai/area/other", [FALAI_RULE], "pass"))
    info = ImplementationInfo(name=name, version="9.9", language="python", systems=["llmz", "falai"])
    made = build_report(name, info, cases, [*LLMZ_RULES, FALAI_RULE])
    failing = next(s for s in made.scenarios if s.verdict == "fail")
    failing.checks = [
        FailedCheck(
            rule=failing.rules[0], expectation=0, matcher="equals", path="final.status",
            expected="done", found='"crashed"', message="equals at final.status", why="must finish",
        )
    ]  # fmt: skip
    return made


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    reports = [run("first-impl", ["pass", "fail", "skip"]), run("second-impl", ["pass", "pass", "fail"])]
    return html.write(reports, CATALOGUE, tmp_path_factory.mktemp("html") / "report.html")


def test_the_page_stands_alone(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//|@import|url\(""", text)
    assert "<script src" not in text and "<link" not in text


def test_runs_are_columns_and_rules_carry_statement_checks_and_reasons(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    assert "<th>first-impl 9.9</th><th>second-impl 9.9</th>" in text
    first = CATALOGUE.rules[LLMZ_RULES[0]].rule
    assert html.escape(first.statement) in text
    assert "final.status" in text and "&quot;crashed&quot;" in text and "must finish" in text
    assert "skip reason: skip: why" in text
    row = re.search(rf'<tr class="rule" data-id="{re.escape(LLMZ_RULES[1])}" data-verdicts="([^"]*)"', text)
    assert row is not None and row.group(1) == "fail pass"


chromium = browser.find_chromium()

FILTERS = [
    ("", {0, 1, 2}),
    ("#verdict=fail", {1, 2}),
    ("#verdict=skip", {2}),
    ("#differ=1", {1, 2}),
    (f"#q={LLMZ_RULES[0]}", {0}),
    ("#system=falai", set()),
    ("#system=llmz&verdict=skip,fail", {1, 2}),
]

FRAMES = """<!doctype html><meta charset="utf-8"><body>{frames}<script>
window.addEventListener('load', () => {{
  for (const frame of document.querySelectorAll('iframe')) {{
    const out = document.createElement('pre');
    out.className = 'dom';
    out.textContent = frame.contentDocument.documentElement.outerHTML;
    document.body.appendChild(out);
  }}
}});
</script></body>"""
"""A page that loads report.html once per filter fragment, each in its own frame (each frame runs the
report's script on its own ``location.hash``, as a tab opened on that address would), then copies every
frame's DOM into the page: one Chromium start for all the filters instead of one each (about 0.7 s of CPU
and 2 s of a worker per start)."""


@pytest.fixture(scope="module")
def filtered(page: Path) -> dict[str, str]:
    """The DOM of report.html after its script ran, per filter fragment, from one headless Chromium."""
    assert chromium is not None
    frames = "".join(f'<iframe src="{escape(page.name + fragment)}"></iframe>' for fragment, _ in FILTERS)
    harness = page.with_name("frames.html")
    harness.write_text(FRAMES.format(frames=frames), encoding="utf-8")
    dom = browser.dump_dom(chromium, harness.as_uri(), "--allow-file-access-from-files")
    doms = [unescape(text) for text in re.findall(r'<pre class="dom">(.*?)</pre>', dom, re.S)]
    assert len(doms) == len(FILTERS), f"expected one DOM per frame, got {len(doms)}: {dom[-2000:]}"
    return {fragment: text for (fragment, _), text in zip(FILTERS, doms, strict=True)}


@pytest.mark.browser
@pytest.mark.skipif(chromium is None, reason="no Chromium installed (Debian: apt-get install chromium)")
@pytest.mark.parametrize(("fragment", "shown"), FILTERS)
def test_filters_hide_exactly_the_rows_that_do_not_match_in_headless_chromium(
    filtered: dict[str, str], fragment: str, shown: set[int]
) -> None:
    dom = filtered[fragment]
    rows = dict(re.findall(r'<tr class="rule" data-id="([^"]+)"[^>]*?( hidden="")?>', dom))
    assert rows, "the report's rule rows are in the frame's DOM"
    visible = {i for i, rule in enumerate(LLMZ_RULES) if rule in rows and not rows[rule]}
    assert visible == shown
    total_visible = sum(1 for hidden in rows.values() if not hidden)
    assert re.search(rf'<output id="shown">{total_visible} of {len(rows)} rules shown</output>', dom)
