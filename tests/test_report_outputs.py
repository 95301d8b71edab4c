"""What the console, report.md and report.html tell a reader, and where the reports go (issue 24, item 7).

Skipped cases are listed with their reasons; rules are told as "N pass, M fail, U untested, X excluded"; a
run whose cases all errored says so (not "nothing was played"); the default report folder carries the
implementation's hello name (its ``--impl`` slug only when another implementation's report is there); a
start that fails leaves no folder; report.html opens with a summary bar and the failing rules first.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import PYTHON, fake_command, minimal_scenario, the_catalogue

from conformance.adapters.base import AdapterError
from conformance.cli import main
from conformance.protocol import ImplementationInfo
from conformance.report import console, html
from conformance.report.build import build_report
from conformance.report.files import LOCK_NAME
from conformance.report.folder import default_folder, discard_if_unused
from conformance.report.markdown import to_markdown
from conformance.report.model import Report
from conformance.runner import CaseResult

CATALOGUE = the_catalogue()
EXCLUDED = sorted(i for i, e in CATALOGUE.rules.items() if i.startswith("llmz.") and e.rule.excluded)
NAMED = sorted(i for i, e in CATALOGUE.rules.items() if i.startswith("llmz.") and not e.rule.excluded)[:4]


def _report(cases: list[CaseResult], rule_ids: list[str] | None = None) -> Report:
    info = ImplementationInfo(name="impl", version="1", language="python", systems=["llmz"])
    ids = rule_ids if rule_ids is not None else [*NAMED, *EXCLUDED[:1]]
    return build_report("impl", info, cases, ids, excluded=EXCLUDED[:1])


# The console ----------------------------------------------------------------------------------------------


def test_each_skip_is_listed_with_its_reason_on_one_line() -> None:
    cases = [
        CaseResult("llmz/a/one", [NAMED[0]], "pass"),
        CaseResult("llmz/a/two", [NAMED[1]], "skip", "requires capability 'x', not declared\nmore text"),
    ]
    lines = console.render(_report(cases))
    assert "SKIP  llmz/a/two: requires capability 'x', not declared" in lines
    assert not any("more text" in line for line in lines)


def test_many_skips_are_grouped_by_reason() -> None:
    cases = [CaseResult(f"llmz/a/s{i:02}", [NAMED[0]], "skip", "cannot express") for i in range(30)]
    skips = [line for line in console.render(_report(cases)) if line.startswith("SKIP")]
    assert skips == ["SKIP  30 cases (llmz/a/s00, ...): cannot express"]


def test_rules_are_told_as_pass_fail_untested_excluded() -> None:
    cases = [CaseResult("llmz/a/one", [NAMED[0]], "pass"), CaseResult("llmz/a/two", [NAMED[1]], "fail", "x")]
    (line,) = [line for line in console.render(_report(cases)) if line.startswith("llmz:")]
    assert line.endswith("rules: 1 pass, 1 fail, 2 untested, 1 excluded")


def test_rule_errors_and_skips_are_added_only_when_present() -> None:
    assert console.rules_phrase(Counter({"pass": 3})) == "3 pass, 0 fail, 0 untested, 0 excluded"
    assert console.rules_phrase(Counter({"error": 2, "skip": 1})).endswith(", 2 error, 1 skipped")


@pytest.mark.parametrize(
    ("verdicts", "says"),
    [
        (["error", "error"], "NOT GREEN: 2 of 2 selected scenarios errored; none reached a verdict"),
        (["skip", "skip"], "NOT GREEN: nothing was played; all 2 selected scenarios were skipped"),
        (["error", "skip"], "NOT GREEN: no scenario reached a verdict: 1 errored, 1 skipped (of 2 selected)"),
    ],
    ids=["all-errored", "all-skipped", "some-of-each"],
)
def test_a_run_with_no_verdict_says_whether_cases_errored_or_were_skipped(
    verdicts: list[str], says: str
) -> None:
    cases = [CaseResult(f"llmz/a/c{i}", [NAMED[0]], v, "why") for i, v in enumerate(verdicts)]
    lines = console.render(_report(cases))
    assert lines[-2] == says or lines[-2].startswith(says + " (")
    if "error" in verdicts:
        assert not any("nothing was played" in line for line in lines)


def test_a_run_that_played_something_has_no_not_green_line() -> None:
    cases = [CaseResult("llmz/a/one", [NAMED[0]], "pass"), CaseResult("llmz/a/two", [NAMED[1]], "error", "x")]
    assert not any(line.startswith("NOT GREEN") for line in console.render(_report(cases)))


def test_report_md_tells_rules_the_same_way() -> None:
    cases = [CaseResult("llmz/a/one", [NAMED[0]], "pass")]
    assert "| 1 pass, 0 fail, 3 untested, 1 excluded |" in to_markdown(_report(cases))


# The report folder ----------------------------------------------------------------------------------------


def _write_report(folder: Path, spec: str) -> None:
    folder.mkdir(parents=True)
    (folder / "report.json").write_text(json.dumps({"implementation": {"spec": spec}}), encoding="utf-8")


def test_the_folder_is_the_hello_name_unless_another_specs_report_is_there(tmp_path: Path) -> None:
    assert default_folder(tmp_path, "llmz", "llmz-node").path == tmp_path / "llmz"
    _write_report(tmp_path / "llmz", "llmz-node")
    assert default_folder(tmp_path, "llmz", "llmz-node").path == tmp_path / "llmz"  # its own: reused
    mine = default_folder(tmp_path, "llmz", "stdio:node my-bridge.mjs")
    assert mine.path == tmp_path / "stdio-node-my-bridge.mjs"
    assert "holds the report of --impl llmz-node" in mine.note


def test_a_colliding_run_says_where_its_reports_went(
    scenario_tree: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("conformance.cli.BUILD_ROOT", tmp_path / "build")
    _write_report(tmp_path / "build" / "conformance" / "fake-python", "stdio:someone else")
    root = scenario_tree({"area/ok": minimal_scenario()})
    assert main(["run", "--scenarios", str(root), "--impl", "python:fakes.pyimpl:make"]) == 0
    slug = tmp_path / "build" / "conformance" / "python-fakes.pyimpl-make"
    assert f"reports: {slug} (" in capsys.readouterr().out
    assert (slug / "report.json").exists()


def test_a_failed_start_leaves_no_report_folder(
    scenario_tree: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("conformance.cli.BUILD_ROOT", tmp_path / "build")
    root = scenario_tree({"area/ok": minimal_scenario()})
    dead = f"stdio:{PYTHON} -c 'import sys; sys.exit(3)'"
    assert main(["run", "--scenarios", str(root), "--impl", dead]) == 2
    assert main(["run", "--scenarios", str(root), "--impl", dead, "--report-dir", str(tmp_path / "r")]) == 2
    assert "hello" in capsys.readouterr().err
    assert not (tmp_path / "build").exists() and not (tmp_path / "r").exists()


def test_a_run_broken_off_midway_removes_the_folder_it_created(
    scenario_tree: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(*_: object) -> CaseResult:
        raise AdapterError("the implementation cannot be restarted")

    monkeypatch.setattr("conformance.runner.run_case", broken)
    root = scenario_tree({"area/ok": minimal_scenario()})
    out = tmp_path / "out"
    assert (
        main(
            [
                "run",
                "--scenarios",
                str(root),
                "--impl",
                fake_command("fake_impl.py"),
                "--report-dir",
                str(out),
            ]
        )
        == 2
    )
    assert "cannot be restarted" in capsys.readouterr().err
    assert not out.exists()


def test_only_a_folder_this_run_created_and_left_empty_is_removed(tmp_path: Path) -> None:
    for name, existed, other in (("new", False, False), ("old", True, False), ("busy", False, True)):
        folder = tmp_path / name
        folder.mkdir()
        (folder / LOCK_NAME).write_text("1\n")
        if other:
            (folder / "report.json").write_text("{}")
        discard_if_unused(folder, existed)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["busy", "old"]


# report.html ----------------------------------------------------------------------------------------------


def test_report_html_opens_with_a_summary_bar_and_failing_rules_first() -> None:
    cases = [
        CaseResult("llmz/a/one", [NAMED[0]], "pass"),
        CaseResult("llmz/a/two", [NAMED[-1]], "fail", "broken"),
    ]
    page = html.render([_report(cases)], CATALOGUE)
    header = page[page.index("<header>") : page.index("</header>")]
    assert re.search(r'<div class="bar"><b>impl 1</b> · rules: .*1 rules failing or erroring', header)
    assert f'href="#verdict=fail,error&amp;open={NAMED[-1]}"' in header
    assert header.index('class="bar"') < header.index('class="runs"')
    rows = re.findall(r'<tr class="rule" data-id="([^"]+)"', page)
    assert rows[0] == NAMED[-1], "the failing rule comes before every passing one"
    assert f'data-id="{EXCLUDED[1]}" data-verdicts="excluded"' in page


def test_a_green_report_says_no_rule_fails() -> None:
    page = html.render([_report([CaseResult("llmz/a/one", [NAMED[0]], "pass")])], CATALOGUE)
    assert "no rule fails or errors" in page
