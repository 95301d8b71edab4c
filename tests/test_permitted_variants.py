"""Every permitted variant passes every scenario of its system, and names what the documents leave open.

The dual of the mutant tests: a scenario that rejects one of these variants pins a choice the documents
do not make, and would give a conforming implementation a false failure.
"""

from __future__ import annotations

import copy

import pytest

from conformance.catalogue.load import load_catalogue
from conformance.mutation import judge_permitted, permitted_lines
from conformance.runner import select
from variants import Permitted, Record, all_permitted

PROTOCOL_TOPICS = {"extra-fields", "event-order", "wording", "framing"}
"""Freedoms the record protocol itself gives (spec/protocol/records/*.md)."""

VARIANTS = all_permitted()


@pytest.fixture(scope="module")
def items() -> list[object]:
    return list(select())


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_the_variant_passes_every_scenario_of_its_system(name: str, items: list[object]) -> None:
    result = judge_permitted(VARIANTS[name], items)  # type: ignore[arg-type]
    assert result.played > 0, f"{name}: no scenario of its system was played"
    assert result.accepted, "\n".join(permitted_lines([result]))


def test_every_variant_names_a_rule_an_open_question_or_a_protocol_freedom() -> None:
    rules = load_catalogue().rules
    problems = []
    for variant in VARIANTS.values():
        assert variant.exercises, f"{variant.name} exercises nothing"
        for entry in variant.exercises:
            if entry.startswith("protocol:"):
                if entry.removeprefix("protocol:") not in PROTOCOL_TOPICS:
                    problems.append(f"{variant.name}: unknown protocol freedom {entry!r}")
                continue
            rule_id, _, question = entry.partition("#")
            if rule_id not in rules:
                problems.append(f"{variant.name}: {rule_id!r} is not a catalogue rule")
            elif question and not rules[rule_id].rule.open_question:
                problems.append(f"{variant.name}: {rule_id!r} has no open_question to read differently")
            elif question and question != "open_question":
                problems.append(f"{variant.name}: write {rule_id}#open_question, not #{question}")
    assert not problems, "\n".join(problems)


def test_a_variant_that_breaks_what_scenarios_pin_is_rejected(items: list[object]) -> None:
    """The checker itself can fail: dropping every event is no permitted choice."""

    def drop_events(record: Record) -> Record:
        changed = copy.deepcopy(record)
        changed["events"] = []
        return changed

    broken = Permitted(
        "falai-drops-events", "falai", ("protocol:extra-fields",), "drops events", transform=drop_events
    )
    result = judge_permitted(broken, items)  # type: ignore[arg-type]
    assert result.played > 0 and not result.accepted
    assert "rejected  falai-drops-events" in permitted_lines([result])[0]


def test_a_scenario_file_that_does_not_load_counts_against_every_variant_of_its_system(
    scenario_tree: object,
) -> None:
    from conftest import minimal_scenario

    good = minimal_scenario()
    system = good["system"]
    root = scenario_tree({"area/good": good, "area/broken": {**good, "expect": []}})  # type: ignore[operator]
    variant = next(v for v in VARIANTS.values() if v.system == system)
    result = judge_permitted(variant, select(root))
    assert not result.accepted
    assert any("area/broken: not loaded" in line for line in result.rejections)
