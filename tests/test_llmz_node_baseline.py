"""The llmz 1.0.1 baseline says honestly why each entry is expected to fail.

Two kinds of entry are allowed (see the header of conformance/baselines/llmz-1.0.1.yaml): a rule that
first appears in the 1.0.2 guide, whose reason starts "since 1.0.2", or a scenario, whose reason describes
what 1.0.1 was observed to do and which documented statement that breaks. A rule entry for a 1.0.1-era
rule would excuse every scenario that pins it, so it is refused here; such a deviation must be listed per
scenario, with the observation. A scenario entry also says how its case fails (``fails`` or ``error``),
which every bridge run checks (tests/test_llmz_node.py).
"""

from __future__ import annotations

from functools import cache

from conftest import every_scenario, the_catalogue

from conformance import baseline
from conformance.paths import REPO_ROOT, SCENARIO_ROOT

BASELINE = REPO_ROOT / "conformance" / "baselines" / "llmz-1.0.1.yaml"


def test_baseline_entries_are_unique_llmz_ids() -> None:
    ids = [entry.id for entry in baseline.load(BASELINE)]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
    assert all(i.startswith("llmz") for i in ids)


def test_rule_entries_are_1_0_2_rules_and_say_so() -> None:
    rules = the_catalogue().rules
    for entry in baseline.load(BASELINE):
        if "/" in entry.id:
            continue
        assert entry.id in rules, f"{entry.id}: not a catalogue rule"
        assert rules[entry.id].rule.since == "1.0.2", f"{entry.id}: a 1.0.1 rule must be excused per scenario"
        assert entry.reason.startswith("since 1.0.2:"), f"{entry.id}: reason should start 'since 1.0.2:'"


def test_scenario_entries_name_existing_scenarios_and_an_observation() -> None:
    for entry in baseline.load(BASELINE):
        if "/" not in entry.id:
            continue
        assert (SCENARIO_ROOT / f"{entry.id}.yaml").is_file(), f"{entry.id}: no such scenario"
        assert not entry.reason.startswith("since 1.0.2"), f"{entry.id}: say what 1.0.1 did, per scenario"
        assert len(entry.reason.split()) >= 8, f"{entry.id}: the reason is too thin to act on"


def test_scenario_entries_say_what_was_observed_how_it_fails_and_what_it_breaks() -> None:
    rules = the_catalogue().rules
    for entry in baseline.load(BASELINE):
        if "/" not in entry.id:
            continue
        assert entry.fails or entry.error, f"{entry.id}: say how the case fails (fails: or error:)"
        if entry.reason.startswith("Harness:"):  # a record the harness cannot read: an error, never a verdict
            assert entry.error and not entry.fails, f"{entry.id}: a harness limitation is an error entry"
            continue
        assert entry.reason.startswith("Observed:"), f"{entry.id}: start with what 1.0.1 was observed to do"
        assert "Breaks llmz-1.0" in entry.reason, f"{entry.id}: name the document whose statement it breaks"
        pinned = set(load_scenario_rules(entry.id))
        for rule in entry.fails:
            assert rule in rules, f"{entry.id}: {rule} is not a catalogue rule"
            assert rule in pinned, f"{entry.id}: the scenario does not pin {rule}"
            assert rules[rule].rule.since != "1.0.2", f"{entry.id}: {rule} is a 1.0.2 rule; list the rule"


def load_scenario_rules(scenario_id: str) -> list[str]:
    rules = _scenario_rules().get(scenario_id)
    if rules is None:
        raise AssertionError(f"{scenario_id}: no such scenario")
    return rules


@cache
def _scenario_rules() -> dict[str, list[str]]:
    """Every scenario's rules, loaded once (loading all scenarios per baseline entry took a minute)."""
    from conformance.scenario.load import LoadedScenario

    return {
        item.id: list(item.scenario.rules) for item in every_scenario() if isinstance(item, LoadedScenario)
    }
