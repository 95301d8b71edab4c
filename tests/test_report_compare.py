"""`compare OLD NEW`: regressions, fixes and changes of rules and scenarios, and an exit status CI can use."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.cli import main
from conformance.protocol import ImplementationInfo
from conformance.report.build import build_report
from conformance.report.compare import compare, render
from conformance.report.model import Report
from conformance.runner import CaseResult

RULES = {"llmz/a/one": ["llmz.a.one"], "llmz/a/two": ["llmz.a.two"], "llmz/a/three": ["llmz.a.three"]}


def report(verdicts: dict[str, str], name: str = "impl", systems: tuple[str, ...] = ("llmz",)) -> Report:
    cases = [
        CaseResult(
            case_id,
            RULES.get(case_id, [case_id.replace("/", ".")]),
            verdict,
            message=f"{verdict} because",
            expected_failure="known in 1.0" if verdict == "xfail" else None,
        )
        for case_id, verdict in verdicts.items()
    ]
    info = ImplementationInfo(name=name, version="1", language="python", systems=list(systems))
    return build_report(name, info, cases, [rule for ids in RULES.values() for rule in ids])


def write(report_: Report, path: Path) -> Path:
    path.write_text(report_.model_dump_json(), encoding="utf-8")
    return path


def test_pass_to_fail_is_an_unexplained_regression_and_pass_to_xfail_an_explained_one() -> None:
    old = report({"llmz/a/one": "pass", "llmz/a/two": "pass", "llmz/a/three": "pass"})
    new = report({"llmz/a/one": "fail", "llmz/a/two": "xfail", "llmz/a/three": "pass"})
    result = compare(old, new)
    assert {(c.kind, c.id, c.new) for c in result.regressed} == {
        ("rule", "llmz.a.one", "fail"), ("scenario", "llmz/a/one", "fail"),
        ("rule", "llmz.a.two", "xfail"), ("scenario", "llmz/a/two", "xfail"),
    }  # fmt: skip
    assert {c.id for c in result.unexplained} == {"llmz.a.one", "llmz/a/one"}
    text = "\n".join(render(result))
    assert "llmz.a.two: pass -> xfail [explained by the baseline]" in text
    assert "known in 1.0" in text
    assert text.splitlines()[-1] == (
        "rules: 2 regressed (1 unexplained, 1 explained by the baseline), 0 fixed, 0 changed; "
        "scenarios: 2 regressed (1 unexplained, 1 explained by the baseline), 0 fixed, 0 changed"
    )


def test_rules_and_scenarios_are_counted_separately() -> None:
    """One rule named by three scenarios: three scenarios regress, but one rule does (issue 24)."""
    ids = {"llmz/a/x-1": "pass", "llmz/a/x-2": "pass", "llmz/a/x-3": "pass"}
    old, new = shared_rule_report(ids), shared_rule_report({case: "fail" for case in ids})
    last = render(compare(old, new))[-1]
    assert last.startswith("rules: 1 regressed (1 unexplained, 0 explained")
    assert "scenarios: 3 regressed (3 unexplained, 0 explained" in last


def shared_rule_report(verdicts: dict[str, str]) -> Report:
    cases = [CaseResult(case_id, ["llmz.a.x"], verdict) for case_id, verdict in verdicts.items()]
    info = ImplementationInfo(name="impl", version="1", language="python", systems=["llmz"])
    return build_report("impl", info, cases, ["llmz.a.x"])


def test_fixed_and_changed_are_told_apart() -> None:
    old = report({"llmz/a/one": "fail", "llmz/a/two": "fail"})
    new = report({"llmz/a/one": "pass", "llmz/a/two": "error"})
    result = compare(old, new)
    assert {c.id for c in result.fixed} == {"llmz.a.one", "llmz/a/one"}
    assert {c.id for c in result.changed} == {"llmz.a.two", "llmz/a/two"}
    assert not result.regressed


def test_only_systems_both_runs_covered_are_compared() -> None:
    old = report({"llmz/a/one": "pass", "falai/x/y": "pass"}, systems=("llmz", "falai"))
    new = report({"llmz/a/one": "pass"})
    result = compare(old, new)
    assert result.systems == ["llmz"] and not result.regressed
    assert "falai: only in OLD, not compared" in result.notes


def test_different_catalogues_are_pointed_out() -> None:
    old, new = report({"llmz/a/one": "pass"}), report({"llmz/a/one": "pass"})
    new.run.catalogue_digest = "0" * 64
    assert any("different catalogues" in note for note in compare(old, new).notes)


@pytest.mark.parametrize(
    ("new_verdicts", "code"),
    [({"llmz/a/one": "pass"}, 0), ({"llmz/a/one": "xfail"}, 0), ({"llmz/a/one": "fail"}, 1),
     ({"llmz/a/one": "skip"}, 1)],
)  # fmt: skip
def test_exit_status_is_1_only_for_an_unexplained_regression(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], new_verdicts: dict[str, str], code: int
) -> None:
    old = write(report({"llmz/a/one": "pass"}), tmp_path / "old.json")
    new = write(report(new_verdicts), tmp_path / "new.json")
    assert main(["compare", str(old), str(new)]) == code
    assert capsys.readouterr().out.splitlines()[-1].endswith("changed")


def test_an_unreadable_report_exits_2_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = write(report({"llmz/a/one": "pass"}), tmp_path / "good.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"summary": {}}', encoding="utf-8")
    assert main(["compare", str(good), str(bad)]) == 2
    assert str(bad) in capsys.readouterr().err
