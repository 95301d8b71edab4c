"""The pytest plugin: one item per scenario, rule ids as markers and keywords, -k/-x/--lf/xdist work."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import FAKES, minimal_scenario


@dataclass
class Done:
    returncode: int
    stdout: str


@pytest.fixture
def pytest_run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Done]:
    """Run pytest in-process (fast); ``subprocess=True`` for what needs real processes (xdist)."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(FAKES.parent), os.environ.get("PYTHONPATH", "")]))

    def run(_cwd: Path, *args: str, subprocess: bool = False) -> Done:
        if subprocess:
            result = pytester.runpytest_subprocess(*args, timeout=120)
        else:
            result = pytester.runpytest_inprocess(*args)
        return Done(int(result.ret), "\n".join(result.outlines))

    return run


@pytest.fixture
def suite(scenario_tree: Any, tmp_path: Path) -> tuple[Path, str]:
    system = minimal_scenario()["system"]
    broken = minimal_scenario(
        rules=[f"{system}.harness.other"],
        expect=[{"rule": f"{system}.harness.other", "path": "final.status", "equals": "no"}],
    )
    root = scenario_tree(
        {"area/a-good": minimal_scenario(), "area/b-bad": broken, "area/c-good": minimal_scenario()}
    )
    return root, system


def base_args(root: Path) -> list[str]:
    return ["--conformance-impl", "python:fakes.pyimpl:make", "--conformance-scenarios", str(root), "-rA"]


def test_each_scenario_is_an_item_named_by_its_id(
    suite: tuple[Path, str], tmp_path: Path, pytest_run: Callable[..., Done]
) -> None:
    root, system = suite
    done = pytest_run(tmp_path, *base_args(root), "--co", "-q")
    ids = [line for line in done.stdout.splitlines() if line.startswith(f"{system}/")]
    assert ids == [f"{system}/area/a-good", f"{system}/area/b-bad", f"{system}/area/c-good"], done.stdout


def test_verdicts_become_outcomes_and_the_failure_names_the_rule(
    suite: tuple[Path, str], tmp_path: Path, pytest_run: Callable[..., Done]
) -> None:
    root, system = suite
    done = pytest_run(tmp_path, *base_args(root))
    assert done.returncode == 1
    assert "2 passed" in done.stdout and "1 failed" in done.stdout
    assert f"[{system}.harness.other]" in done.stdout


def test_k_selects_by_rule_id_and_x_stops_at_the_first_failure(
    suite: tuple[Path, str], tmp_path: Path, pytest_run: Callable[..., Done]
) -> None:
    root, system = suite
    by_rule = pytest_run(tmp_path, *base_args(root), "-k", f"{system}.harness.other")
    assert "1 failed, 2 deselected" in by_rule.stdout, by_rule.stdout
    stopped = pytest_run(tmp_path, *base_args(root), "-x")
    assert "1 passed" in stopped.stdout and "1 failed" in stopped.stdout and "c-good" not in stopped.stdout


def test_last_failed_reruns_only_the_failure(
    suite: tuple[Path, str], tmp_path: Path, pytest_run: Callable[..., Done]
) -> None:
    root, _ = suite
    pytest_run(tmp_path, *base_args(root))
    rerun = pytest_run(tmp_path, *base_args(root), "--lf")
    assert "1 failed, 2 deselected" in rerun.stdout, rerun.stdout


def test_rule_markers_select_with_m(
    suite: tuple[Path, str], tmp_path: Path, pytest_run: Callable[..., Done]
) -> None:
    root, _ = suite
    done = pytest_run(tmp_path, *base_args(root), "--co", "-q", "-m", "rule")
    assert "3 tests collected" in done.stdout, done.stdout


def test_expected_failures_become_strict_xfails(
    suite: tuple[Path, str], tmp_path: Path, pytest_run: Callable[..., Done]
) -> None:
    root, system = suite
    path = tmp_path / "baseline.yaml"
    path.write_text(
        f"- {{id: {system}/area/b-bad, reason: known}}\n- {{id: {system}/area/c-good, reason: stale}}\n"
    )
    done = pytest_run(tmp_path, *base_args(root), "--conformance-expected-failures", str(path))
    assert "1 xfailed" in done.stdout and "XPASS(strict)" in done.stdout and done.returncode == 1, done.stdout


def test_xdist_runs_the_suite_in_workers(
    suite: tuple[Path, str], tmp_path: Path, pytest_run: Callable[..., Done]
) -> None:
    root, _ = suite
    done = pytest_run(tmp_path, *base_args(root), "-n", "2", subprocess=True)
    assert "2 passed" in done.stdout and "1 failed" in done.stdout, done.stdout


def test_without_the_option_the_plugin_stays_out_of_the_way(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_plain="def test_plain():\n    assert True\n")
    result = pytester.runpytest_inprocess("-q")
    result.assert_outcomes(passed=1)


def test_a_scenario_that_does_not_load_is_a_failing_item_naming_the_field(
    scenario_tree: Any, pytester: pytest.Pytester
) -> None:
    root = scenario_tree({"area/typo": {**minimal_scenario(), "stepz": []}, "area/fine": minimal_scenario()})
    result = pytester.runpytest_inprocess(*base_args(root))
    result.assert_outcomes(passed=1, failed=1)
    assert any("typo.yaml" in line and "stepz" in line for line in result.outlines)
