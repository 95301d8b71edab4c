"""The benchmark times whole runs by CPU in interleaved pairs and separates start-up from per-case cost."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import minimal_scenario

from conformance.bench import fuzz_wall_by_jobs, interleaved, main, ratio_of, split


def test_per_case_and_start_up_are_separated_round_by_round() -> None:
    # Round 2 ran on a slower machine throughout: its own pair still gives 0.02 s a case.
    result = split(all_cpu=[3.0, 3.9, 3.02], one_cpu=[1.02, 1.92, 1.0], count=100)
    assert result.each == pytest.approx(0.02) and result.startup == pytest.approx(1.0)
    assert result.low == pytest.approx(0.02) and result.high == pytest.approx(2.02 / 99)
    assert result.describe() == "20.00 ms"


def test_cases_cheaper_than_the_noise_are_reported_as_such_not_as_free() -> None:
    cheap = split(all_cpu=[0.60, 0.58, 0.66], one_cpu=[0.61, 0.60, 0.62], count=80)
    assert cheap.each is None and not cheap.measurable
    assert cheap.describe().startswith("below the noise (estimates -0.25 to 0.51 ms")
    assert cheap.startup == pytest.approx(0.61)
    assert ratio_of(cheap, split([3.0], [1.0], 101)) is None
    assert ratio_of(split([3.0], [1.0], 101), split([2.0], [1.0], 101)) == pytest.approx(2.0)
    with pytest.raises(ValueError, match="as many runs over one case as over all"):
        split([1.0, 2.0], [1.0], 10)


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


def test_more_than_two_commands_are_rotated_round_by_round(tmp_path: Path) -> None:
    log = tmp_path / "order.txt"
    commands = {
        name: ["python3", "-c", f"open({str(log)!r}, 'a').write({name!r})"] for name in ("a", "b", "c", "d")
    }
    figures, ratios = interleaved(commands, 4, tmp_path)
    assert log.read_text() == "abcdbcdacdabdabc"
    assert all(len(figure.cpu) == 4 for figure in figures.values()) and len(ratios) == 4


def test_bench_reports_the_figures_and_writes_json(
    scenario_tree: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = scenario_tree({"area/one": minimal_scenario(), "area/two": minimal_scenario()})
    out = tmp_path / "bench.json"
    assert main(["--repeat", "1", "--scenarios", str(root), "--out", str(out), "--no-bridge"]) == 0
    text = capsys.readouterr().out
    system = minimal_scenario()["system"]
    each = r"[\d.]+ ms|below the noise \(estimates -?[\d.]+ to -?[\d.]+ ms\)"
    assert re.search(r"^suite in-process: 2 scenarios, [\d.]+s CPU", text, re.M), text
    assert re.search(rf"^{system} +stdio/in-process, with start-up: [\d.]+x CPU", text, re.M), text
    assert re.search(
        rf"^{system} +stdio/in-process, per case: (?:[\d.]+x|n/a) \((?:{each}) vs (?:{each})\); "
        r"start-up [\d.]+s vs [\d.]+s$",
        text,
        re.M,
    ), text
    assert re.search(
        r"^reference whole suite, wall: --jobs 2 / --jobs 1 = [\d.]+ \([\d.]+s vs [\d.]+s median, 1 pairs; "
        r"CPU [\d.]+s vs [\d.]+s; cases' own time [\d.]+s vs [\d.]+s\); same verdicts$",
        text,
        re.M,
    ), text
    assert "llmz 1.0.1 figures (bridge per case, suite and fuzz wall by --jobs) left out: --no-bridge" in text
    written = json.loads(out.read_text())
    assert written["scenarios"] == 2 and system in written["systems"]
    assert written["wall_by_jobs"]["reference"]["same_verdicts"] is True
    assert written["wall_by_jobs"]["reference"]["case_seconds_jobs_2"] > 0
    figures = written["systems"][system]
    assert figures["stdio_startup_cpu"] > 0 and figures["in_process_startup_cpu"] > 0, figures
    for mode in ("stdio", "in_process"):
        low, high = figures[f"{mode}_per_case_cpu_range"]
        each_cpu = figures[f"{mode}_per_case_cpu"]
        assert each_cpu is None or (each_cpu > 0 and low <= each_cpu <= high), figures


def test_busy_folders_are_left_out_of_the_throughput_and_timed_in_the_whole_suite(
    scenario_tree: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = scenario_tree(
        {"area/one": minimal_scenario(), "area/two": minimal_scenario(), "busy/three": minimal_scenario()}
    )
    system = minimal_scenario()["system"]
    out = tmp_path / "bench.json"
    argv = [
        "--repeat",
        "1",
        "--scenarios",
        str(root),
        "--out",
        str(out),
        "--no-bridge",
        "--exclude",
        f"{system}/busy",
    ]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert re.search(rf"^suite in-process \(without {system}/busy\): 2 scenarios", text, re.M), text
    assert re.search(rf"^whole suite in-process, with {system}/busy: 3 scenarios", text, re.M), text
    written = json.loads(out.read_text())
    assert written["scenarios"] == 2 and written["excluded"] == [f"{system}/busy"]
    assert written["whole_suite"]["scenarios"] == 3 and (root / system / "busy" / "three.yaml").exists()


def test_without_copies_the_tree_minus_the_named_folders_and_leaves_a_tree_without_them_alone(
    tmp_path: Path,
) -> None:
    from conformance.bench import without

    (tmp_path / "root" / "llmz" / "hostile").mkdir(parents=True)
    (tmp_path / "root" / "llmz" / "hostile" / "a.yaml").write_text("x")
    (tmp_path / "root" / "llmz" / "basics").mkdir()
    (tmp_path / "root" / "llmz" / "basics" / "b.yaml").write_text("y")
    copy, present = without(tmp_path / "root", ["llmz/hostile", "akan/none"], tmp_path / "copy")
    assert present == ["llmz/hostile"] and sorted(p.name for p in copy.rglob("*.yaml")) == ["b.yaml"]
    assert without(copy, ["llmz/hostile"], tmp_path / "again") == (copy, [])


BURN = "import time\\nt = time.process_time()\\nwhile time.process_time() - t < 0.2: pass"
ORPHAN_MAKER = f"""
import subprocess, sys
subprocess.Popen([sys.executable, "-c", "{BURN}"])
"""

MEASURING = """
import sys
from conformance import bench
adopted = bench.adopt_orphans()
sample = bench.measure([sys.executable, "-c", sys.argv[1]], ".")
print(adopted, sample.cpu)
"""


def test_cpu_of_a_descendant_left_orphaned_is_counted(tmp_path: Path) -> None:
    """A grandchild whose parent exits without waiting for it burns 0.2 s of CPU; the bench (a subreaper)
    reaps it and counts it. Not a speed check: a CPU floor the orphan spends by construction."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", MEASURING, ORPHAN_MAKER],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    )
    adopted, cpu = done.stdout.split()
    if adopted != "True":
        pytest.skip("no child subreaper on this platform")
    assert float(cpu) >= 0.2


def test_fuzz_wall_by_jobs_times_both_in_pairs_and_compares_their_findings(tmp_path: Path) -> None:
    fuzz = ["--system", "falai", "--examples", "30", "--seed", "6", "--max-findings", "2"]
    figure, line = fuzz_wall_by_jobs("reference[falai-takeover-margin-16]", fuzz, tmp_path, 1, Path.cwd())
    assert figure["findings"] == 1 and figure["same_findings"] is True, figure
    assert re.fullmatch(
        r"reference\[falai-takeover-margin-16\] fuzz --system falai --examples 30 --seed 6, "
        r"wall: --jobs 2 / --jobs 1 = [\d.]+ \([\d.]+s vs [\d.]+s median, 1 pairs; "
        r"CPU [\d.]+s vs [\d.]+s\); same findings \(1\)",
        line,
    ), line
