"""Deliberately broken falai references, each breaking one documented rule through the runtime's policies.

Each mutant is ``dataclasses.replace`` of :data:`reference.falai.DEFAULT_POLICIES` with one decision
changed, handed to ``Agent(..., policies=...)`` by the player; the shipped runtime carries no mutant code.
A broken decision that wraps the real one calls it through the base policies it was given.
"""

from __future__ import annotations

import dataclasses
import itertools
import operator
from collections.abc import Callable, Mapping, Sequence
from typing import Literal

from reference.falai import conditions, session, templates
from reference.falai.conditions import MISSING, Condition, Scope, Where
from reference.falai.definitions import DAY_MS, BusinessHours
from reference.falai.engine import HostView
from reference.falai.messages import Understanding
from reference.falai.policies import Policies
from reference.falai.repeat import ALWAYS_CLAIMS_KEPT, Policy
from reference.falai.routing import Decision, Plan, Situation
from reference.falai.session import Run, Session
from reference.falai.timers import SilenceKey, parse_silence_key
from variants import Mutant

Change = Callable[[Policies], Policies]


def _set(**changes: object) -> Change:
    """A policy change replacing the named decisions."""
    return lambda base: dataclasses.replace(base, **changes)  # type: ignore[arg-type]


def _takeover(lead_ok: Callable[[int, int], bool], score_ok: Callable[[int, Policies], bool]) -> Change:
    """A takeover test with the lead and the minimum score each replaced by a (wrong) reading."""
    return _set(
        takes_over=lambda challenger, asking, p: (
            lead_ok(challenger, asking + p.takeover_margin) and score_ok(challenger, p)
        )
    )


def _first_qualifying(scores: Mapping[str, float], flows: Sequence[str]) -> tuple[str, float] | None:
    """The first flow in agent order that scores 40 or more wins, even when a later one scores higher."""
    for flow in flows:
        if scores.get(flow, 0) >= 40:
            return flow, scores.get(flow, 0)
    return max(((flow, scores.get(flow, 0)) for flow in flows), key=lambda pair: pair[1], default=None)


def _catch_all_over_floor(base: Policies) -> Policies:
    """Starts the catch-all even while a run holds the floor."""

    def decide(situation: Situation, the_plan: Plan, scores: Mapping[str, float], p: Policies) -> Decision:
        decision = base.decide(situation, the_plan, scores, p)
        if decision.kind == "keep" and situation.catch_alls:
            return Decision("catch-all", situation.catch_alls[0])
        return decision

    return dataclasses.replace(base, decide=decide)


def _four_part_silence_key(key: str) -> SilenceKey | None:
    """Splits a silence key on every colon, so a session id holding ':' no longer parses."""
    return parse_silence_key(key) if len(key.split(":")) == 4 else None


def _silence_key_anywhere(key: str) -> SilenceKey | None:
    """Takes any key that contains ``silence:`` for a silence key, reading it from there on."""
    return parse_silence_key(key[key.index("silence:") :]) if "silence:" in key else None


def _window_over(mine: Callable[[str, str], bool]) -> Change:
    """Writes the claim, then trims to the newest 50 of the claims that ``mine(key, prefix)`` picks
    (falai.repeat.always-window with the wrong set of claims counted)."""

    def record_claim(
        claims: dict[str, int], key: str, flow_id: str, anchor: str, policy: Policy, now_ms: int
    ) -> None:
        claims[key] = now_ms
        if policy.mode == "always":
            counted = [k for k in claims if mine(k, f"{flow_id}:{anchor}:")]
            for old in counted[: max(0, len(counted) - ALWAYS_CLAIMS_KEPT)]:
                del claims[old]

    return _set(record_claim=record_claim)


def _plan_seeing(idle_silent: bool) -> Change:
    """Plans as if the idle speaker were (or were not) silent: a lone candidate's scoring is then fixed."""

    def change(base: Policies) -> Policies:
        def plan(situation: Situation) -> Plan:
            return base.plan(dataclasses.replace(situation, idle_silent=idle_silent))

        return dataclasses.replace(base, plan=plan)

    return change


def _catch_alls_scored(base: Policies) -> Policies:
    """Offers every catch-all to the model as if it had phrases."""

    def plan(situation: Situation) -> Plan:
        plain = base.plan(situation)
        extra = tuple(f for f in situation.never_scored if f not in plain.candidates)
        return Plan(candidates=plain.candidates + extra, unscored_start=plain.unscored_start)

    return dataclasses.replace(base, plan=plan)


def _cooldown_in_calendar_days(base: Policies) -> Policies:
    """Reads a cooldown of whole days as "once per calendar day": it is over once that many UTC dates have
    begun since the last start, however little time has passed. A ``1d`` cooldown then lets a trigger
    three hours later (across midnight) start a run that ``20h`` would skip, which "only after this long
    since the last start" never allows."""

    def verdict(claims: Mapping[str, int], key: str, policy: Policy, now_ms: int) -> str | None:
        cooldown = policy.cooldown_ms
        if cooldown is None or key not in claims or cooldown % DAY_MS:
            return base.verdict(claims, key, policy, now_ms)
        dates_begun = now_ms // DAY_MS - claims[key] // DAY_MS
        return None if dates_begun >= cooldown // DAY_MS else "cooldown"

    return dataclasses.replace(base, verdict=verdict)


def _verdict_never_skipping(*modes: str) -> Change:
    """A repeat verdict that never skips triggers whose policy is one of ``modes``."""

    def change(base: Policies) -> Policies:
        def verdict(claims: Mapping[str, int], key: str, policy: Policy, now_ms: int) -> str | None:
            return None if policy.mode in modes else base.verdict(claims, key, policy, now_ms)

        return dataclasses.replace(base, verdict=verdict)

    return change


def _extract_dropped(base: Policies) -> Policies:
    """Forgets the values extracted for true mentions."""

    def parse(data: dict[str, object], candidates: tuple[str, ...], call: int) -> Understanding:
        found = base.parse_understanding(data, candidates, call)
        return dataclasses.replace(found, mentions={flow: {} for flow in found.mentions})

    return dataclasses.replace(base, parse_understanding=parse)


def _top_score_dropped(base: Policies) -> Policies:
    """Reads the range as 0 to 99: a score of 100 is discarded as if the flow had not been scored."""

    def parse(data: dict[str, object], candidates: tuple[str, ...], call: int) -> Understanding:
        found = base.parse_understanding(data, candidates, call)
        kept = {flow: score for flow, score in found.scores.items() if score < 100}
        return dataclasses.replace(found, scores=kept)

    return dataclasses.replace(base, parse_understanding=parse)


def _while_ignored(base: Policies) -> Policies:
    return dataclasses.replace(
        base, premise=lambda flow, index: flow.on[index].if_ if index is not None else None
    )


def _never_live(runs: Sequence[object], flow_id: str, anchor: str) -> None:
    return None


def _hours_asked_at(offset_ms: int, clamp: bool) -> Change:
    """Asks the businessHours function about ``computed + offset_ms`` instead of the computed time, and
    (without ``clamp``) uses its answer even when that is earlier than the computed time."""

    def change(base: Policies) -> Policies:
        def adjust(computed: int, hours: BusinessHours | None, enabled: bool) -> int:
            if not enabled or hours is None:
                return computed
            answer = hours(computed + offset_ms)
            return max(computed, answer) if clamp else answer

        return dataclasses.replace(base, adjust=adjust)

    return change


def _opening_instant_closed(base: Policies) -> Policies:
    """Treats the exact opening instant as closed: a time the function keeps because it is the opening
    (the function moves the moment before it there) is pushed to the next day's opening instead."""

    def adjust(computed: int, hours: BusinessHours | None, enabled: bool) -> int:
        moved = base.adjust(computed, hours, enabled)
        if enabled and hours is not None and moved == computed and hours(computed - 1) == computed:
            return computed + DAY_MS
        return moved

    return dataclasses.replace(base, adjust=adjust)


def _hours_only_across_midnight(base: Policies) -> Policies:
    """Uses the function's answer only when it moves the time to another day: times before opening
    stay where they are (only the after-closing case is honoured)."""

    def adjust(computed: int, hours: BusinessHours | None, enabled: bool) -> int:
        moved = base.adjust(computed, hours, enabled)
        return moved if moved // DAY_MS != computed // DAY_MS else computed

    return dataclasses.replace(base, adjust=adjust)


def _direction_swapped(base: Policies) -> Policies:
    def stamp(session: Session, direction: Literal["customer", "assistant"], now_ms: int) -> None:
        base.stamp_direction(session, "assistant" if direction == "customer" else "customer", now_ms)

    return dataclasses.replace(base, stamp_direction=stamp)


def _counted_run_ids() -> Change:
    """Run ids carrying a number drawn from a counter: a retried turn would get a different one."""
    drawn = itertools.count(1)
    return _set(run_id=lambda flow_id, key: f"{flow_id}#{key}~{next(drawn)}")


def _active_only(runs: Sequence[Run], flow_id: str, anchor: str) -> Run | None:
    """The live run of a flow and anchor, counted only while it is active or parked."""
    live = session.live_run(runs, flow_id, anchor)
    return live if live is not None and live.status in ("active", "parked") else None


def _lists_left_alone(value: object, scope: Scope) -> object:
    """Renders strings and objects of ``with`` but passes lists through untouched."""
    if isinstance(value, dict):
        return {k: _lists_left_alone(v, scope) for k, v in value.items()}
    if isinstance(value, str):
        return templates.render(value, scope)
    return value


def _missing_holds(condition: Condition | None, scope: Scope) -> bool:
    """A ``Where`` over a path the scope lacks holds instead of failing."""
    if isinstance(condition, Where) and scope.lookup(condition.path) is MISSING:
        return True
    return conditions.holds(condition, scope)


MUTANTS: list[Mutant] = [
    Mutant(
        "falai-new-flow-min-39",
        rules=("falai.routing.new-flow-min-score",),
        policies=_set(new_flow_min_score=39),
        description="a new flow wins from 39 instead of 40",
    ),
    Mutant(
        "falai-new-flow-min-41",
        rules=("falai.routing.new-flow-min-score",),
        policies=_set(new_flow_min_score=41),
        description="a new flow needs 41 instead of 40",
    ),
    Mutant(
        "falai-takeover-margin-14",
        rules=("falai.routing.takeover.margin",),
        policies=_set(takeover_margin=14),
        description="a lead of 14 takes the floor",
    ),
    Mutant(
        "falai-takeover-margin-16",
        rules=("falai.routing.takeover.margin",),
        policies=_set(takeover_margin=16),
        description="a lead of 15 no longer takes the floor",
    ),
    Mutant(
        "falai-catch-all-scored",
        rules=("falai.message.catch-all.never-scored",),
        policies=_catch_alls_scored,
        description="catch-all flows are sent to the understand call as candidates",
    ),
    Mutant(
        "falai-lone-candidate-always-scored",
        rules=("falai.routing.lone-candidate-unscored", "falai.routing.lone-candidate-no-call"),
        policies=_plan_seeing(idle_silent=False),
        description="a lone candidate is scored even when nobody else could answer",
    ),
    Mutant(
        "falai-replay-not-detected",
        rules=("falai.triggers.duplicate-input",),
        policies=_set(is_replay=lambda seen, message_id: False),
        description="a replayed message id is played again",
    ),
    Mutant(
        "falai-silence-never-broken",
        rules=("falai.silence.honoured-only-while",),
        policies=_set(silence_still_holds=lambda key_ms, last_assistant, last_customer: True),
        description="every silence wake is honoured, however stale",
    ),
    Mutant(
        "falai-silence-needs-simultaneous-reply",
        rules=("falai.silence.honoured-only-while",),
        policies=_set(
            silence_still_holds=lambda key_ms, last_assistant, last_customer: (
                key_ms == last_assistant and (last_customer is None or last_customer == last_assistant)
            )
        ),
        description="a silence holds only if the customer last wrote at the very moment the assistant spoke",
    ),
    Mutant(
        "falai-silence-key-four-parts",
        rules=("falai.silence.arm", "falai.silence.fires"),
        policies=_set(parse_silence_key=_four_part_silence_key),
        description="a silence key is recognised only with exactly four colon-separated parts",
    ),
    Mutant(
        "falai-silence-key-anywhere",
        rules=("falai.silence.customer-replied",),
        policies=_set(parse_silence_key=_silence_key_anywhere),
        description="a run's wake key that contains a silence key is handled as a silence wake",
    ),
    Mutant(
        "falai-idle-silent-speaks",
        rules=("falai.idle.silent",),
        policies=_set(idle_speaks=lambda idle: True),
        description="idle: 'silent' still answers",
    ),
    Mutant(
        "falai-repeat-once-ignored",
        rules=("falai.repeat.once", "falai.message.repeat-default", "falai.mention.detector.already-claimed"),
        policies=_verdict_never_skipping("once"),
        description="a 'once' trigger is never spent",
    ),
    Mutant(
        "falai-live-runs-ignored",
        rules=("falai.live.one-per-anchor", "falai.event.already-running", "falai.event.after.replaced"),
        policies=_set(live_run=_never_live),
        description="a flow may have any number of live runs per anchor",
    ),
    Mutant(
        "falai-waiting-run-not-live",
        rules=("falai.live.one-per-anchor",),
        policies=_set(live_run=_active_only),
        description="only an active or parked run counts as live: a waiting run lets its flow start again",
    ),
    Mutant(
        "falai-takeover-ignores-min-score",
        rules=("falai.routing.takeover.min-score",),
        policies=_set(takes_over=lambda challenger, asking, p: challenger >= asking + p.takeover_margin),
        description="a 15-point lead takes the floor even below 40",
    ),
    Mutant(
        "falai-takeover-min-39",
        rules=("falai.routing.takeover.min-score",),
        policies=_takeover(operator.ge, lambda score, p: score >= 39),
        description="a challenger of an asking run wins from 39",
    ),
    Mutant(
        "falai-window-trims-once-claim",
        rules=("falai.repeat.always-window",),
        policies=_window_over(lambda key, prefix: key.startswith(prefix)),
        description="the flow's once-claim for the anchor counts toward its window of 50 always-claims",
    ),
    Mutant(
        "falai-window-counts-other-flows",
        rules=("falai.repeat.always-window",),
        policies=_window_over(lambda key, prefix: key != prefix),
        description="every other claim of the session counts toward a flow's window of 50 always-claims",
    ),
    Mutant(
        "falai-takeover-min-41",
        rules=("falai.routing.takeover.min-score",),
        policies=_takeover(operator.ge, lambda score, p: score >= 41),
        description="a challenger of an asking run needs 41",
    ),
    Mutant(
        "falai-takeover-min-exact",
        rules=("falai.routing.takeover.min-score",),
        policies=_takeover(operator.ge, lambda score, p: score == p.new_flow_min_score),
        description="only a challenger scoring exactly 40 wins",
    ),
    Mutant(
        "falai-takeover-margin-exact",
        rules=("falai.routing.takeover.margin",),
        policies=_takeover(operator.eq, lambda score, p: score >= p.new_flow_min_score),
        description="only a lead of exactly 15 takes the floor",
    ),
    Mutant(
        "falai-event-direction-ignored",
        rules=("falai.event.direction",),
        policies=_set(stamp_direction=lambda session, direction, now_ms: None),
        description="an event's direction stamps nothing",
    ),
    Mutant(
        "falai-event-direction-swapped",
        rules=("falai.event.direction",),
        policies=_direction_swapped,
        description="direction customer stamps the assistant and the other way round",
    ),
    Mutant(
        "falai-event-name-ignored",
        rules=("falai.event.registered",),
        policies=_set(names_event=lambda trigger_event, published: True),
        description="every event trigger fires on any published event",
    ),
    Mutant(
        "falai-run-id-counted",
        rules=("falai.triggers.retry-same-keys",),
        policies=_counted_run_ids(),
        description="run ids carry a counter, so a retried turn mints other keys",
    ),
    Mutant(
        "falai-anchor-defaults-to-lead",
        rules=("falai.live.anchor-default",),
        policies=_set(anchor_of=lambda flow, anchors, session_id: anchors.get("lead", session_id)),
        description="a flow without anchor is tied to the lead whenever the host names one",
    ),
    Mutant(
        "falai-repeat-ignores-anchor",
        rules=("falai.repeat.scope",),
        policies=lambda base: dataclasses.replace(
            base, claim_key=lambda flow_id, anchor, policy, key: base.claim_key(flow_id, "", policy, key)
        ),
        description="repeat counts per flow whatever the anchor; a lead's claims from elsewhere do not count",
    ),
    Mutant(
        "falai-first-qualifying-flow-wins",
        rules=("falai.routing.new-flow-min-score",),
        policies=_set(best=_first_qualifying),
        description="the first flow in agent order scoring 40 or more wins, not the highest-scoring one",
    ),
    Mutant(
        "falai-top-score-dropped",
        rules=("falai.message.scores",),
        policies=_top_score_dropped,
        description="a score of 100 is discarded (the range read as 0 to 99)",
    ),
    Mutant(
        "falai-catch-all-over-floor",
        rules=("falai.message.catch-all.when",),
        policies=_catch_all_over_floor,
        description="the catch-all starts although a run holds the floor",
    ),
    Mutant(
        "falai-lone-candidate-never-scored",
        rules=("falai.routing.lone-candidate-scored",),
        policies=_plan_seeing(idle_silent=True),
        description="a lone candidate starts unscored whatever the idle speaker",
    ),
    Mutant(
        "falai-if-ignored",
        rules=("falai.if.gate", "falai.if.failed-silent", "falai.routing.eligible", "falai.if.default-while"),
        policies=_set(holds=lambda condition, scope: True),
        description="every if and while holds",
    ),
    Mutant(
        "falai-if-missing-value-holds",
        rules=("falai.if.gate",),
        policies=_set(holds=_missing_holds),
        description="an if that tests a value the agent does not have holds, as if the test had passed",
    ),
    Mutant(
        "falai-with-lists-unrendered",
        rules=("falai.event.payload-input",),
        policies=_set(render_params=_lists_left_alone),
        description="placeholders inside a list of a do step's with are left as written",
    ),
    Mutant(
        "falai-action-speech-ignored",
        rules=("falai.silence.arm",),
        policies=_set(action_spoke_is_speech=False),
        description="an action whose result says it spoke stamps the time but does not count as speaking",
    ),
    Mutant(
        "falai-while-ignored",
        rules=("falai.if.while-override",),
        policies=_while_ignored,
        description="a flow's while is ignored in favour of its trigger's if",
    ),
    Mutant(
        "falai-idle-never-speaks",
        rules=("falai.idle.answers", "falai.idle.default", "falai.idle.options", "falai.routing.idle-last"),
        policies=_set(idle_speaks=lambda idle: False),
        description="the idle speaker never answers",
    ),
    Mutant(
        "falai-idle-over-a-reply",
        rules=("falai.idle.answers",),
        policies=_set(idle_turn=lambda floor, spoke: floor is None),
        description="the idle speaker answers even when something else spoke",
    ),
    Mutant(
        "falai-no-ingest",
        rules=("falai.routing.ingest-first",),
        policies=_set(ingesting_run=lambda runs: None),
        description="a waiting run never gets the message first",
    ),
    Mutant(
        "falai-start-key-shape",
        rules=("falai.event.after.park",),
        policies=_set(start_key=lambda run_id, at: f"{run_id}:{at}"),
        description="the after wake key drops ':start'",
    ),
    Mutant(
        "falai-business-hours-ignored",
        rules=("falai.silence.business-hours", "falai.event.business-hours"),
        policies=_set(adjust=lambda computed, hours, enabled: computed),
        description="businessHours: true moves nothing",
    ),
    Mutant(
        "falai-business-hours-asked-early",
        rules=("falai.business-hours.call", "falai.business-hours.forward-only"),
        policies=_hours_asked_at(-1, clamp=False),
        description="the function is asked about the computed time minus 1 ms and its answer used as is",
    ),
    Mutant(
        "falai-business-hours-asked-late",
        rules=("falai.business-hours.call",),
        policies=_hours_asked_at(1, clamp=True),
        description="the function is asked about the computed time plus 1 ms",
    ),
    Mutant(
        "falai-business-hours-opening-closed",
        rules=("falai.business-hours.call",),
        policies=_opening_instant_closed,
        description="a time exactly at opening moves to the next day's opening",
    ),
    Mutant(
        "falai-business-hours-same-day-kept",
        rules=("falai.business-hours.call",),
        policies=_hours_only_across_midnight,
        description="only a move to another day is used; a time before opening stays",
    ),
    Mutant(
        "falai-always-key-ignored",
        rules=("falai.event.same-key", "falai.start.same-key", "falai.repeat.always"),
        policies=_verdict_never_skipping("always"),
        description="the same always-key starts a run again",
    ),
    Mutant(
        "falai-cooldown-ignored",
        rules=("falai.repeat.cooldown",),
        policies=_verdict_never_skipping("cooldown"),
        description="a cooldown never skips",
    ),
    Mutant(
        "falai-cooldown-in-calendar-days",
        rules=("falai.repeat.cooldown",),
        policies=_cooldown_in_calendar_days,
        description="a cooldown of whole days ends when a new UTC date begins, so 1d allows what 20h skips",
    ),
    Mutant(
        "falai-claim-nonce-always",
        rules=("falai.repeat.claim-key",),
        policies=_set(claim_key=lambda flow_id, anchor, policy, key: f"{flow_id}:{anchor}:{key}"),
        description="every claim carries the trigger key as its nonce",
    ),
    Mutant(
        "falai-known-fields-asked-again",
        rules=("falai.repeat.known-fields-skipped",),
        policies=_set(fields_to_ask=lambda collect, data: list(collect)),
        description="collect steps ask again for fields already known",
    ),
    Mutant(
        "falai-asking-run-talks-over-mention",
        rules=("falai.mention.say-answers",),
        policies=_set(another_reply=lambda spoke: False),
        description="the asking run speaks although a mention already replied",
    ),
    Mutant(
        "falai-extract-dropped",
        rules=("falai.mention.extract.input",),
        policies=_extract_dropped,
        description="extracted mention values never reach the run's input",
    ),
    Mutant(
        "falai-templates-unrendered",
        rules=("falai.start.input", "falai.event.payload-input"),
        policies=_set(render=lambda text, scope: text),
        description="{{input.x}} placeholders are sent as written",
    ),
    Mutant(
        "falai-host-claims-ignored",
        rules=("falai.repeat.host-claims", "falai.live.anchor-lead"),
        policies=_set(host_view=lambda claims, anchors: HostView()),
        description="turn({ claims, anchors }) are ignored",
    ),
    Mutant(
        "falai-flow-gone-renamed",
        rules=("falai.start.flow-gone",),
        policies=_set(flow_gone="already-running"),
        description="an unknown flow is skipped under another (documented) code",
    ),
    Mutant(
        "falai-silence-key-without-session",
        rules=("falai.silence.arm",),
        policies=_set(silence_key=lambda flow_id, session_id, at: f"silence:{flow_id}:{at}"),
        description="the silence wake key leaves out the session id",
    ),
]
