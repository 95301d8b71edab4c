"""The falai reference's pure helpers and its handling of bad scenarios."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import every_scenario
from hypothesis import given
from hypothesis import strategies as st

from conformance.players import play
from reference.falai import Scope, Where, WorkingHours, repeat, timers
from reference.falai.conditions import holds

HOUR = timers.HOUR_MS
MONDAY_NOON = 1_767_614_400_000


def _scenario(script: list[dict[str, Any]], steps: list[dict[str, Any]], **setup: Any) -> dict[str, Any]:
    return {
        "id": "falai/test/inline",
        "system": "falai",
        "setup": setup,
        "script": script,
        "steps": steps,
    }


FLOWS = [
    {"id": "a", "name": "A", "on": [{"message": ["x"]}], "steps": [{"id": "s", "say": "hi"}]},
    {"id": "b", "name": "B", "on": [{"message": ["y"]}], "steps": [{"id": "s", "say": "ho"}]},
]


def test_a_score_out_of_range_names_the_call_and_field() -> None:
    payload = _scenario(
        [{"json": {"scores": {"a": 140}}}], [{"op": "message", "id": "m1", "text": "oi"}], flows=FLOWS
    )
    with pytest.raises(ValueError, match=r"understand call 1: json.scores.a must be a number from 0 to 100"):
        play(payload)


def test_an_exhausted_script_is_recorded_as_an_error_event() -> None:
    record = play(_scenario([], [{"op": "message", "id": "m1", "text": "oi"}], flows=FLOWS))
    assert record["events"][-1] == {
        "type": "error",
        "step": 0,
        "message": "the script has no response for call 1",
    }


def test_from_schedule_past_the_schedule_names_the_step() -> None:
    payload = _scenario([], [{"op": "wake", "from_schedule": 0}])
    with pytest.raises(ValueError, match=r"steps\[0\].from_schedule"):
        play(payload)


def test_silence_keys_round_trip() -> None:
    key = timers.silence_key("retomar", "s1", MONDAY_NOON)
    assert key == f"silence:retomar:s1:{MONDAY_NOON}"
    assert timers.parse_silence_key(key) == timers.SilenceKey("retomar", MONDAY_NOON)
    assert timers.parse_silence_key("retomar#stage:7:start:1") is None


def test_silence_holds_only_for_the_same_unanswered_message() -> None:
    assert timers.silence_still_holds(5, 5, None)
    assert timers.silence_still_holds(5, 5, 4)
    assert not timers.silence_still_holds(5, 5, 6)
    assert not timers.silence_still_holds(5, 7, None)


@given(st.integers(min_value=0, max_value=10**13), st.integers(0, 12), st.integers(13, 24), st.booleans())
def test_business_hours_never_move_a_time_back(
    at: int, open_hour: int, close_hour: int, enabled: bool
) -> None:
    """falai.business-hours.forward-only, falai.business-hours.where"""
    hours = WorkingHours(open_hour, close_hour)
    moved = timers.adjust(at, hours, enabled)
    assert moved >= at
    if not enabled:
        assert moved == at
    else:
        hour_of_day = (moved % timers.DAY_MS) / HOUR
        assert open_hour <= hour_of_day < close_hour or moved == at


def test_business_hours_examples() -> None:
    hours = WorkingHours(9, 18)
    eight_pm = MONDAY_NOON + 8 * HOUR
    assert timers.adjust(eight_pm, hours, True) == MONDAY_NOON + 21 * HOUR
    assert timers.adjust(MONDAY_NOON, hours, True) == MONDAY_NOON
    assert timers.adjust(MONDAY_NOON - 5 * HOUR, hours, True) == MONDAY_NOON - 3 * HOUR


@given(st.lists(st.text(alphabet="abc:", min_size=1, max_size=4), max_size=120))
def test_always_claims_keep_at_most_fifty(keys: list[str]) -> None:
    """falai.repeat.always-window"""
    claims: dict[str, int] = {"f:s1:": 0, "g:s1:k": 0}
    policy = repeat.Policy("always")
    for now, key in enumerate(keys):
        claim = repeat.claim_key("f", "s1", policy, key)
        repeat.record_claim(claims, claim, "f", "s1", policy, now)
        assert repeat.verdict(claims, claim, policy, now) == "already-claimed"
    mine = [k for k in claims if k.startswith("f:s1:") and k != "f:s1:"]
    assert len(mine) == min(len(set(keys)), repeat.ALWAYS_CLAIMS_KEPT)
    assert "f:s1:" in claims and "g:s1:k" in claims


@given(st.integers(min_value=1, max_value=10**9), st.integers(min_value=0, max_value=2 * 10**9))
def test_cooldown_allows_a_start_exactly_when_the_gap_has_passed(cooldown: int, elapsed: int) -> None:
    """falai.repeat.cooldown (elapsed >= cooldown is allowed; see the rule's open question)"""
    policy = repeat.Policy("cooldown", cooldown)
    claims: dict[str, int] = {}
    repeat.record_claim(claims, repeat.claim_key("f", "s1", policy, "ignored"), "f", "s1", policy, 0)
    expected = None if elapsed >= cooldown else "cooldown"
    assert repeat.verdict(claims, repeat.claim_key("f", "s1", policy, "other"), policy, elapsed) == expected


def test_once_is_spent_by_any_start() -> None:
    """falai.repeat.once, falai.repeat.claim-key"""
    policy = repeat.policy_for("message", None)
    claims: dict[str, int] = {}
    first, second = (repeat.claim_key("f", "s1", policy, key) for key in ("m1", "m2"))
    assert first == second == "f:s1:"
    assert repeat.verdict(claims, first, policy, 0) is None
    repeat.record_claim(claims, first, "f", "s1", policy, 0)
    assert repeat.verdict(claims, second, policy, 1) == "already-claimed"


def test_defaults_per_kind() -> None:
    """falai.repeat.defaults"""
    assert {k: repeat.policy_for(k, None).mode for k in repeat.DEFAULT_REPEAT} == {
        "message": "once",
        "mention": "once",
        "silence": "once",
        "event": "always",
        "start": "always",
        "chain": "always",
    }


def test_conditions() -> None:
    scope = Scope(context={"lead": {"tags": ["x"], "owner": "ai"}})
    assert holds(Where("context.lead.tags", contains="x"), scope)
    assert not holds(Where("context.lead.tags", contains="y"), scope)
    assert holds(Where("context.lead.owner", one_of=("ai", "bot")), scope)
    assert holds(Where("data.nome", exists=False), scope)
    assert not holds(Where("data.nome", equals=None), scope)
    assert repr(Where("data.nome", equals=None)) == "Where('data.nome', equals=None)"
    assert holds(None, scope)
    assert holds(lambda s: s.context["lead"]["owner"] == "ai", scope)


def test_a_where_needs_exactly_one_test() -> None:
    with pytest.raises(ValueError, match="exactly one of equals, one_of, contains, exists"):
        Where("data.nome")
    with pytest.raises(ValueError, match="exactly one"):
        Where("data.nome", equals=1, exists=True)
    with pytest.raises(ValueError, match="must start with context, data, input or now"):
        Where("nome", exists=True)


def test_playing_a_scenario_twice_gives_the_same_record() -> None:
    """falai.triggers.retry-same-keys: keys come from the inputs, never from randomness or the wall clock."""
    from conformance.scenario.load import LoadedScenario

    scenarios = [i for i in every_scenario() if isinstance(i, LoadedScenario) and i.id.startswith("falai/")]
    assert scenarios
    for item in scenarios:
        assert play(item.payload) == play(item.payload), item.id
