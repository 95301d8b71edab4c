"""The benchmark runs both adapters over the same scenarios and reports rates and their ratio."""

from __future__ import annotations

import re
from typing import Any

import pytest
from conftest import minimal_scenario

from conformance.bench import main


def test_bench_reports_both_rates_and_the_ratio(
    scenario_tree: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    root = scenario_tree({"area/one": minimal_scenario(), "area/two": minimal_scenario()})
    assert main(["--repeat", "1", "--scenarios", str(root)]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^in-process +2 scenarios .* = [\d.]+ scenarios/s", out, re.M), out
    assert re.search(r"^stdio +2 scenarios .* = [\d.]+ scenarios/s", out, re.M), out
    assert re.search(r"^ratio in-process/stdio: [\d.]+x$", out, re.M), out
