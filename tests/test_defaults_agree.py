"""Defaults in one place (issue 10, item 4): a rule's numeric ``params`` and the reference's constants agree.

Every number in a rule's ``params`` (thresholds, limits, defaults) is either

- in :data:`REFERENCE`, naming the reference attribute that implements it (the policy object's field where
  the runtime reads one, otherwise the owning module's constant), and the two must be equal; or
- in :data:`NOT_A_REFERENCE_DEFAULT`, with the reason no reference constant stands behind it (a count
  the suite observes, a sentinel written in the comparison itself).

A param with a number in neither table fails, so a new param cannot drift from the reference unnoticed;
an entry naming a rule or param that no longer exists fails too, so the tables stay honest.
:data:`VOCABULARY` covers the few limits the scenario vocabulary must restate (it validates scenarios and
may not import the reference): they are checked against the same params.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from functools import reduce
from typing import Any

import pytest
from conftest import the_catalogue

Getter = Callable[[], Any]


def attribute(path: str) -> Getter:
    """``"module:NAME"`` or ``"module:OBJECT.field"``, read lazily (when the test runs)."""
    module_name, _, dotted = path.partition(":")

    def read() -> Any:
        module = importlib.import_module(module_name)
        return reduce(getattr, dotted.split("."), module)

    read.__qualname__ = path
    return read


def _item(path: str, index: int) -> Getter:
    whole = attribute(path)
    return lambda: whole()[index]


#: (rule id, param path) -> the reference value that implements it.
REFERENCE: dict[tuple[str, str], Getter] = {
    # akan
    ("akan.attachments.ceiling.per-file", "max_file_bytes"): attribute(
        "reference.akan.ceilings:FILE_MAX_BYTES"
    ),
    ("akan.attachments.ceiling.per-message-bytes", "max_message_bytes"): attribute(
        "reference.akan.ceilings:MESSAGE_MAX_BYTES"
    ),
    ("akan.attachments.ceiling.per-message-files", "max_files"): attribute(
        "reference.akan.ceilings:MESSAGE_MAX_FILES"
    ),
    ("akan.compaction.estimate.four-chars-per-token", "chars_per_token"): attribute(
        "reference.akan.policies:DEFAULT_POLICIES.chars_per_token"
    ),
    ("akan.compaction.threshold.default", "at_default_tokens"): attribute(
        "reference.akan.policies:DEFAULT_POLICIES.default_at_tokens"
    ),
    ("akan.compaction.summary-replaces-history", "keep_default_reference"): attribute(
        "reference.akan.policies:DEFAULT_POLICIES.default_keep"
    ),
    ("akan.compaction.command-keeps-nothing", "keep"): attribute(
        "reference.akan.policies:DEFAULT_POLICIES.command_keep"
    ),
    ("akan.compaction.summarizer.bounded-digest", "digest_max_chars_reference"): attribute(
        "reference.akan.policies:DEFAULT_POLICIES.digest_max_chars"
    ),
    ("akan.compaction.summarizer.bounded-digest", "per_message_chars_reference"): attribute(
        "reference.akan.policies:DEFAULT_POLICIES.digest_message_chars"
    ),
    ("akan.readscreen.character-limit", "max_chars"): attribute("reference.akan.screen:MAX_CHARS"),
    # falai
    ("falai.message.scores", "min_score"): attribute("reference.falai.messages:MIN_SCORE"),
    ("falai.message.scores", "max_score"): attribute("reference.falai.messages:MAX_SCORE"),
    ("falai.repeat.always-window", "kept"): attribute("reference.falai.repeat:ALWAYS_CLAIMS_KEPT"),
    **{
        (rule, "new_flow_min_score"): attribute(
            "reference.falai.policies:DEFAULT_POLICIES.new_flow_min_score"
        )
        for rule in (
            "falai.routing.takeover.min-score",
            "falai.routing.new-flow-min-score",
            "falai.routing.lone-candidate-scored",
            "falai.routing.constants",
        )
    },
    **{
        (rule, "takeover_margin"): attribute("reference.falai.policies:DEFAULT_POLICIES.takeover_margin")
        for rule in ("falai.routing.takeover.margin", "falai.routing.constants")
    },
    # llmz
    ("llmz.budget.max-tokens.positive-safe-integer", "maximum"): attribute(
        "reference.llmz.budget:MAX_SAFE_INTEGER"
    ),
    ("llmz.budget.output-reserve.fraction", "ratio"): lambda: (
        1 / attribute("reference.llmz.budget:RESERVE_DIVISOR")()
    ),
    ("llmz.budget.output-reserve.floor", "floor_tokens"): attribute("reference.llmz.budget:RESERVE_FLOOR"),
    ("llmz.budget.output-reserve.ceiling", "ceiling_tokens"): attribute(
        "reference.llmz.budget:RESERVE_CEILING"
    ),
    ("llmz.compaction.trigger-ratio", "trigger_ratio"): attribute(
        "reference.llmz.api:DEFAULT_COMPACTION.trigger_ratio"
    ),
    ("llmz.compaction.target-ratio", "target_ratio"): attribute(
        "reference.llmz.api:DEFAULT_COMPACTION.target_ratio"
    ),
    ("llmz.compaction.keep-recent-iterations", "keep_recent_iterations"): attribute(
        "reference.llmz.api:DEFAULT_COMPACTION.keep_recent_iterations"
    ),
    ("llmz.compaction.max-summary-tokens", "default_tokens"): attribute(
        "reference.llmz.api:DEFAULT_COMPACTION.max_summary_tokens"
    ),
    ("llmz.inspection.budget-integers", "max"): attribute("reference.llmz.preview:MAX_SAFE_INTEGER"),
    ("llmz.inspection.tool-result-default", "default_tokens"): attribute(
        "reference.llmz.policies:DEFAULT_POLICIES.default_result_budget"
    ),
    ("llmz.inspection.tool-result-range", "min"): _item("reference.llmz.definitions:RESULT_BUDGET_RANGE", 0),
    ("llmz.inspection.tool-result-range", "max"): _item("reference.llmz.definitions:RESULT_BUDGET_RANGE", 1),
    ("llmz.memory.default-limit", "max_bytes"): attribute("reference.llmz.memory:DEFAULT_MAX_BYTES"),
    ("llmz.sessions.event-preview-budget", "event_payload_preview_tokens"): attribute(
        "reference.llmz.policies:DEFAULT_POLICIES.event_preview_tokens"
    ),
}

_COUNT = "a count the scenarios observe in the record (calls, messages, runs), not a setting of the reference"

#: (rule id, param path) -> why no reference constant stands behind the number.
NOT_A_REFERENCE_DEFAULT: dict[tuple[str, str], str] = {
    ("akan.compaction.disabled-at-zero", "disabled_at"): "a sentinel: the comparison itself tests for 0",
    ("akan.speech.press-to-talk-into-composer", "utterances_per_press"): _COUNT,
    ("falai.event.zero-calls", "llm_calls_without_talk"): _COUNT,
    ("falai.event.zero-calls", "llm_calls_with_talk"): _COUNT,
    ("falai.mention.say-do-one-call", "llm_calls"): _COUNT,
    ("falai.mention.detector.code-only", "llm_calls"): _COUNT,
    ("falai.message.single-floor", "max_floor_holders"): "structural: the session has one floor slot",
    ("falai.routing.lone-candidate-no-call", "understand_calls"): _COUNT,
    ("falai.idle.silent", "llm_calls"): _COUNT,
    ("falai.idle.silent", "messages"): _COUNT,
    ("falai.silence.speaks-first", "llm_calls"): _COUNT,
    ("falai.start.say-no-call", "llm_calls"): _COUNT,
    ("falai.triggers.judged-by", "judging_calls_per_turn"): _COUNT,
    ("llmz.budget.max-tokens.positive-safe-integer", "minimum"): (
        "the bottom of 'positive', written in the check"
    ),
    ("llmz.budget.output-reserve.room-for-input", "minimum_input_budget"): (
        "what the reserve leaves, at least one token: the formula's ``limit - 1`` term, not a setting"
    ),
    ("llmz.inspection.budget-integers", "min"): "the bottom of 'nonnegative', written in the check",
    ("llmz.inspection.zero-hides", "budget"): "a sentinel: the comparison itself tests for 0",
    ("llmz.memory.single-native-tool", "native_tool_count"): _COUNT,
    ("llmz.memory.one-call-per-response", "max_javascript_calls"): _COUNT,
    ("llmz.tools.effects-run-once", "runs"): _COUNT,
}

_MB = 1024 * 1024

#: Limits the harness must restate because it may not import the reference: the scenario vocabulary
#: validating scenarios, and the fuzz generators aiming at documented boundaries.
VOCABULARY: dict[tuple[str, str], list[Getter]] = {
    ("llmz.budget.max-tokens.positive-safe-integer", "maximum"): [
        attribute("conformance.scenario.invalid:MAX_SAFE_INTEGER")
    ],
    ("llmz.inspection.budget-integers", "max"): [attribute("conformance.scenario.invalid:MAX_SAFE_INTEGER")],
    ("llmz.inspection.tool-result-range", "max"): [attribute("conformance.scenario.llmz:RESULT_BUDGET_MAX")],
    ("llmz.budget.output-reserve.floor", "floor_tokens"): [
        attribute("conformance.fuzz.llmz:FLOOR"),
        attribute("conformance.fuzz.llmz_compaction:FLOOR"),
    ],
    ("llmz.budget.output-reserve.ceiling", "ceiling_tokens"): [
        attribute("conformance.fuzz.llmz:CEILING"),
        attribute("conformance.fuzz.llmz_compaction:CEILING"),
    ],
    ("llmz.compaction.trigger-ratio", "trigger_ratio"): [
        attribute("conformance.fuzz.llmz_compaction:TRIGGER_RATIO")
    ],
    ("llmz.compaction.target-ratio", "target_ratio"): [
        attribute("conformance.fuzz.llmz_compaction:TARGET_RATIO")
    ],
    ("llmz.compaction.keep-recent-iterations", "keep_recent_iterations"): [
        attribute("conformance.fuzz.llmz_compaction:KEEP_RECENT")
    ],
    ("llmz.compaction.max-summary-tokens", "default_tokens"): [
        attribute("conformance.fuzz.llmz_compaction:MAX_SUMMARY_TOKENS")
    ],
    ("akan.compaction.threshold.default", "at_default_tokens"): [
        _item("conformance.fuzz.akan:DEFAULT_AT", 0)
    ],
    ("akan.attachments.ceiling.per-file", "max_file_bytes"): [
        lambda: attribute("conformance.fuzz.akan:PER_FILE_MB")() * _MB
    ],
    ("akan.attachments.ceiling.per-message-bytes", "max_message_bytes"): [
        lambda: attribute("conformance.fuzz.akan:PER_MESSAGE_MB")() * _MB
    ],
    ("akan.attachments.ceiling.per-message-files", "max_files"): [
        attribute("conformance.fuzz.akan:PER_MESSAGE_FILES")
    ],
}


def numbers(value: Any, path: str = "") -> Iterator[tuple[str, int | float]]:
    """Every number inside a params value, with its dotted path (list items as ``[i]``); booleans are not
    numbers here."""
    if isinstance(value, bool):
        return
    if isinstance(value, int | float):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from numbers(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from numbers(item, f"{path}[{index}]")


def _catalogue_numbers() -> dict[tuple[str, str], int | float]:
    catalogue = the_catalogue()
    assert not catalogue.errors, catalogue.errors
    return {
        (rule_id, path): value
        for rule_id, entry in catalogue.rules.items()
        for path, value in numbers(entry.rule.params)
    }


PARAMS = _catalogue_numbers()


def mismatch(params: dict[tuple[str, str], int | float], rule: str, param: str) -> str | None:
    """Why ``REFERENCE[rule, param]`` disagrees with the catalogue (None when it agrees)."""
    if (rule, param) not in params:
        return f"{rule} has no numeric param {param!r}: remove the stale table entry"
    actual = REFERENCE[rule, param]()
    if actual != pytest.approx(params[rule, param]):
        where = REFERENCE[rule, param].__qualname__
        return f"{rule}.params.{param} is {params[rule, param]!r} but the reference ({where}) has {actual!r}"
    return None


def unexplained(params: dict[tuple[str, str], int | float]) -> list[tuple[str, str]]:
    """Numeric params with neither a reference attribute nor a reason."""
    return sorted(set(params) - set(REFERENCE) - set(NOT_A_REFERENCE_DEFAULT))


@pytest.mark.parametrize(("rule", "param"), sorted(REFERENCE), ids=lambda v: str(v))
def test_reference_implements_the_param(rule: str, param: str) -> None:
    problem = mismatch(PARAMS, rule, param)
    assert problem is None, problem


@pytest.mark.parametrize(("rule", "param"), sorted(VOCABULARY), ids=lambda v: str(v))
def test_vocabulary_restates_the_param(rule: str, param: str) -> None:
    assert (rule, param) in PARAMS, f"{rule} has no numeric param {param!r}: remove the stale table entry"
    for restated in VOCABULARY[rule, param]:
        value = restated()
        assert value == PARAMS[rule, param], f"{rule}.params.{param}: the harness restates {value!r}"


def test_every_numeric_param_is_accounted_for() -> None:
    missing = unexplained(PARAMS)
    assert not missing, (
        "numeric params with neither a reference attribute (REFERENCE) nor a reason "
        f"(NOT_A_REFERENCE_DEFAULT) in tests/test_defaults_agree.py: {missing}"
    )


def test_no_stale_or_double_entries() -> None:
    stale = sorted(set(NOT_A_REFERENCE_DEFAULT) - set(PARAMS))
    assert not stale, f"NOT_A_REFERENCE_DEFAULT names params that no longer exist: {stale}"
    both = sorted(set(REFERENCE) & set(NOT_A_REFERENCE_DEFAULT))
    assert not both, f"params both mapped and excused: {both}"


def test_the_checks_can_fail() -> None:
    """A drifted param, a vanished one and a new unlisted one are each reported."""
    rule = "falai.routing.constants"
    assert mismatch({**PARAMS, (rule, "takeover_margin"): 16}, rule, "takeover_margin") is not None
    gone = {key: value for key, value in PARAMS.items() if key != (rule, "takeover_margin")}
    assert mismatch(gone, rule, "takeover_margin") is not None
    assert unexplained({**PARAMS, (rule, "new_limit"): 7}) == [(rule, "new_limit")]


def test_scenario_epoch_is_the_reference_clock_default() -> None:
    """Scenarios start at 2026-01-05T12:00Z: falai's vocabulary passes that epoch explicitly, while the
    other players rely on the reference clock's default. The two must be the same instant."""
    from conformance.scenario.falai import DEFAULT_CLOCK_START_MS
    from reference.clock import DEFAULT_START_MS

    assert DEFAULT_CLOCK_START_MS == DEFAULT_START_MS
