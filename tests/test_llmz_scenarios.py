"""The llmz runtime scenarios (everything but the budget's own areas) against the in-process reference.

Every rule of the two headline catalogue files must be pinned by at least one scenario unless it is
listed in ``UNPINNED`` with the reason no scenario can express it yet; records must be plain JSON.
"""

from __future__ import annotations

import json
from functools import cache

import pytest
import yaml
from conftest import every_scenario

from conformance.paths import REPO_ROOT
from conformance.players import play
from conformance.runner import judge_played
from conformance.scenario.load import LoadedScenario

AREAS = (
    "llmz/think-signal/",
    "llmz/chat-guard/",
    "llmz/basics/",
    "llmz/errors/",
    "llmz/memory/",
    "llmz/sessions/",
    "llmz/inspection/",
    "llmz/tools/",
    "llmz/hooks/",
    "llmz/components/",
    "llmz/streaming/",
    "llmz/objects/",
)
HEADLINE_FILES = ("think-signal.yaml", "chat-guard.yaml")
UNPINNED: dict[str, str] = {}


@cache
def runtime_scenarios() -> tuple[LoadedScenario, ...]:
    found = [item for item in every_scenario() if item.id.startswith(AREAS)]
    assert all(isinstance(item, LoadedScenario) for item in found), [
        getattr(item, "message", "") for item in found if not isinstance(item, LoadedScenario)
    ]
    return tuple(item for item in found if isinstance(item, LoadedScenario))


@pytest.mark.parametrize("item", runtime_scenarios(), ids=lambda item: item.id)
def test_reference_passes_and_returns_a_json_record(item: LoadedScenario) -> None:
    record = play(item.payload)
    assert json.loads(json.dumps(record, allow_nan=False)) == record
    mismatches = judge_played(item, lambda payload: record if payload["id"] == item.id else play(payload))
    assert not mismatches, "\n".join(str(m) for m in mismatches)


def test_every_headline_rule_is_pinned_or_explained() -> None:
    headline = set()
    for name in HEADLINE_FILES:
        document = yaml.safe_load((REPO_ROOT / "spec" / "llmz" / name).read_text(encoding="utf-8"))
        headline |= {rule["id"] for rule in document["rules"] if not rule.get("excluded")}
    pinned = {
        rule for item in every_scenario() if isinstance(item, LoadedScenario) for rule in item.scenario.rules
    }
    assert sorted(headline - pinned - set(UNPINNED)) == []
    assert sorted(set(UNPINNED) & pinned) == [], "an UNPINNED entry is now pinned: remove it"


def test_every_expectation_of_a_runtime_scenario_names_a_rule_the_scenario_pins() -> None:
    for item in runtime_scenarios():
        assert {e.rule for e in item.scenario.expect} <= set(item.scenario.rules), item.id
        assert set(item.scenario.rules) <= {e.rule for e in item.scenario.expect}, (
            f"{item.id} pins a rule that no expectation checks"
        )
