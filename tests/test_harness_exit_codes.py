"""Exit codes that mean something: selecting nothing is a usage error; playing nothing is not green."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import FAKES, PYTHON, minimal_scenario

from conformance.cli import main


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(["run", *argv])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


@pytest.fixture
def old_report(tmp_path: Path) -> Path:
    directory = tmp_path / "reports"
    directory.mkdir()
    (directory / "report.json").write_text('{"an": "earlier report"}\n')
    return directory


def _untouched(directory: Path) -> bool:
    return (directory / "report.json").read_text() == '{"an": "earlier report"}\n'


@pytest.mark.parametrize(
    ("make_root", "says"),
    [
        (lambda tmp: tmp / "nonexistent", "does not exist"),
        (lambda tmp: (tmp / "empty").mkdir() or tmp / "empty", "holds no .yaml files"),
    ],
    ids=["missing-folder", "empty-folder"],
)
def test_no_scenario_folder_is_a_usage_error_and_the_report_is_untouched(
    make_root: Any, says: str, tmp_path: Path, old_report: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, output = _run(capsys, "--scenarios", str(make_root(tmp_path)), "--report-dir", str(old_report))
    assert code == 2
    assert says in output and "<root>/<system>/<area>/<name>.yaml" in output
    assert _untouched(old_report)


def test_a_folder_without_system_folders_names_the_expected_layout(
    scenario_tree: Any, old_report: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = scenario_tree({"area/one": minimal_scenario()})
    system_folder = root / minimal_scenario()["system"]
    code, output = _run(capsys, "--scenarios", str(system_folder), "--report-dir", str(old_report))
    assert code == 2 and "no system folder" in output and "Point --scenarios" in output
    assert _untouched(old_report)


def test_a_keyword_that_matches_nothing_is_a_usage_error(
    old_report: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, output = _run(capsys, "-k", "nomatch-at-all", "--report-dir", str(old_report))
    assert code == 2 and "-k 'nomatch-at-all'" in output
    assert _untouched(old_report)


def test_scenarios_only_of_systems_the_implementation_lacks_are_a_usage_error(
    scenario_tree: Any, old_report: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = minimal_scenario()
    other = next(s for s in ("llmz", "falai", "akan") if s != document["system"])
    root = scenario_tree({"area/one": document})
    impl = f"stdio:{PYTHON} {FAKES / 'fake_impl.py'} good {other}"
    code, output = _run(capsys, "--scenarios", str(root), "--impl", impl, "--report-dir", str(old_report))
    assert code == 2 and "belongs to a system" in output
    assert _untouched(old_report)


def test_an_implementation_that_skips_everything_is_not_green(
    scenario_tree: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = scenario_tree({"area/fake-skip": minimal_scenario(), "area/b-fake-skip": minimal_scenario()})
    impl = f"stdio:{PYTHON} {FAKES / 'fake_impl.py'} skip"
    code, output = _run(capsys, "--scenarios", str(root), "--impl", impl, "--report-dir", str(tmp_path / "o"))
    assert code == 1
    assert "NOT GREEN: nothing was played" in output
    assert output.rstrip().splitlines()[-1] == "0 passed, 0 failed, 0 errored, 2 skipped"


def test_a_run_that_played_something_and_passed_exits_0(
    scenario_tree: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = scenario_tree({"area/ok": minimal_scenario(), "area/fake-skip": minimal_scenario()})
    impl = f"stdio:{PYTHON} {FAKES / 'fake_impl.py'} good"
    code, _ = _run(capsys, "--scenarios", str(root), "--impl", impl, "--report-dir", str(tmp_path / "o"))
    assert code == 0
