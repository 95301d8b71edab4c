"""``python -m conformance run`` end to end, against fake implementations and throwaway scenario trees."""

from __future__ import annotations

import json
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import fake_command, minimal_scenario
from fakes.fake_impl import minimal_record

from conformance.cli import main
from conformance.paths import SCHEMA_DIR


def run(
    capsys: pytest.CaptureFixture[str], root: Path, out: Path, *args: str
) -> tuple[int, str, dict[str, Any]]:
    code = main(["run", "--scenarios", str(root), "--report-dir", str(out), "--timeout", "2", *args])
    captured = capsys.readouterr()
    report_path = out / "report.json"
    report = json.loads(report_path.read_text()) if report_path.exists() else {}
    return code, captured.out + captured.err, report


def verdicts(report: dict[str, Any]) -> dict[str, str]:
    return {s["id"]: s["verdict"] for s in report["scenarios"]}


def test_a_typo_in_one_file_is_an_error_naming_file_and_field_while_the_others_run(
    scenario_tree: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = minimal_scenario()
    typo = {**minimal_scenario(), "expectt": []}
    root = scenario_tree({"area/good": good, "area/typo": typo})
    code, output, report = run(capsys, root, tmp_path / "out", "--impl", fake_command("fake_impl.py"))
    system = good["system"]
    assert verdicts(report) == {f"{system}/area/good": "pass", f"{system}/area/typo": "error"}
    message = next(s["message"] for s in report["scenarios"] if s["verdict"] == "error")
    assert "typo.yaml" in message and "expectt" in message
    assert code == 1
    assert output.rstrip().splitlines()[-1] == "1 passed, 0 failed, 1 errored, 0 skipped"


def test_a_hanging_implementation_times_out_and_the_run_completes(
    scenario_tree: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = scenario_tree({"area/one": minimal_scenario(), "area/two": minimal_scenario()})
    started = time.monotonic()
    code, _, report = run(
        capsys, root, tmp_path / "out", "--impl", fake_command("hang.py"), "--timeout", "0.5"
    )
    assert time.monotonic() - started < 15, "two 0.5s timeouts (plus restarts), far below the 30s default"
    assert code == 1
    assert set(verdicts(report).values()) == {"error"}
    assert all("timeout" in s["message"] for s in report["scenarios"])


def test_garbage_and_crashes_are_errors_and_later_cases_still_pass(
    scenario_tree: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = scenario_tree(
        {
            "area/a-fake-crash": minimal_scenario(),
            "area/b-fake-garbage": minimal_scenario(),
            "area/c-fine": minimal_scenario(),
        }
    )
    code, output, report = run(capsys, root, tmp_path / "out", "--impl", fake_command("crash.py"))
    system = minimal_scenario()["system"]
    assert verdicts(report) == {
        f"{system}/area/a-fake-crash": "error",
        f"{system}/area/b-fake-garbage": "error",
        f"{system}/area/c-fine": "pass",
    }
    assert code == 1 and "crashing on purpose" in output


def test_a_failing_expectation_is_a_fail_naming_the_rule(
    scenario_tree: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = minimal_scenario()
    rule = document["rules"][0]
    document["expect"] = [{"rule": rule, "path": "final.status", "equals": "broken"}]
    root = scenario_tree({"area/wrong": document})
    code, output, report = run(capsys, root, tmp_path / "out", "--impl", fake_command("fake_impl.py"))
    case = report["scenarios"][0]
    assert (case["verdict"], case["failing_rules"]) == ("fail", [rule])
    assert f"[{rule}]" in case["message"] and '"broken"' in case["message"]
    assert {r["id"]: r["verdict"] for r in report["rules"]}[rule] == "fail"
    assert code == 1 and output.rstrip().endswith("0 passed, 1 failed, 0 errored, 0 skipped")


def test_missing_capabilities_and_systems_asked_for_are_skips_with_reasons(
    scenario_tree: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = minimal_scenario()
    system = document["system"]
    other = next(s for s in ("llmz", "falai", "akan") if s != system)
    root = scenario_tree(
        {
            "area/needs": {**document, "requires": ["teleportation"]},
            "area/has": {**document, "requires": ["fake-capability"]},
        }
    )
    impl = fake_command("fake_impl.py", "good", system)
    code, _, report = run(capsys, root, tmp_path / "out", "--impl", impl)
    messages = {s["id"].rsplit("/", 1)[1]: (s["verdict"], s["message"]) for s in report["scenarios"]}
    assert messages["has"] == ("pass", "")
    assert messages["needs"][0] == "skip" and "'teleportation'" in messages["needs"][1]
    assert code == 0
    impl_without = fake_command("fake_impl.py", "good", other)
    code, output, report = run(capsys, root, tmp_path / "out2", "--impl", impl_without)
    assert (code, report) == (2, {}), "by default a run covers only the systems the implementation declares"
    assert "belongs to a system" in output
    _, _, report = run(capsys, root, tmp_path / "out3", "--impl", impl_without, "--system", system)
    assert {s["verdict"] for s in report["scenarios"]} == {"skip"}, "a system asked for by name is skipped"
    assert all(f"does not implement {system}" in s["message"] for s in report["scenarios"])


def test_filters_by_keyword_and_system(
    scenario_tree: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = scenario_tree({"area/alpha": minimal_scenario(), "area/beta": minimal_scenario()})
    _, _, report = run(capsys, root, tmp_path / "out", "--impl", "python:fakes.pyimpl:make", "-k", "alpha")
    assert [s["id"].rsplit("/", 1)[1] for s in report["scenarios"]] == ["alpha"]
    system = minimal_scenario()["system"]
    other = next(s for s in ("llmz", "falai", "akan") if s != system)
    code, output, report = run(
        capsys, root, tmp_path / "out2", "--impl", "python:fakes.pyimpl:make", "--system", other
    )
    assert (code, report) == (2, {}), "a selection of nothing is a usage error and writes no report"
    assert f"--system {other}" in output


def test_reports_are_written_and_report_json_fits_its_schema(
    scenario_tree: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = scenario_tree(
        {
            "area/ok": minimal_scenario(),
            "area/fake-skip": minimal_scenario(),
            "area/fake-crash": minimal_scenario(),
        }
    )
    out = tmp_path / "out"
    code, _, report = run(capsys, root, out, "--impl", "python:fakes.pyimpl:make")
    schema = json.loads((SCHEMA_DIR / "report.schema.json").read_text())
    jsonschema.validate(report, schema)
    assert report["implementation"]["name"] == "fake-python"
    assert report["summary"] | {} == {
        **report["summary"],
        "passed": 1,
        "errored": 1,
        "skipped": 1,
        "failed": 0,
    }
    suite = ET.parse(out / "junit.xml").getroot().find("testsuite")
    assert suite is not None
    cases = suite.findall("testcase")
    system = minimal_scenario()["system"]
    assert len(cases) == 3 and {c.get("classname") for c in cases} == {f"{system}/area"}
    assert suite.get("errors") == "1" and suite.get("skipped") == "1"
    markdown = (out / "report.md").read_text()
    assert (
        markdown.startswith("# Conformance report: fake-python")
        and f"`{system}.harness.test-rule`" in markdown
    )
    assert code == 1


def test_the_default_report_directory_is_named_after_the_implementations_hello_name(
    scenario_tree: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("conformance.cli.BUILD_ROOT", tmp_path / "build")
    root = scenario_tree({"area/ok": minimal_scenario()})
    assert main(["run", "--scenarios", str(root), "--impl", "python:fakes.pyimpl:make"]) == 0
    assert "reports: " + str(tmp_path / "build" / "conformance" / "fake-python") in capsys.readouterr().out
    assert (tmp_path / "build" / "conformance" / "fake-python" / "report.json").exists()


@pytest.mark.parametrize("impl", ["no-such-preset", "reference[no-such-mutant]", "python:nowhere:make"])
def test_an_unknown_implementation_exits_2_with_a_message(
    impl: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(["run", "--impl", impl, "--scenarios", str(tmp_path), "--report-dir", str(tmp_path / "o")]) == 2
    )
    assert "error:" in capsys.readouterr().err


def test_list_mutants_names_each_mutant_and_the_rules_it_breaks(capsys: pytest.CaptureFixture[str]) -> None:
    from variants import all_mutants, all_permitted

    assert main(["list-mutants"]) == 0
    lines = capsys.readouterr().out.splitlines()
    mutants, permitted = all_mutants(), all_permitted()
    assert lines[-1] == f"{len(mutants)} mutants, {len(permitted)} permitted variants"
    for name, mutant in mutants.items():
        assert any(line.startswith(f"{name}: breaks {mutant.rules[0]}") for line in lines)
    for name, variant in permitted.items():
        assert any(line.startswith(f"{name}: permitted, exercises {variant.exercises[0]}") for line in lines)


def test_check_mutants_k_checks_only_the_variants_it_names(capsys: pytest.CaptureFixture[str]) -> None:
    from variants import all_mutants, all_permitted

    named = [m for m in all_mutants().values() if any("chat-guard" in text for text in (m.name, *m.rules))]
    assert named, "no mutant breaks a chat-guard rule: choose another keyword"
    assert main(["check-mutants", "--system", "llmz", "-k", "chat-guard"]) == 0
    out = capsys.readouterr().out
    assert f"mutants: {len(named)}/{len(named)} caught" in out
    assert all(name in out for name in (m.name for m in named))
    others = [name for name in all_mutants() if name not in {m.name for m in named}]
    assert not any(f" {name}\n" in out + "\n" for name in others)
    assert not any(v.name in out for v in all_permitted().values() if v.system != "llmz")
    assert main(["check-mutants", "-k", "no-such-variant-anywhere"]) == 2
    assert "no mutant or permitted variant matches -k 'no-such-variant-anywhere'" in capsys.readouterr().err


def test_an_adapter_that_raises_costs_one_case_not_the_run() -> None:
    from conformance.adapters.base import Outcome
    from conformance.protocol import ImplementationInfo
    from conformance.runner import run_all
    from conformance.scenario.load import LoadedScenario, scenario_id
    from conformance.scenario.model import parse_scenario

    class Flaky:
        calls = 0

        def hello(self) -> ImplementationInfo:
            return ImplementationInfo(
                name="flaky", version="1", language="x", systems=["llmz", "falai", "akan"]
            )

        def run(self, payload: dict[str, Any], timeout: float) -> Outcome:
            self.calls += 1
            if self.calls == 1:
                raise RuntimeError("adapter bug")
            return Outcome(record=minimal_record(payload["system"]))

        def close(self) -> None:
            return None

    document = minimal_scenario()
    root = Path("/virtual")
    items = [
        LoadedScenario(
            scenario_id(root / f"{document['system']}/a/{n}.yaml", root),
            root,
            document,
            parse_scenario(document),
        )
        for n in ("one", "two")
    ]
    _, cases = run_all(Flaky(), items)
    assert [c.verdict for c in cases] == ["error", "pass"]
    assert "RuntimeError: adapter bug" in cases[0].message
