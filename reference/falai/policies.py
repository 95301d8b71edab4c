"""Every rule decision of the falai reference in one frozen object, handed to the runtime through its API.

Why: the conformance suite checks itself with *mutants* (the reference with one documented rule broken)
and *permitted variants* (the reference making another allowed choice where the documents leave one
open). Both are alternative :class:`Policies` built with ``dataclasses.replace`` outside this package
(``variants/``), and given to ``Agent(..., policies=...)``; nothing is patched. Each field only *points* at
the one place its rule is implemented (the rule id is cited there); the runtime reads the decision through
the object it was given, never through a module global.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from reference.falai import conditions, engine, messages, repeat, routing, session, templates, timers
from reference.falai.conditions import Condition, Scope
from reference.falai.definitions import BusinessHours, Flow, Idle
from reference.falai.inputs import HostClaims
from reference.falai.session import Run, Session


@dataclass(frozen=True)
class Policies:
    """The decisions a falai runtime makes, each defaulting to the documented rule."""

    # -- routing a customer message (reference.falai.routing) --------------------------------------------
    new_flow_min_score: int = routing.NEW_FLOW_MIN_SCORE
    """falai.routing.new-flow-min-score, falai.routing.takeover.min-score"""
    takeover_margin: int = routing.TAKEOVER_MARGIN
    """falai.routing.takeover.margin"""
    plan: Callable[[routing.Situation], routing.Plan] = routing.plan
    """falai.routing.asking-scored, lone-candidate-*, falai.message.catch-all.never-scored"""
    decide: Callable[[routing.Situation, routing.Plan, Mapping[str, float], Policies], routing.Decision] = (
        routing.decide
    )
    """falai.routing.* steps 3 to 6, falai.message.catch-all.when"""
    best: Callable[[Mapping[str, float], Sequence[str]], tuple[str, float] | None] = routing.best
    """Which flow has the top score; ties go to the earlier flow (an open question)."""
    takes_over: Callable[[float, float, Policies], bool] = routing.takes_over
    """falai.routing.takeover.margin and falai.routing.takeover.min-score"""

    # -- the message turn (reference.falai.messages) ---------------------------------------------------------
    is_replay: Callable[[Sequence[str], str], bool] = messages.is_replay
    """falai.triggers.duplicate-input"""
    ingesting_run: Callable[[Sequence[Run]], Run | None] = messages.ingesting_run
    """falai.routing.ingest-first"""
    parse_understanding: Callable[[dict[str, Any], tuple[str, ...], int], messages.Understanding] = (
        messages.parse_understanding
    )
    """falai.message.scores, falai.mention.extract.input: what the understand call answered."""
    another_reply: Callable[[bool], bool] = messages.another_reply
    """falai.mention.say-answers"""
    idle_turn: Callable[[str | None, bool], bool] = messages.idle_turn
    """falai.idle.answers"""
    idle_speaks: Callable[[Literal["silent"] | Idle | None], bool] = messages.idle_speaks
    """falai.idle.silent, falai.idle.default"""
    catch_all_after_mention_reply: Literal["stays-out", "holds-floor"] = "stays-out"
    """falai.mention.say-do-one-call's open question: after a mention's ``say`` answered, the catch-all
    stays out (the reference), or starts and quietly holds the floor (another reading)."""

    understand_on_ingest: bool = False
    """falai.routing.ingest-first's open question: once a waiting run took the message and routing is
    skipped, the turn makes no understand call (the reference), or still makes it for what else needs the
    model (the scores it returns are not used)."""
    waiting_run_keeps_floor: bool = True
    """falai.silence.fires' open question: a run parked on a ``wait`` keeps the floor (the reference), or
    hands it back to the run it suspended (another reading)."""

    # -- conditions, templates and steps (reference.falai.conditions, templates, engine) ------------------
    holds: Callable[[Condition | None, Scope], bool] = conditions.holds
    """falai.if.gate, falai.if.failed-silent"""
    premise: Callable[[Flow, int | None], Condition | None] = engine.premise_condition
    """falai.if.default-while, falai.if.while-override"""
    render: Callable[[str, Scope], str] = templates.render
    """The text of say and prompt steps (falai.start.input, falai.event.payload-input)."""
    render_params: Callable[[Any, Scope], Any] = templates.render_all
    action_spoke_is_speech: bool = True
    """falai.silence.stamp, falai.silence.arm: an action whose result says ``spoke: true`` spoke this turn."""
    """A do step's ``with``, every string at any depth (falai.event.payload-input)."""
    fields_to_ask: Callable[[Sequence[str], Mapping[str, Any]], list[str]] = engine.fields_to_ask
    """falai.repeat.known-fields-skipped"""

    # -- starts: repeat, live runs, anchors (reference.falai.repeat, session, engine) ---------------------
    claim_key: Callable[[str, str, repeat.Policy, str], str] = repeat.claim_key
    """falai.repeat.claim-key"""
    verdict: Callable[[Mapping[str, int], str, repeat.Policy, int], str | None] = repeat.verdict
    """falai.repeat.once, falai.repeat.always, falai.repeat.cooldown"""
    record_claim: Callable[[dict[str, int], str, str, str, repeat.Policy, int], None] = repeat.record_claim
    """falai.repeat.claim-key, falai.repeat.always-window: write a start's claim, trim old always-claims."""
    live_run: Callable[[Sequence[Run], str, str], Run | None] = session.live_run
    """falai.live.one-per-anchor"""
    anchor_of: Callable[[Flow, Mapping[str, str], str], str] = engine.anchor_of
    """falai.live.anchor-default, falai.live.anchor-lead"""
    host_view: Callable[[HostClaims | None, Mapping[str, str] | None], engine.HostView] = engine.host_view
    """falai.repeat.host-claims, falai.live.anchor-lead"""
    run_id: Callable[[str, str], str] = engine.run_id
    """falai.triggers.run-id.message, falai.event.run-id, falai.triggers.retry-same-keys"""
    names_event: Callable[[str, str], bool] = engine.names_event
    """falai.event.registered: which event an event trigger answers to."""
    stamp_direction: Callable[[Session, Literal["customer", "assistant"], int], None] = (
        session.stamp_direction
    )
    """falai.event.direction"""
    flow_gone: str = engine.FLOW_GONE
    """falai.start.flow-gone"""

    # -- timers (reference.falai.timers) ---------------------------------------------------------------------
    silence_key: Callable[[str, str, int], str] = timers.silence_key
    """falai.silence.arm"""
    parse_silence_key: Callable[[str], timers.SilenceKey | None] = timers.parse_silence_key
    """falai.silence.arm, falai.silence.fires: which wake keys are silence keys (the rest wake runs)."""
    silence_still_holds: Callable[[int, int | None, int | None], bool] = timers.silence_still_holds
    """falai.silence.honoured-only-while"""
    start_key: Callable[[str, int], str] = timers.start_key
    """falai.event.after.park"""
    adjust: Callable[[int, BusinessHours | None, bool], int] = timers.adjust
    """falai.business-hours.where, falai.business-hours.forward-only"""


DEFAULT_POLICIES = Policies()
"""The documented behaviour."""
