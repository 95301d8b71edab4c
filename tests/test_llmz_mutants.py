"""Each llmz mutant is caught by the scenarios pinning the rules it breaks, and only by failing them.

For every rule a mutant claims to break, at least one scenario pinning that rule must fail against the
mutant with a mismatch that names the rule; the unmutated reference passes those same scenarios.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest
from conftest import every_scenario, in_process_result

from conformance.judging.judge import Mismatch, judge
from conformance.players import play
from conformance.runner import judge_played
from conformance.scenario.load import LoadedScenario
from variants.mutants.llmz import RUNTIME_MUTANTS as MUTANTS


@cache
def llmz_scenarios() -> tuple[LoadedScenario, ...]:
    loaded = [item for item in every_scenario() if item.id.startswith("llmz/")]
    broken = [item.id for item in loaded if not isinstance(item, LoadedScenario)]
    assert not broken, f"llmz scenarios that do not load: {broken}"
    return tuple(item for item in loaded if isinstance(item, LoadedScenario))


def verdicts(
    mutant: str | None, scenarios: tuple[LoadedScenario, ...], until_caught: tuple[str, ...] = ()
) -> dict[str, list[Mismatch]]:
    """Mismatches per scenario. A crash (for example a mutant running the script dry) is an error verdict:
    it names no rule, so it never counts as catching one.

    With ``until_caught`` (a mutant's rules), playing stops once a mismatch has named every one of them:
    the rest could only catch the mutant again. Some mutants make each case run into a backstop (a program
    no longer stopped by its timeout spins until the host's limit), so this is most of their cost."""
    result = {}
    waiting = set(until_caught)
    for item in scenarios:
        try:
            result[item.id] = judge_played(item, lambda payload: play(payload, variant=mutant))
        except Exception as exc:
            result[item.id] = [Mismatch("(error)", -1, f"{type(exc).__name__}: {exc}")]
            continue
        if until_caught:
            waiting -= {m.rule for m in result[item.id]}
            if not waiting:
                break
    return result


def test_unmutated_reference_passes_the_cases_pinning_mutant_rules() -> None:
    """Judged on the in-process reference's record of each case, played once per worker and shared with
    the whole-suite and golden tests (conftest.in_process_result; same work unit)."""
    mutated_rules = {rule for mutant in MUTANTS for rule in mutant.rules}
    pinning = tuple(s for s in llmz_scenarios() if set(s.scenario.rules) & mutated_rules)
    failing = {}
    for item in pinning:
        result = in_process_result(item)
        if result.record is None:
            failing[item.id] = [f"no record ({result.verdict}): {result.message}"]
        elif result.verdict != "pass":  # judged by run_case, twins included
            failing[item.id] = [result.message]
    assert failing == {}


def test_every_headline_rule_has_a_mutant() -> None:
    covered = {rule for mutant in MUTANTS for rule in mutant.rules}
    headline = {
        "llmz.chat-guard.listen-requires-reply",
        "llmz.chat-guard.opt-out",
        "llmz.chat-guard.legacy-snapshot-unknown",
        "llmz.think-signal.beats-exit",
        "llmz.think-signal.code-continues",
        "llmz.think-signal.return-or-throw",
        "llmz.think-signal.all-signals-together",
        "llmz.errors.invalid-tool-input",
        "llmz.errors.critical-stops",
        "llmz.errors.host-operation-failed",
        "llmz.errors.delivery-failed",
        "llmz.errors.session-state",
        "llmz.memory.failed-iteration-keeps-return",
        "llmz.memory.unretainable-result-clears-return",
        "llmz.memory.codec-round-trip",
        "llmz.memory.unsupported-values",
        "llmz.errors.memory-capacity",
        "llmz.sessions.event-preview-budget",
        "llmz.sessions.input-during-turn-queued",
        "llmz.persistence.restore-checks-version",
        "llmz.inspection.tool-result-range",
    }
    assert headline <= covered, f"headline rules without a mutant: {sorted(headline - covered)}"


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m.name for m in MUTANTS])
def test_mutant_is_caught_by_the_cases_pinning_its_rules(mutant: Any) -> None:
    relevant = tuple(s for s in llmz_scenarios() if set(s.scenario.rules) & set(mutant.rules))
    assert relevant, f"no scenario pins any of {mutant.rules}"
    results = verdicts(mutant.name, relevant, until_caught=tuple(mutant.rules))
    uncaught = []
    for rule in mutant.rules:
        caught_by = [sid for sid, mismatches in results.items() if any(m.rule == rule for m in mismatches)]
        if not caught_by:
            uncaught.append(rule)
    assert uncaught == [], f"mutant {mutant.name} survives the scenarios pinning {uncaught}"


def test_a_runtime_that_changes_a_tool_result_cannot_change_the_case() -> None:
    """The player hands each tool call its own copy of the scripted value. Under the mutant whose onInspect
    writes through to the value (``llmz-on-inspect-sees-original``) the case still fails, and the scenario
    document it was played from still holds the scripted value, so a later case played from the same
    document sees what the scenario says."""
    (item,) = (s for s in llmz_scenarios() if s.id == "llmz/inspection/on-inspect-mutation-isolated")
    assert "llmz-on-inspect-sees-original" in {m.name for m in MUTANTS}
    payload = item.payload
    scripted = payload["setup"]["tools"][0]["behaviour"]["returns"]
    assert scripted == {"id": "A-17", "total": 20}
    record = play(payload, variant="llmz-on-inspect-sees-original")
    assert judge(item.scenario.expect, record), "the mutant must still be caught by this case"
    assert payload["setup"]["tools"][0]["behaviour"]["returns"] == {"id": "A-17", "total": 20}
