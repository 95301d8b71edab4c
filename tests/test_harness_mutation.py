"""The mutation score tool tells a caught mutant from one the suite misses."""

from __future__ import annotations

import pytest
from conftest import every_scenario

import variants
from conformance.mutation import judge_mutant, report_lines
from conformance.scenario.load import LoadedScenario
from variants import Mutant


def test_a_harmless_mutant_survives_and_an_unpinned_one_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    items = every_scenario()
    loaded = next((i for i in items if isinstance(i, LoadedScenario)), None)
    if loaded is None:
        pytest.skip("no scenarios yet")
    harmless = Mutant("harmless", (loaded.scenario.rules[0],), policies=lambda policies: policies)
    unpinned = Mutant("unpinned", ("llmz.no.such-rule",), policies=lambda policies: policies)
    known = {m.name: m for m in (harmless, unpinned)}
    monkeypatch.setattr(variants, "all_mutants", lambda: known)
    results = [judge_mutant(harmless, [loaded]), judge_mutant(unpinned, [loaded])]
    assert [(r.name, r.status) for r in results] == [("harmless", "survived"), ("unpinned", "unpinned")]
    assert report_lines(results)[-1] == "mutants: 0/2 caught"


def test_every_registered_mutant_is_judged_by_its_systems_mutant_tests() -> None:
    """Each system's mutant tests (test_akan_mutants, test_falai_mutants, test_llmz_mutants and
    test_llmz_budget_mutants) play every mutant against the cases pinning its rules; re-judging all of them
    here doubled the slowest part of the test run. What stays here: no registered mutant falls outside
    the lists those tests parametrize over."""
    from variants.mutants import akan, falai, llmz

    judged = [*akan.MUTANTS, *falai.MUTANTS, *llmz.RUNTIME_MUTANTS, *llmz.BUDGET_MUTANTS]
    assert sorted(m.name for m in judged) == sorted(variants.all_mutants())
