"""``nox -s snapshots`` (``python -m conformance.golden``): a golden review a maintainer can read (issue 24).

It ends with one line per golden it added, changed or removed (scenario id, the scenario's rules, what moved
per event type), ``--check`` lists the same without writing, and nothing it prints is a warning. The tests
work on a copy of a few scenarios and their goldens, so they play a handful of cases, not the suite.
"""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

import pytest

from conformance.golden import golden_text, main, movement
from conformance.paths import GOLDEN_ROOT, SCENARIO_ROOT

AREA = "falai/business-hours"


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    """Scenarios and goldens of one area, copied: (scenario root, golden root)."""
    scenarios, golden = tmp_path / "scenarios", tmp_path / "golden"
    shutil.copytree(SCENARIO_ROOT / AREA, scenarios / AREA)
    shutil.copytree(GOLDEN_ROOT / AREA, golden / AREA)
    return scenarios, golden


def _run(capsys: pytest.CaptureFixture[str], root: tuple[Path, Path], *args: str) -> tuple[int, list[str]]:
    scenarios, golden = root
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code = main([*args, "--scenarios", str(scenarios), "--golden", str(golden)])
    assert caught == [], [str(w.message) for w in caught]
    return code, capsys.readouterr().out.splitlines()


def _snapshot(golden: Path) -> dict[str, str]:
    return {p.relative_to(golden).as_posix(): p.read_text() for p in sorted(golden.rglob("*.json"))}


def test_current_goldens_are_said_to_be_current(
    tree: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, lines = _run(capsys, tree, "--check")
    assert (
        code == 0 and lines[-1].startswith("golden transcripts: all ") and lines[-1].endswith(" are current")
    )


def test_check_lists_every_moved_golden_with_scenario_rules_and_what_moved_and_writes_nothing(
    tree: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    scenarios, golden = tree
    files = sorted((golden / AREA).glob("*.json"))
    edited, deleted = files[0], files[1]
    record = json.loads(edited.read_text())
    kind = record["events"].pop()["type"]
    record["final"]["extra"] = 1
    edited.write_text(golden_text(record))
    deleted.unlink()
    (golden / AREA / "gone-scenario.json").write_text("{}\n")
    before = _snapshot(golden)

    code, lines = _run(capsys, tree, "--check")
    assert code == 1 and _snapshot(golden) == before, "--check writes nothing"
    played = len(list((scenarios / AREA).glob("*.yaml")))
    assert lines[0] == (
        f"golden transcripts: 1 would be added, 1 would be changed, 1 would be removed (of {played} played)"
    )
    changed = next(line for line in lines if edited.stem in line)
    rules = ", ".join(_rules(scenarios / AREA / f"{edited.stem}.yaml"))
    assert changed == f"  changed  {AREA}/{edited.stem} [{rules}]: {kind} 1 added; final changed"
    assert any(line.startswith(f"  added    {AREA}/{deleted.stem} [") and " events" in line for line in lines)
    assert f"  removed  {AREA}/gone-scenario [no scenario]: no scenario has this id any more" in lines

    code, lines = _run(capsys, tree)
    assert code == 0 and lines[0].startswith("golden transcripts: 1 added, 1 changed, 1 removed")
    assert _run(capsys, tree, "--check")[0] == 0, "after the update every golden is current"
    assert not (golden / AREA / "gone-scenario.json").exists()


def _rules(path: Path) -> list[str]:
    import yaml

    rules = yaml.safe_load(path.read_text())["rules"]
    assert isinstance(rules, list)
    return [str(rule) for rule in rules]


def test_movement_counts_per_event_type() -> None:
    old = {"events": [{"type": "a", "n": 1}, {"type": "a", "n": 2}, {"type": "b"}], "final": {"x": 1}}
    new = {"events": [{"type": "a", "n": 1}, {"type": "a", "n": 3}, {"type": "c"}], "final": {"x": 1}}
    assert movement(old, new) == "a 1 changed; b 1 removed; c 1 added"
    assert movement(old, {**old, "final": {"x": 2}}) == "final changed"
    assert movement(old, {**old, "events": list(reversed(old["events"]))}) == "a 2 changed"
