"""The benchmark times whole runs by CPU in interleaved pairs and separates start-up from per-case cost."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import minimal_scenario

from conformance.bench import interleaved, main, per_case


def test_per_case_and_start_up_are_separated() -> None:
    each, startup = per_case(all_cpu=3.0, one_cpu=1.02, count=100)
    assert each == pytest.approx(0.02) and startup == pytest.approx(1.0)


def test_pairs_alternate_and_ratios_are_per_pair(tmp_path: Path) -> None:
    log = tmp_path / "order.txt"
    argv = ["python3", "-c", f"open({str(log)!r}, 'a').write('X')"]
    figures, ratios = interleaved(
        {"a": [*argv[:-1], argv[-1].replace("X", "a")], "b": [*argv[:-1], argv[-1].replace("X", "b")]},
        3,
        tmp_path,
    )
    assert log.read_text() == "abbaab"
    assert len(figures["a"].cpu) == len(figures["b"].cpu) == len(ratios) == 3


def test_bench_reports_the_figures_and_writes_json(
    scenario_tree: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = scenario_tree({"area/one": minimal_scenario(), "area/two": minimal_scenario()})
    out = tmp_path / "bench.json"
    assert main(["--repeat", "1", "--scenarios", str(root), "--out", str(out), "--no-bridge"]) == 0
    text = capsys.readouterr().out
    system = minimal_scenario()["system"]
    assert re.search(r"^suite in-process: 2 scenarios, [\d.]+s CPU", text, re.M), text
    assert re.search(rf"^{system} +stdio/in-process, with start-up: [\d.]+x CPU", text, re.M), text
    written = json.loads(out.read_text())
    assert written["scenarios"] == 2 and system in written["systems"]
