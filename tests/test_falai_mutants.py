"""Each falai mutant is caught by the scenarios that pin its rule, and the failure names the rule id."""

from __future__ import annotations

from functools import cache

import pytest
from conftest import every_scenario

from conformance.judging.judge import Mismatch
from conformance.players import play
from conformance.runner import judge_played
from conformance.scenario.load import LoadedScenario
from variants import Mutant
from variants.mutants.falai import MUTANTS

#: Which scenarios must kill which mutant. Each listed scenario pins the mutant's rule(s).
KILLERS: dict[str, tuple[str, ...]] = {
    "falai-new-flow-min-39": (
        "falai/routing/new-flow-at-39-idle-answers",
        "falai/routing/catch-all-when-nobody-reaches-40",
    ),
    "falai-new-flow-min-41": ("falai/routing/new-flow-at-40-starts",),
    "falai-takeover-margin-14": ("falai/routing/takeover-margin-14-keeps-floor",),
    "falai-takeover-margin-16": ("falai/routing/takeover-margin-15-takes-floor",),
    "falai-catch-all-scored": (
        "falai/routing/catch-all-when-nobody-reaches-40",
        "falai/routing/catch-all-loses-to-a-winner",
    ),
    "falai-lone-candidate-always-scored": (
        "falai/routing/lone-candidate-silent-starts-unscored",
        "falai/routing/lone-candidate-silent-with-mention",
    ),
    "falai-replay-not-detected": ("falai/routing/duplicate-message-id",),
    "falai-silence-never-broken": (
        "falai/silence/broken-by-customer",
        "falai/silence/replaces-previous-key",
    ),
    "falai-idle-silent-speaks": ("falai/routing/idle-silent",),
    "falai-live-runs-ignored": (
        "falai/event/already-running",
        "falai/event/parked-run-replaced",
        "falai/live/lead-anchor",
    ),
    "falai-repeat-once-ignored": (
        "falai/mention/code-only-detector",
        "falai/routing/message-flow-once-per-session",
    ),
}


@cache
def _mismatches_cached(scenario_id: str, mutant: str | None) -> tuple[Mismatch, ...]:
    item = _scenarios()[scenario_id]
    return tuple(judge_played(item, lambda payload: play(payload, variant=mutant)))


@cache
def _scenarios() -> dict[str, LoadedScenario]:
    return {
        item.id: item
        for item in every_scenario()
        if isinstance(item, LoadedScenario) and item.id.startswith("falai/")
    }


def _mismatches(scenario_id: str, mutant: str | None) -> list[Mismatch]:
    return list(_mismatches_cached(scenario_id, mutant))


def test_headline_mutants_have_named_killers() -> None:
    names = {m.name for m in MUTANTS}
    assert set(KILLERS) <= names, sorted(set(KILLERS) - names)


@pytest.mark.parametrize("mutant", [m for m in MUTANTS if m.name in KILLERS], ids=lambda m: m.name)
def test_headline_mutant_is_caught_by_each_named_case(mutant: Mutant) -> None:
    for scenario_id in KILLERS[mutant.name]:
        item = _scenarios()[scenario_id]
        pinned = set(mutant.rules) & set(item.scenario.rules)
        assert pinned, f"{scenario_id} does not pin any of {mutant.rules}"
        assert _mismatches(scenario_id, None) == [], f"the unmutated reference fails {scenario_id}"
        found = _mismatches(scenario_id, mutant.name)
        assert found, f"mutant {mutant.name} survives {scenario_id}"
        named = {m.rule for m in found} & pinned
        assert named, (
            f"{scenario_id} fails under {mutant.name} but no mismatch names {sorted(pinned)}: {found}"
        )


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.name)
def test_every_mutant_is_caught_by_a_case_pinning_its_rules(mutant: Mutant) -> None:
    """Some scenario that pins one of the mutant's rules fails, with that rule id in the failure."""
    pinning = [sid for sid, item in _scenarios().items() if set(mutant.rules) & set(item.scenario.rules)]
    assert pinning, f"no falai scenario pins any of {mutant.rules}"
    caught: list[str] = []
    for scenario_id in pinning:
        assert _mismatches(scenario_id, None) == [], f"the unmutated reference fails {scenario_id}"
        if {m.rule for m in _mismatches(scenario_id, mutant.name)} & set(mutant.rules):
            caught.append(scenario_id)
    assert caught, f"mutant {mutant.name} survives every case pinning {mutant.rules}: {pinning}"


def test_every_falai_scenario_is_killed_by_some_mutant() -> None:
    """No scenario is decoration: breaking some rule it pins makes it fail."""
    survivors = [sid for sid in _scenarios() if not any(_mismatches(sid, m.name) for m in MUTANTS)]
    assert not survivors, survivors
