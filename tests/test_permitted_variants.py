"""Every permitted variant passes every scenario of its system, and names what the documents leave open.

The dual of the mutant tests: a scenario that rejects one of these variants pins a choice the documents
do not make, and would give a conforming implementation a false failure.
"""

from __future__ import annotations

import copy

import pytest
from conftest import every_scenario, the_catalogue

from conformance.adapters.reference import ReferenceAdapter
from conformance.mutation import judge_permitted, permitted_lines
from conformance.scenario.load import LoadedScenario
from conformance.shared_reference import SharedReference
from variants import Permitted, Record, all_mutants, all_permitted

PROTOCOL_TOPICS = {"extra-fields", "event-order", "wording", "framing"}
"""Freedoms the record protocol itself gives (spec/protocol/records/*.md)."""

VARIANTS = all_permitted()


@pytest.fixture(scope="module")
def items() -> list[object]:
    return list(every_scenario())


@pytest.fixture(scope="module")
def shared() -> SharedReference:
    """One plain-reference run per case for the whole module (per xdist worker): a variant takes a case's
    record from it only where its own run would give the same record (conformance.shared_reference)."""
    return SharedReference()


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_the_variant_passes_every_scenario_of_its_system(
    name: str, items: list[object], shared: SharedReference
) -> None:
    result = judge_permitted(VARIANTS[name], items, shared)  # type: ignore[arg-type]
    assert result.played > 0, f"{name}: no scenario of its system was played"
    assert result.accepted, "\n".join(permitted_lines([result]))


def test_every_variant_names_a_rule_an_open_question_or_a_protocol_freedom() -> None:
    rules = the_catalogue().rules
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


def test_a_variant_that_breaks_what_scenarios_pin_is_rejected(
    items: list[object], shared: SharedReference
) -> None:
    """The checker itself can fail: dropping every event is no permitted choice (judged with the shared
    runs, as the variants above are)."""

    def drop_events(record: Record) -> Record:
        changed = copy.deepcopy(record)
        changed["events"] = []
        return changed

    broken = Permitted(
        "falai-drops-events", "falai", ("protocol:extra-fields",), "drops events", transform=drop_events
    )
    result = judge_permitted(broken, items, shared)  # type: ignore[arg-type]
    assert result.played > 0 and not result.accepted
    assert "rejected  falai-drops-events" in permitted_lines([result])[0]


def _llmz_sample(items: list[object], areas: tuple[str, ...]) -> list[LoadedScenario]:
    return [i for i in items if isinstance(i, LoadedScenario) and i.id.startswith(areas)]


@pytest.mark.parametrize(
    "name", ["llmz-recovery-reworded", "llmz-larger-system-prompt", "llmz-context-categories-llmz-names"]
)
def test_shared_runs_give_the_records_the_variant_itself_gives(name: str, items: list[object]) -> None:
    """The shortcut is exact: on a sample of llmz cases (some that read the changed policy, some that do
    not), every record taken from a shared run equals the record of the variant's own full play."""
    variant = VARIANTS[name]
    sample = _llmz_sample(items, ("llmz/errors/", "llmz/exits/", "llmz/error-recovery/"))
    assert sample
    shared = SharedReference()
    quick, full = ReferenceAdapter(permitted=variant, shared=shared), ReferenceAdapter(permitted=variant)
    for item in sample:
        assert quick.run(item.payload, 30.0) == full.run(item.payload, 30.0), item.id
    assert shared.reused + shared.replayed == len(sample)
    if variant.policies is None:  # a transform only: nothing needs playing again
        assert shared.replayed == 0
    else:  # the system prompt is read by every case that calls the model, the recovery note only where a
        # program failed: both are played again where read, and taken from the shared run elsewhere
        assert shared.replayed > 0 and shared.reused > 0


def test_a_policy_change_that_breaks_a_pinned_rule_is_rejected_with_shared_runs(items: list[object]) -> None:
    """A mutant's policy change, dressed as a permitted variant and judged with shared runs, is rejected on
    the case pinning its rule although most cases of the sample are taken from the plain reference: a case
    whose run reads the changed policy is always played by the variant itself."""
    mutant = all_mutants()["llmz-sends-after-failed-delivery"]
    sample = _llmz_sample(items, ("llmz/errors/", "llmz/exits/"))
    pinned = {i.id for i in sample if set(mutant.rules) & set(i.scenario.rules)}
    assert pinned
    dressed = Permitted(mutant.name, "llmz", ("protocol:wording",), "a mutant", policies=mutant.policies)
    shared = SharedReference()
    result = judge_permitted(dressed, sample, shared)  # type: ignore[arg-type]
    assert shared.reused > 0 and shared.replayed > 0
    assert not result.accepted
    assert {line.split(":", 1)[0] for line in result.rejections} & pinned
