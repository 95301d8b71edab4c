"""The demo plays one scenario per system from the record alone; it must keep working as scenarios evolve."""

from __future__ import annotations

import pytest

from conformance import demo


def test_demo_plays_one_scenario_of_each_system(capsys: pytest.CaptureFixture[str]) -> None:
    assert demo.main([]) == 0
    out = capsys.readouterr().out
    for scenario_id in demo.DEFAULT_SCENARIOS:
        assert f"── {scenario_id}\n" in out
    assert "not available" not in out
    assert "model call 1" in out


def test_demo_reports_an_unknown_scenario(capsys: pytest.CaptureFixture[str]) -> None:
    assert demo.main(["--scenario", "llmz/no/such-case"]) == 1
    assert "no such scenario" in capsys.readouterr().out
