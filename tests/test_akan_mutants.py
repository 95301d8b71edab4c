"""Every akan mutant is caught by the scenarios pinning the rules it breaks, and the failures name them.

For each mutant and each rule it claims to break, at least one scenario pinning that rule must fail under
the mutant with a mismatch naming the rule, while every one of those scenarios passes on the reference.
"""

from __future__ import annotations

from functools import cache

import pytest
from conftest import every_scenario

from conformance.judging.judge import Mismatch
from conformance.players import play
from conformance.runner import judge_played
from conformance.scenario.load import LoadedScenario, LoadError
from variants import Mutant
from variants.mutants.akan import MUTANTS


@cache
def akan_scenarios() -> tuple[LoadedScenario, ...]:
    loaded = [item for item in every_scenario() if item.id.startswith("akan/")]
    errors = [item.message for item in loaded if isinstance(item, LoadError)]
    assert not errors, "\n".join(errors)
    return tuple(item for item in loaded if isinstance(item, LoadedScenario))


def _mismatches(item: LoadedScenario, mutant: str | None) -> list[Mismatch]:
    return judge_played(item, lambda payload: play(payload, variant=mutant))


@pytest.mark.parametrize("item", akan_scenarios(), ids=lambda item: item.id)
def test_the_reference_passes_every_akan_scenario(item: LoadedScenario) -> None:
    record = play(item.payload)
    exhausted = [e for e in record["events"] if e["type"] == "script_exhausted"]
    assert not exhausted, f"{item.id}: {exhausted[0]['message']}" if exhausted else ""
    mismatches = judge_played(item, lambda payload: record if payload["id"] == item.id else play(payload))
    assert not mismatches, "\n".join(str(m) for m in mismatches)


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda mutant: mutant.name)
def test_mutant_is_caught_by_the_cases_pinning_its_rules(mutant: Mutant) -> None:
    for rule in mutant.rules:
        pinning = [item for item in akan_scenarios() if rule in item.scenario.rules]
        assert pinning, f"{mutant.name}: no scenario pins {rule}, so nothing could catch this mutant"
        caught = []
        for item in pinning:
            try:
                mismatches = _mismatches(item, mutant.name)
            except Exception as exc:  # a mutant that crashes the run is caught too, but say so
                pytest.fail(f"{mutant.name} crashed {item.id}: {type(exc).__name__}: {exc}")
            if any(m.rule == rule for m in mismatches):
                caught.append(item.id)
        ids = [i.id for i in pinning]
        assert caught, f"{mutant.name} breaks {rule}, yet every case pinning it passed: {ids}"


def test_every_mutant_name_is_unique_and_prefixed() -> None:
    names = [mutant.name for mutant in MUTANTS]
    assert len(names) == len(set(names))
    assert all(name.startswith("akan-") for name in names)
