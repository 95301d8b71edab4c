"""Each scenario of issue 10, part A (schema effects, exit fields, literal feedback) fails against the
mutant that breaks its rule, naming the rule.

The table says which mutant (``variants/mutants/llmz/effects.py``, ``definitions.py``) each scenario
must catch; the unmutated reference passes every one of them, so a failure here means the scenario could
no longer tell a broken runtime from a correct one.
"""

from __future__ import annotations

import pytest

from conformance.paths import SCENARIO_ROOT
from conformance.players import play
from conformance.runner import judge_played
from conformance.scenario.load import LoadedScenario, load_file
from variants.mutants.llmz.definitions import MUTANTS as DEFINITION_MUTANTS
from variants.mutants.llmz.effects import MUTANTS as EFFECT_MUTANTS

MUTANTS = [*EFFECT_MUTANTS, *DEFINITION_MUTANTS]

CATCHES: dict[str, str] = {
    "llmz/tools/input-effects-reach-handler": "llmz-tool-input-effects-ignored",
    "llmz/tools/input-refinement-refused": "llmz-tool-input-effects-ignored",
    "llmz/tools/exit-payload-effects": "llmz-exit-effects-ignored",
    "llmz/tools/object-property-effects": "llmz-property-effects-ignored",
    "llmz/components/props-effects": "llmz-component-effects-ignored",
    "llmz/tools/async-input-effect-awaited": "llmz-async-tool-input-refused",
    "llmz/tools/async-exit-effect-is-config-error": "llmz-async-effects-everywhere",
    "llmz/tools/async-component-effect-is-config-error": "llmz-async-effects-everywhere",
    "llmz/tools/async-property-effect-is-config-error": "llmz-async-effects-everywhere",
    "llmz/tools/throwing-schema-callback-is-critical": "llmz-thrown-schema-callback-correctable",
    "llmz/tools/output-effects-never-run": "llmz-output-effects-run",
    "llmz/tools/input-effects-run-once": "llmz-effects-run-twice",
    "llmz/components/props-parsed-once": "llmz-effects-run-twice",
    "llmz/components/transformed-props-not-structured": "llmz-transformed-props-unchecked",
    "llmz/components/transformed-props-array": "llmz-component-effects-ignored",
    "llmz/tools/model-schema-shows-input-side": "llmz-model-sees-parsed-shape",
    "llmz/exits/name-only-exit": "llmz-exit-needs-description",
    "llmz/tools/name-and-handler-only": "llmz-tool-needs-description",
    "llmz/tools/tools-getter-each-iteration": "llmz-tools-getter-once",
    "llmz/error-recovery/xml-characters-kept-literal": "llmz-feedback-escapes-xml",
    "llmz/errors/rethrown-typed-error-stays-typed": "llmz-rethrown-error-untyped",
    "llmz/hooks/request-messages-are-copies": "llmz-request-hook-gets-originals",
    "llmz/think-signal/after-tool-hook-cannot-signal": "llmz-after-tool-hook-signals",
    "llmz/tools/input-transformed-to-a-string": "llmz-every-transform-structured",
    "llmz/components/render-runs-effects": "llmz-render-skips-effects",
}
"""Scenario id -> the mutant it must catch."""

ALSO: dict[str, tuple[str, ...]] = {
    "llmz-raw-value-delivered": (
        "llmz/tools/input-effects-reach-handler",
        "llmz/tools/exit-payload-effects",
        "llmz/tools/object-property-effects",
        "llmz/components/props-effects",
    ),
}
"""Mutants not named above, and scenarios that catch them."""


def _scenario(sid: str) -> LoadedScenario:
    """The one scenario file, loaded fresh (not every file of the suite, for each of the pairs)."""
    path = SCENARIO_ROOT / f"{sid}.yaml"
    assert path.is_file(), f"no scenario {sid}"
    found = load_file(path)
    assert isinstance(found, LoadedScenario), found
    return found


def _pairs() -> list[tuple[str, str]]:
    return [*CATCHES.items(), *[(sid, name) for name, sids in ALSO.items() for sid in sids]]


def test_every_effect_mutant_is_listed() -> None:
    assert {m.name for m in MUTANTS} == set(CATCHES.values()) | set(ALSO)


@pytest.mark.parametrize(("sid", "mutant"), _pairs())
def test_scenario_fails_against_its_mutant(sid: str, mutant: str) -> None:
    item = _scenario(sid)
    rules = next(m for m in MUTANTS if m.name == mutant).rules
    mismatches = judge_played(item, lambda payload: play(payload, variant=mutant))
    assert any(m.rule in rules for m in mismatches), f"{sid} passes against {mutant}"
    assert not judge_played(item, play)
