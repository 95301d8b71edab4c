"""The case timings ``run --jobs N`` orders its cases by (issue 26): the order itself, the cache file, and
a parallel run that reads them and still reports in scenario order."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import FAKES, minimal_scenario

from conformance import parallel, timings
from conformance.cli import main
from conformance.runner import CaseResult


def test_untimed_cases_go_first_then_the_slowest_ties_in_scenario_order() -> None:
    ids = ["a", "b", "c", "d", "e"]
    assert timings.longest_first(ids, {"a": 0.1, "b": 2.0, "d": 0.1, "e": 1.0}) == [2, 1, 4, 0, 3]
    assert timings.longest_first(ids, {}) == [0, 1, 2, 3, 4]


def test_saved_timings_are_read_back_and_merged_with_earlier_ones(tmp_path: Path) -> None:
    timings.save("llmz 1.0.1", [("a", 0.5), ("b", 1.25)], root=tmp_path)
    timings.save("llmz 1.0.1", [("b", 2.0)], root=tmp_path)
    assert timings.load("llmz 1.0.1", root=tmp_path) == {"a": 0.5, "b": 2.0}
    assert [p.name for p in tmp_path.iterdir()] == ["llmz_1.0.1.json"]


def test_a_name_cannot_leave_the_folder(tmp_path: Path) -> None:
    assert timings.path_for("../../etc/x", tmp_path).parent == tmp_path
    assert timings.path_for("..", tmp_path).parent == tmp_path
    long_a = timings.path_for("x" * 5000 + "a", tmp_path)
    long_b = timings.path_for("x" * 5000 + "b", tmp_path)
    assert long_a != long_b and len(long_a.name) <= 105
    timings.save("x" * 5000, [("case", 1.0)], root=tmp_path)
    assert timings.load("x" * 5000, root=tmp_path) == {"case": 1.0}


@pytest.mark.parametrize("text", ["{not json", '["a", 1]', '{"a": "slow", "b": -1, "c": true}'])
def test_an_unreadable_or_foreign_file_is_no_timings_and_is_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str
) -> None:
    timings.path_for("impl", tmp_path).write_text(text, encoding="utf-8")
    assert timings.load("impl", root=tmp_path) == {}
    if text.startswith("{not") or text.startswith("["):
        assert "impl.json" in capsys.readouterr().err


class _RecordingPool:
    """A stand-in pool that answers at once and remembers the order tasks were submitted in."""

    def __init__(self, items: list[Any]) -> None:
        self.items = items
        self.submitted: list[int] = []
        self._answers: dict[int, CaseResult] = {}

    def submit(self, key: int, task: int) -> None:
        self.submitted.append(task)
        self._answers[key] = CaseResult(self.items[task].id, [], "pass", "")

    def collect(self) -> dict[int, CaseResult]:
        answers, self._answers = self._answers, {}
        return answers


def test_cases_are_handed_out_longest_first_and_yielded_in_scenario_order() -> None:
    class Item:
        def __init__(self, case_id: str) -> None:
            self.id = case_id

    items = [Item(f"llmz/area/{name}") for name in "abcd"]
    pool = _RecordingPool(items)
    seconds = {"llmz/area/a": 0.1, "llmz/area/b": 0.2, "llmz/area/d": 2.5}
    played = list(parallel.play(pool, items, [0, 1, 3], {}, seconds))  # type: ignore[arg-type]
    assert pool.submitted == [3, 1, 0]
    assert [case.id for case in played] == ["llmz/area/a", "llmz/area/b", "llmz/area/d"]


def _counting_impl(tmp_path: Path) -> str:
    """A stdio implementation that notes every start of its process in a file, then plays as usual."""
    script = tmp_path / "counted.py"
    script.write_text(
        "import runpy, sys\n"
        f"with open({str(tmp_path / 'starts')!r}, 'a') as log:\n"
        "    log.write('started\\n')\n"
        f"sys.argv = [{str(FAKES / 'fake_impl.py')!r}, 'good']\n"
        "runpy.run_path(sys.argv[0], run_name='__main__')\n",
        encoding="utf-8",
    )
    return f"stdio:{sys.executable} {script}"


def test_a_parallel_run_greets_a_workers_implementation_and_starts_none_of_its_own(
    scenario_tree: Callable[[dict[str, Any]], Path], tmp_path: Path
) -> None:
    """Before, the harness started a copy of the implementation for the hello and closed it again; now
    the hello is the first worker's, so two workers mean two starts (and the timings of the run are
    kept under the implementation's name)."""
    root = scenario_tree({f"area/case-{n}": minimal_scenario() for n in range(5)})
    out = tmp_path / "out"
    status = main(
        ["run", "--scenarios", str(root), "--report-dir", str(out), "--impl", _counting_impl(tmp_path),
         "--jobs", "2"]
    )  # fmt: skip
    assert status == 0
    assert (tmp_path / "starts").read_text(encoding="utf-8").count("started") == 2
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    name = report["implementation"]["name"]
    saved = timings.load(name)
    assert {s["id"] for s in report["scenarios"]} <= set(saved)
