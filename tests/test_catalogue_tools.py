"""The catalogue tooling on throwaway trees: every kind of problem is found and named precisely."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from conftest import minimal_scenario

from conformance import originality
from conformance.catalogue import ledger
from conformance.catalogue.__main__ import main
from conformance.catalogue.check import check
from conformance.paths import SCHEMA_DIR


def rule(rule_id: str, **extra: Any) -> dict[str, Any]:
    system = rule_id.split(".")[0]
    since = {"llmz": "1.0.1", "falai": "4.0.0-alpha.10", "akan": "guideline"}[system]
    document = {
        "llmz": "llmz-1.0.2-DOCS.md",
        "falai": "falai-4.0.0-alpha.10-docs.md",
        "akan": "akan-in-page-agent-guideline.md",
    }[system]
    return {
        "id": rule_id,
        "title": "A test rule",
        "statement": "Something the implementation always does.",
        "level": "must",
        "source": {"document": document, "section": "Somewhere"},
        "since": since,
        "observable": "wire",
        **extra,
    }


def write_spec(root: Path, files: dict[str, list[dict[str, Any]]]) -> Path:
    for name, rules in files.items():
        system, area = name.split("/")
        path = root / system / f"{area}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(yaml.safe_dump({"system": system, "area": area, "rules": rules}, sort_keys=False))
    return root


@pytest.fixture
def tree(tmp_path: Path, scenario_tree: Any) -> dict[str, Path]:
    system = minimal_scenario()["system"]
    spec = write_spec(
        tmp_path / "spec",
        {
            f"{system}/harness": [rule(f"{system}.harness.test-rule"), rule(f"{system}.harness.other")],
            f"{system}/excluded": [rule(f"{system}.excluded.never", excluded="nothing observable")],
        },
    )
    scenarios = scenario_tree({"harness/one": minimal_scenario()})
    return {"spec": spec, "scenarios": scenarios, "ledger": tmp_path / "ids.txt", "out": tmp_path / "out"}


def run_main(tree: dict[str, Path], *extra: str) -> int:
    return main(
        [
            "--spec",
            str(tree["spec"]),
            "--scenarios",
            str(tree["scenarios"]),
            "--ledger",
            str(tree["ledger"]),
            "--out",
            str(tree["out"]),
            *extra,
        ]
    )


def test_traceability_counts_tested_untested_and_excluded(
    tree: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_main(tree, "--write-ledger") == 0
    system = minimal_scenario()["system"]
    output = capsys.readouterr().out
    assert f"{system}: 1 tested, 1 untested, 1 excluded of 3" in output.splitlines()
    trace = json.loads((tree["out"] / "traceability.json").read_text())
    jsonschema.validate(trace, json.loads((SCHEMA_DIR / "traceability.schema.json").read_text()))
    by_id = {r["id"]: r for r in trace["rules"]}
    assert by_id[f"{system}.harness.test-rule"]["scenarios"] == [f"{system}/harness/one"]
    assert by_id[f"{system}.harness.other"]["status"] == "untested"
    markdown = (tree["out"] / "traceability.md").read_text()
    assert markdown.splitlines()[2] == "**1 tested, 1 untested, 1 excluded of 3 rules.**"
    assert f"### {system}/harness" in markdown
    assert tree["ledger"].read_text().splitlines() == sorted(by_id)


def test_a_changed_id_fails_until_the_ledger_is_updated(
    tree: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_main(tree, "--write-ledger") == 0
    system = minimal_scenario()["system"]
    write_spec(
        tree["spec"],
        {f"{system}/harness": [rule(f"{system}.harness.test-rule"), rule(f"{system}.harness.rn")]},
    )
    assert run_main(tree) == 1
    err = capsys.readouterr().err
    assert f"{system}.harness.rn" in err and f"{system}.harness.other" in err and "--write-ledger" in err


def test_invalid_files_duplicates_and_unknown_rule_references_are_named(tree: dict[str, Path]) -> None:
    system = minimal_scenario()["system"]
    write_spec(
        tree["spec"],
        {
            f"{system}/broken": [rule(f"{system}.broken.a", levle="must"), rule(f"{system}.broken.b")],
            f"{system}/zdupe": [rule(f"{system}.harness.other")],
        },
    )
    scenario = minimal_scenario(
        rules=[f"{system}.nowhere.rule", f"{system}.excluded.never"],
        expect=[{"rule": f"{system}.nowhere.rule", "path": "final", "count": 0}],
    )
    path = tree["scenarios"] / system / "harness" / "ghost.yaml"
    path.write_text(yaml.safe_dump(scenario))
    (path.parent / "typo.yaml").write_text(yaml.safe_dump({**minimal_scenario(), "titel": "x"}))
    errors = check(tree["spec"], tree["scenarios"], tree["ledger"]).errors
    text = "\n".join(errors)
    assert "broken.yaml: field rules.0: Additional properties are not allowed ('levle'" in text, text
    assert "broken.yaml: field rules.0.levle: Extra inputs are not permitted" in text
    assert f"zdupe.yaml: field rules.id: duplicate id '{system}.harness.other'" in text
    assert f"'{system}.nowhere.rule' is not a catalogue rule id" in text
    assert f"'{system}.excluded.never' is excluded" in text
    assert "typo.yaml: field titel: Extra inputs are not permitted: unknown field" in text
    assert "typo.yaml: field (document): Additional properties are not allowed ('titel'" in text


def test_ledger_differences_name_added_and_removed_ids(tmp_path: Path) -> None:
    path = tmp_path / "ids.txt"
    ledger.write(["a.b", "a.c"], path)
    assert ledger.differences(["a.b", "a.c"], path) == []
    problems = ledger.differences(["a.b", "a.d"], path)
    assert "a.d" in problems[0] and "a.c" in problems[1] and "--write-ledger" in problems[-1]


def test_the_copy_detector_ignores_formatting_but_not_wording(tmp_path: Path) -> None:
    seed = tmp_path / "seed.md"
    seed.write_text("The quick **brown** fox jumps over the `lazy` dog and then\nruns far away.\n")
    index = originality.seed_index([seed])
    copied = tmp_path / "copied.yaml"
    copied.write_text("statement: >-\n  the QUICK brown fox jumps over\n  the lazy dog and then runs\n")
    reworded = tmp_path / "reworded.py"
    reworded.write_text("# a fast brown fox leaps over the lazy dog and afterwards runs far away\n")
    hits = originality.scan([copied, reworded], index)
    assert [(h.path.name, h.line) for h in hits] == [("copied.yaml", 2)]


def test_untested_rules_must_say_why_when_reasons_are_required(
    tree: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    system = minimal_scenario()["system"]
    assert run_main(tree, "--write-ledger") == 0
    assert run_main(tree, "--require-reasons") == 1
    assert f"{system}.harness.other" in capsys.readouterr().out
    reason = "the page model does not expose this yet"
    write_spec(
        tree["spec"],
        {
            f"{system}/harness": [
                rule(f"{system}.harness.test-rule"),
                rule(f"{system}.harness.other", untested=reason),
            ]
        },
    )
    assert run_main(tree, "--require-reasons") == 0
    trace = json.loads((tree["out"] / "traceability.json").read_text())
    assert {r["id"]: r["untested_reason"] for r in trace["rules"]}[f"{system}.harness.other"] == reason
    assert reason in (tree["out"] / "traceability.md").read_text()


def test_a_stale_untested_reason_and_a_doubly_explained_rule_are_errors(tree: dict[str, Path]) -> None:
    system = minimal_scenario()["system"]
    write_spec(
        tree["spec"],
        {
            f"{system}/harness": [
                rule(f"{system}.harness.test-rule", untested="nothing pins this, supposedly")
            ],
            f"{system}/both": [rule(f"{system}.both.rule", untested="not observable yet", excluded="never")],
        },
    )
    text = "\n".join(check(tree["spec"], tree["scenarios"], tree["ledger"]).errors)
    assert f"rule {system}.harness.test-rule: field untested says no scenario pins it" in text, text
    assert "either excluded (never checkable) or untested (not yet), not both" in text, text
