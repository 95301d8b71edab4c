"""Every budget/compaction mutant is caught by the scenarios pinning its rules, naming the rule id.

KILLERS lists, for each mutant, the scenarios that must fail under it. Each of them pins at least one of
the mutant's rules and must fail with a mismatch naming such a rule; on the unmutated reference every
budget and compaction scenario passes.
"""

from __future__ import annotations

from functools import cache

import pytest
from conftest import every_scenario

from conformance.judging.judge import Mismatch
from conformance.players import play
from conformance.runner import judge_played
from conformance.scenario.load import LoadedScenario, LoadError
from variants import Mutant, all_mutants
from variants.mutants.llmz import BUDGET_MUTANTS as MUTANTS

AREAS = ("llmz/budget/", "llmz/compaction/")

KILLERS: dict[str, tuple[str, ...]] = {
    "llmz-failed-segment-skipped": ("llmz/compaction/segment-summary-failure-keeps-history",),
    "llmz-target-ratio-zero-accepted": ("llmz/compaction/target-ratio-zero-rejected",),
    "llmz-compaction-drops-to-protected": ("llmz/compaction/target-keeps-history-nothing-protected",),
    "llmz-budget-no-reserve-floor": ("llmz/budget/reserve-floor-small-window",),
    "llmz-budget-reserve-ignores-model-output": (
        "llmz/budget/reserve-model-output-limit",
        "llmz/budget/reserve-output-limit-below-floor",
        "llmz/budget/fallback-smallest-output",
    ),
    "llmz-budget-reserve-fills-window": ("llmz/budget/reserve-leaves-room-for-input",),
    "llmz-budget-cap-ignored": ("llmz/budget/reserve-tenth-of-cap",),
    "llmz-budget-fallback-first-model": (
        "llmz/budget/fallback-smallest-input",
        "llmz/budget/fallback-smallest-output",
    ),
    "llmz-budget-no-overflow-check": (
        "llmz/budget/window-too-small",
        "llmz/budget/current-input-never-truncated",
        "llmz/compaction/disabled-overflow-fails-intact",
    ),
    "llmz-budget-output-overflow-hidden": ("llmz/budget/output-max-tokens-is-overflow",),
    "llmz-budget-tools-not-measured": ("llmz/budget/measure-counts-tool-declarations",),
    "llmz-budget-instructions-not-measured": ("llmz/budget/measure-counts-instructions",),
    "llmz-budget-media-transport-measured": ("llmz/budget/media-url-not-measured",),
    "llmz-budget-media-shaped-text-free": ("llmz/budget/media-shaped-text-measured",),
    "llmz-budget-result-tokens-last-call": ("llmz/budget/result-tokens-sum-provider-usage",),
    "llmz-compaction-trigger-late": ("llmz/compaction/at-trigger-summarizes",),
    "llmz-compaction-trigger-early": ("llmz/compaction/below-trigger-no-summary",),
    "llmz-compaction-high-trigger-falls-back": ("llmz/compaction/higher-trigger-never-compacts-sooner",),
    "llmz-compaction-recent-not-preferred": ("llmz/compaction/keeps-two-newest-iterations",),
    "llmz-iteration-split-at-feedback": ("llmz/compaction/text-only-iteration-kept-whole",),
    "llmz-compaction-target-ignored": ("llmz/compaction/target-decides-how-much-is-kept",),
    "llmz-compaction-never-keeps-fewer": ("llmz/compaction/hard-overflow-keeps-fewer",),
    "llmz-compaction-summary-last": (
        "llmz/compaction/at-trigger-summarizes",
        "llmz/compaction/keeps-two-newest-iterations",
        "llmz/compaction/keep-one-survives-restore",
    ),
    "llmz-compaction-results-kept": ("llmz/compaction/memory-exact-after-compaction",),
    "llmz-compaction-summary-uncapped": (
        "llmz/compaction/at-trigger-summarizes",
        "llmz/compaction/configured-summary-model",
    ),
    "llmz-compaction-single-segment": ("llmz/compaction/large-history-in-segments",),
    "llmz-compaction-summary-room-ignores-kept": (
        "llmz/compaction/summary-allowance-within-remaining-space",
    ),
    "llmz-compaction-summary-room-doubled": ("llmz/compaction/summary-allowance-within-remaining-space",),
    "llmz-compaction-disabled-ignored": (
        "llmz/compaction/disabled-overflow-fails-intact",
        "llmz/compaction/disabled-survives-restore",
    ),
    "llmz-compaction-failure-drops-history": (
        "llmz/compaction/summary-failure-keeps-history",
        "llmz/compaction/oversized-summary-keeps-history",
    ),
}


@cache
def scenarios() -> dict[str, LoadedScenario]:
    loaded = [item for item in every_scenario() if item.id.startswith(AREAS)]
    errors = [item.message for item in loaded if isinstance(item, LoadError)]
    assert not errors, "\n".join(errors)
    return {item.id: item for item in loaded if isinstance(item, LoadedScenario)}


def mismatches(scenario_id: str, mutant: str | None) -> list[Mismatch]:
    item = scenarios()[scenario_id]
    return judge_played(item, lambda payload: play(payload, variant=mutant))


@pytest.mark.parametrize("scenario_id", sorted(scenarios()))
def test_the_reference_passes_every_budget_and_compaction_scenario(scenario_id: str) -> None:
    found = mismatches(scenario_id, None)
    assert not found, "\n".join(str(m) for m in found)


def test_every_mutant_has_killers_and_is_registered() -> None:
    assert sorted(KILLERS) == sorted(m.name for m in MUTANTS)
    registered = all_mutants()
    missing = [m.name for m in MUTANTS if m.name not in registered]
    assert not missing, f"add the budget mutants to variants/mutants/llmz/budget.py: {missing}"


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda mutant: mutant.name)
def test_mutant_is_caught_and_the_failure_names_its_rule(mutant: Mutant) -> None:
    for scenario_id in KILLERS[mutant.name]:
        pinned = set(scenarios()[scenario_id].scenario.rules) & set(mutant.rules)
        assert pinned, f"{scenario_id} pins none of {mutant.rules}, so it cannot be a killer of {mutant.name}"
        found = mismatches(scenario_id, mutant.name)
        naming = [m for m in found if m.rule in pinned]
        shown = [str(m) for m in found]
        assert naming, f"{mutant.name} should fail {scenario_id} on {sorted(pinned)}; mismatches: {shown}"


def test_every_rule_a_mutant_breaks_has_a_killer_pinning_it() -> None:
    for mutant in MUTANTS:
        pinned = {rule for sid in KILLERS[mutant.name] for rule in scenarios()[sid].scenario.rules}
        assert set(mutant.rules) <= pinned, f"{mutant.name}: no killer pins {set(mutant.rules) - pinned}"
