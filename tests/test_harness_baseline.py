"""Expected-failures baselines: covered failures become xfail, stale and unknown entries fail the run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from conftest import minimal_scenario
from pydantic import ValidationError

from conformance import baseline
from conformance.cli import main
from conformance.paths import REPO_ROOT
from conformance.runner import CaseResult


def case(cid: str, verdict: str, rules: list[str], failing: list[str] | None = None) -> CaseResult:
    return CaseResult(cid, rules, verdict, "msg", failing or [])


def entries(*ids: str) -> list[baseline.Entry]:
    return [baseline.Entry(id=i, reason=f"known: {i}") for i in ids]


def test_a_fail_is_covered_by_its_scenario_or_by_all_of_its_failing_rules() -> None:
    cases = [
        case("s/a/1", "fail", ["r.a", "r.b"], ["r.a"]),
        case("s/a/2", "fail", ["r.a", "r.b"], ["r.a", "r.b"]),
    ]
    problems = baseline.apply(cases, entries("r.a"), {"r.a", "r.b", "s/a/1", "s/a/2"})
    assert [c.verdict for c in cases] == ["xfail", "fail"]
    assert cases[0].expected_failure == "known: r.a" and problems == []


def test_an_error_is_covered_by_any_of_its_rules() -> None:
    cases = [case("s/a/1", "error", ["r.a", "r.b"])]
    assert baseline.apply(cases, entries("r.b"), {"r.a", "r.b", "s/a/1"}) == []
    assert cases[0].verdict == "xfail"


def test_an_entry_whose_cases_pass_is_stale() -> None:
    cases = [case("s/a/1", "pass", ["r.a"]), case("s/a/2", "fail", ["r.a", "r.b"], ["r.b"])]
    problems = baseline.apply(cases, entries("r.a", "s/a/1"), {"r.a", "r.b", "s/a/1", "s/a/2"})
    assert sorted((p.id, p.kind) for p in problems) == [("r.a", "stale"), ("s/a/1", "stale")]
    assert "remove it" in problems[0].message


def test_skipped_or_unselected_cases_do_not_make_an_entry_stale() -> None:
    cases = [case("s/a/1", "skip", ["r.a"])]
    assert baseline.apply(cases, entries("r.a", "s/a/9"), {"r.a", "s/a/1", "s/a/9"}) == []


def test_an_entry_naming_nothing_known_is_an_error() -> None:
    problems = baseline.apply([], entries("r.typo"), {"r.a"})
    assert [(p.id, p.kind) for p in problems] == [("r.typo", "unknown")]


def test_a_malformed_baseline_names_file_entry_and_field(tmp_path: Path) -> None:
    path = tmp_path / "b.yaml"
    path.write_text("- id: r.a\n  reason: fine\n- id: r.b\n  reasn: typo\n")
    with pytest.raises(baseline.BaselineError, match=r"b\.yaml: entry 1: .*reas"):
        baseline.load(path)
    path.write_text("id: r.a\n")
    with pytest.raises(baseline.BaselineError, match="expected a list"):
        baseline.load(path)


def _run(
    root: Path, tmp_path: Path, content: str, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str, Any]:
    path = tmp_path / "baseline.yaml"
    path.write_text(content)
    out = tmp_path / "out"
    code = main(
        [
            "run",
            "--scenarios",
            str(root),
            "--report-dir",
            str(out),
            "--impl",
            "python:fakes.pyimpl:make",
            "--expected-failures",
            str(path),
        ]
    )
    captured = capsys.readouterr()
    return code, captured.out + captured.err, json.loads((out / "report.json").read_text())


def test_cli_expected_failures_exit_0_and_stale_entries_fail_the_run(
    scenario_tree: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = scenario_tree({"area/fake-crash": minimal_scenario(), "area/ok": minimal_scenario()})
    system = minimal_scenario()["system"]
    entry = f"- id: {system}/area/fake-crash\n  reason: known crash\n"
    code, output, report = _run(root, tmp_path, entry, capsys)
    assert code == 0 and report["summary"]["xfailed"] == 1 and report["ok"] is True
    assert output.rstrip().splitlines()[-1] == "1 passed, 0 failed, 0 errored, 0 skipped"
    code, output, report = _run(
        root, tmp_path, f"- id: {system}/area/ok\n  reason: was broken once\n", capsys
    )
    assert code == 1 and f"'{system}/area/ok' is stale" in output
    assert report["baseline"][0]["problem"] == "stale"
    code, output, _ = _run(root, tmp_path, "- {id: nothing.like.this, reason: typo}\n", capsys)
    assert code == 1 and "names no rule or scenario" in output


def test_an_entry_saying_how_its_case_fails_is_checked_against_the_run() -> None:
    known = {"r.a", "r.b", "s/a/1"}
    holds = baseline.Entry(id="s/a/1", reason="fails on r.a", fails=("r.a",))
    still = [case("s/a/1", "fail", ["r.a", "r.b"], ["r.a", "r.b"])]
    assert baseline.apply(still, [holds], known) == []
    moved = [case("s/a/1", "fail", ["r.a", "r.b"], ["r.b"])]
    problems = baseline.apply(moved, [holds], known)
    assert [(p.id, p.kind) for p in problems] == [("s/a/1", "changed")]
    assert "says the case fails on r.a, but it now fails on r.b" in problems[0].message
    assert moved[0].verdict == "xfail"  # still covered; the run fails on the changed reason instead


def test_an_entry_expecting_an_error_is_changed_when_the_case_fails_instead() -> None:
    entry = baseline.Entry(id="s/a/1", reason="hangs", error="did not settle")
    erroring = [CaseResult("s/a/1", ["r.a"], "error", "execute() did not settle within 2500 ms")]
    assert baseline.apply(erroring, [entry], {"r.a", "s/a/1"}) == []
    failing = [case("s/a/1", "fail", ["r.a"], ["r.a"])]
    assert [p.kind for p in baseline.apply(failing, [entry], {"r.a", "s/a/1"})] == ["changed"]


def test_an_entry_cannot_expect_both_rules_and_an_error() -> None:
    with pytest.raises(ValueError, match="not both"):
        baseline.Entry(id="s/a/1", reason="x", fails=("r.a",), error="boom")


def test_a_timing_dependent_entry_accepts_its_rules_or_its_named_error_and_nothing_else() -> None:
    known = {"r.a", "s/a/1"}
    entry = baseline.Entry(id="s/a/1", reason="races", fails=("r.a",), or_error="did not settle")
    failing = [case("s/a/1", "fail", ["r.a"], ["r.a"])]
    assert baseline.apply(failing, [entry], known) == []
    hanging = [CaseResult("s/a/1", ["r.a"], "error", "execute() did not settle within 2500 ms")]
    assert baseline.apply(hanging, [entry], known) == []
    crashed = [CaseResult("s/a/1", ["r.a"], "error", "the implementation exited (SIGSEGV)")]
    assert [p.kind for p in baseline.apply(crashed, [entry], known)] == ["changed"]
    with pytest.raises(ValueError, match="give fails too"):
        baseline.Entry(id="s/a/1", reason="x", or_error="did not settle")


BASELINE_SCHEMA = REPO_ROOT / "spec" / "schema" / "baseline.schema.json"

#: (entry, does the loader accept it): the published schema must say the same of each.
SCHEMA_CASES = [
    ({"id": "llmz.x.y", "reason": "why"}, True),
    ({"id": "llmz/a/b", "reason": "why", "fails": ["llmz.x.y"]}, True),
    ({"id": "llmz/a/b", "reason": "why", "error": "timed out"}, True),
    ({"id": "llmz/a/b", "reason": "why", "fails": ["llmz.x.y"], "or_error": "memory"}, True),
    ({"id": "llmz/a/b", "reason": "why", "fails": [], "error": "timed out"}, True),
    ({"id": "llmz/a/b"}, False),
    ({"id": "", "reason": "why"}, False),
    ({"id": "llmz/a/b", "reason": "why", "because": "typo"}, False),
    ({"id": "llmz/a/b", "reason": "why", "fails": ["llmz.x.y"], "error": "both"}, False),
    ({"id": "llmz/a/b", "reason": "why", "or_error": "memory"}, False),
    ({"id": "llmz/a/b", "reason": "why", "error": ""}, False),
]


@pytest.mark.parametrize(("entry", "accepted"), SCHEMA_CASES)
def test_published_schema_and_loader_agree_on_each_entry(entry: dict[str, object], accepted: bool) -> None:
    schema = json.loads(BASELINE_SCHEMA.read_text(encoding="utf-8"))
    schema_says = jsonschema.Draft202012Validator(schema).is_valid([entry])
    try:
        baseline.Entry.model_validate(entry)
        loader_says = True
    except ValidationError:
        loader_says = False
    assert (schema_says, loader_says) == (accepted, accepted), entry


def test_published_schema_accepts_the_shipped_baselines() -> None:
    schema = json.loads(BASELINE_SCHEMA.read_text(encoding="utf-8"))
    for path in (REPO_ROOT / "conformance" / "baselines").glob("*.yaml"):
        jsonschema.Draft202012Validator(schema).validate(yaml.safe_load(path.read_text(encoding="utf-8")))
