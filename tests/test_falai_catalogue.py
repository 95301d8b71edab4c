"""The falai catalogue loads, its ids are unique, and every falai scenario pins rules that exist."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from conftest import every_scenario
from pydantic import ValidationError

from conformance.catalogue.model import RuleFile
from conformance.players import play
from conformance.runner import judge_played
from conformance.scenario.load import LoadedScenario
from conformance.scenario.model import parse_scenario

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "spec" / "falai"


def _rule_files() -> list[RuleFile]:
    return [
        RuleFile.model_validate(yaml.safe_load(p.read_text(encoding="utf-8")))
        for p in sorted(SPEC.glob("*.yaml"))
    ]


def _rule_ids() -> list[str]:
    return [rule.id for rf in _rule_files() for rule in rf.rules]


def _falai_scenarios() -> list[LoadedScenario]:
    items = [i for i in every_scenario() if i.id.startswith("falai/")]
    broken = [i for i in items if not isinstance(i, LoadedScenario)]
    assert not broken, "\n".join(getattr(i, "message", "") for i in broken)
    return [i for i in items if isinstance(i, LoadedScenario)]


def test_rule_ids_are_unique_and_cite_the_falai_document() -> None:
    ids = _rule_ids()
    assert len(ids) == len(set(ids))
    assert len(ids) >= 60
    for rf in _rule_files():
        for rule in rf.rules:
            assert rule.source.document == "falai-4.0.0-alpha.10-docs.md"
            assert rule.since == "4.0.0-alpha.10"


def test_headline_numbers_are_machine_readable() -> None:
    rules = {rule.id: rule for rf in _rule_files() for rule in rf.rules}
    assert rules["falai.routing.new-flow-min-score"].params == {"new_flow_min_score": 40}
    assert rules["falai.routing.takeover.margin"].params == {"takeover_margin": 15}
    assert rules["falai.repeat.always-window"].params == {"kept": 50}


def test_sections_are_headings_of_the_document() -> None:
    text = ROOT.parent / "shared" / "seeds" / "falai-4.0.0-alpha.10-docs.md"
    if not text.exists():
        pytest.skip("seed documents are not next to this checkout")
    headings = {
        line.lstrip("#").strip()
        for line in text.read_text(encoding="utf-8").splitlines()
        if line.startswith("#")
    }
    for rf in _rule_files():
        for rule in rf.rules:
            assert rule.source.section in headings, (
                f"{rule.id}: section {rule.source.section!r} is not a heading"
            )


def test_every_scenario_pins_existing_rules() -> None:
    known = set(_rule_ids())
    for item in _falai_scenarios():
        missing = set(item.scenario.rules) - known
        assert not missing, f"{item.id} names unknown rules {sorted(missing)}"


@pytest.mark.parametrize("item", _falai_scenarios(), ids=lambda i: i.id)
def test_reference_passes_scenario(item: LoadedScenario) -> None:
    assert judge_played(item, play) == []


def test_bare_on_key_gets_a_clear_error() -> None:
    document = yaml.safe_load(
        "system: falai\ntitle: t\nrules: [falai.triggers.kinds]\n"
        "setup: {flows: [{id: f, name: F, on: [{message: [x]}], steps: [{id: s, say: hi}]}]}\n"
        "steps: [{op: message, id: m1, text: oi}]\n"
        "expect: [{rule: falai.triggers.kinds, path: final, absent: true}]\n"
    )
    with pytest.raises(ValidationError, match='"on" in quotes'):
        parse_scenario(document)


def test_a_trigger_needs_exactly_one_kind() -> None:
    document = {
        "system": "falai",
        "title": "two kinds",
        "rules": ["falai.triggers.kinds"],
        "setup": {
            "flows": [
                {
                    "id": "f",
                    "name": "F",
                    "on": [{"message": ["x"], "event": "e"}],
                    "steps": [{"id": "s", "say": "hi"}],
                }
            ]
        },
        "steps": [{"op": "message", "id": "m1", "text": "oi"}],
        "expect": [{"rule": "falai.triggers.kinds", "path": "final", "absent": True}],
    }
    with pytest.raises(ValidationError, match="exactly one of message, mention, silence, event"):
        parse_scenario(document)
