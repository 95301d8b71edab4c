"""Permitted variants of the falai reference: allowed choices every falai scenario must accept.

Each one is the reference choosing differently where the triggers guide leaves the choice open (a rule's
``open_question``, a key shape or a field it does not fix). A scenario that rejects one of these pins the
reference, not the guide.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from reference.falai import routing
from reference.falai.definitions import Flow
from reference.falai.policies import Policies
from reference.falai.repeat import Policy
from variants import Permitted, Record
from variants.records import EXTRA, extra_event_and_final_fields


def _turns(record: Record) -> list[dict[str, Any]]:
    return [event for event in record.get("events", []) if event.get("type") == "turn"]


# -- record shapes the guide does not fix -------------------------------------------------------------------


def _another_reply_in_skipped(record: Record) -> Record:
    """The ``another-reply`` line is reported in ``skipped`` (with its flow), not in ``outcomes``."""
    changed = copy.deepcopy(record)
    for turn in _turns(changed):
        quiet = [line for line in turn.get("outcomes", []) if line.get("code") == "another-reply"]
        turn["outcomes"] = [line for line in turn.get("outcomes", []) if line.get("code") != "another-reply"]
        for line in quiet:
            run_id = str(line.get("runId", ""))
            turn.setdefault("skipped", []).append(
                {"flowId": run_id.split("#", 1)[0], "code": "another-reply", "runId": run_id}
            )
    return changed


def _replaces_null(record: Record) -> Record:
    """A silence wake with no earlier key says ``replaces: null`` instead of leaving the field out."""
    changed = copy.deepcopy(record)
    for turn in _turns(changed):
        for entry in turn.get("schedule", []):
            if str(entry.get("key", "")).startswith("silence:"):
                entry.setdefault("replaces", None)
    return changed


def _step_keys_slashed(record: Record) -> Record:
    """A step's message is keyed ``step/<runId>/<stepId>`` (only the idle speaker's key is documented)."""
    changed = copy.deepcopy(record)

    def rekey(key: Any) -> Any:
        if not isinstance(key, str) or key.startswith("idle:") or ":" not in key:
            return key
        run_id, _, step_id = key.rpartition(":")
        return f"step/{run_id}/{step_id}"

    for turn in _turns(changed):
        for message in turn.get("messages", []):
            message["key"] = rekey(message.get("key"))
    for entry in changed.get("final", {}).get("session", {}).get("history", []):
        if "key" in entry:
            entry["key"] = rekey(entry["key"])
    return changed


def _idle_kind_reply(record: Record) -> Record:
    """The idle speaker's message is reported with kind ``reply`` (our documents name only ``verbatim``)."""
    changed = copy.deepcopy(record)
    for turn in _turns(changed):
        for message in turn.get("messages", []):
            if message.get("kind") == "idle":
                message["kind"] = "reply"
    return changed


_LINE_LISTS = ("started", "skipped", "ended", "outcomes", "schedule", "messages")
"""The lists of a turn whose entries are report lines (not data a flow or an action received)."""


def _extra_fields_in_lines(record: Record) -> Record:
    """Every report line carries one more field: each entry of a turn's started, skipped, ended, outcomes,
    schedule and messages, each candidate of an understand call, and each run of the final session.

    The guide names the fields it fixes (``code``, ``runId``, ``key``, ``at``, ``replaces`` ...); nothing
    forbids an implementation from reporting more on a line, so no expectation may pin a line whole."""
    changed = copy.deepcopy(record)
    lines: list[Any] = []
    for event in changed.get("events", []):
        if event.get("type") == "turn":
            lines += [line for name in _LINE_LISTS for line in event.get(name, [])]
        if event.get("type") == "model_request":
            lines += event.get("candidates", [])
    lines += changed.get("final", {}).get("session", {}).get("runs", [])
    for line in lines:
        if isinstance(line, dict):
            line[EXTRA] = "added by a permitted variant"
    return changed


# -- readings of open questions -----------------------------------------------------------------------------


def _catch_all_holds_floor(base: Policies) -> Policies:
    """After a mention's ``say`` answered, the catch-all still starts and takes the floor, but keeps quiet
    this turn (``another-reply``) and asks on the next message, as an asking run would."""
    return dataclasses.replace(base, catch_all_after_mention_reply="holds-floor")


def _anchor_spelled_session(base: Policies) -> Policies:
    """A session anchor is written ``session=<id>`` inside claim keys."""

    def anchor_of(flow: Flow, anchors: Mapping[str, str], session_id: str) -> str:
        anchor = base.anchor_of(flow, anchors, session_id)
        return f"session={anchor}" if anchor == session_id else anchor

    return dataclasses.replace(base, anchor_of=anchor_of)


def _cooldown_exclusive(base: Policies) -> Policies:
    """A trigger exactly one cooldown after the last start is still in the cooldown."""

    def verdict(claims: Mapping[str, int], key: str, policy: Policy, now_ms: int) -> str | None:
        found = base.verdict(claims, key, policy, now_ms)
        if found is None and policy.cooldown_ms is not None and key in claims:
            return "cooldown" if now_ms - claims[key] <= policy.cooldown_ms else None
        return found

    return dataclasses.replace(base, verdict=verdict)


def _suspended_scored_only_when_eligible(situation: routing.Situation) -> routing.Plan:
    """The guide's own candidate list: a flow with a suspended run is scored only when it is eligible
    (its ``repeat`` still allows a start: step 2), the asking run's flow being the one addition (step 3).
    A spent ``repeat: 'once'`` flow with a suspended run is then no candidate at all."""
    scored = routing.plan(situation)
    keep = {*situation.eligible, *filter(None, [situation.asking])}
    return dataclasses.replace(scored, candidates=tuple(f for f in scored.candidates if f in keep))


def _ties_to_later(scores: Mapping[str, float], flows: Sequence[str]) -> tuple[str, float] | None:
    """Among equal top scores the later flow (agent order) wins."""
    winner: tuple[str, float] | None = None
    for flow in flows:
        score = scores.get(flow, 0)
        if winner is None or score >= winner[1]:
            winner = (flow, score)
    return winner


PERMITTED: list[Permitted] = [
    Permitted(
        name="falai-extra-record-fields",
        system="falai",
        exercises=("protocol:extra-fields",),
        description="every event and the final state carry a field the record vocabulary does not list",
        transform=extra_event_and_final_fields,
    ),
    Permitted(
        name="falai-extra-fields-on-report-lines",
        system="falai",
        exercises=("protocol:extra-fields",),
        description="every report line of a turn, candidate and run carries one field more",
        transform=_extra_fields_in_lines,
    ),
    Permitted(
        name="falai-catch-all-holds-floor-after-mention",
        system="falai",
        exercises=("falai.mention.say-do-one-call#open_question", "falai.message.catch-all.when"),
        description="after a mention's say answered, the catch-all still starts and quietly holds the floor",
        policies=_catch_all_holds_floor,
    ),
    Permitted(
        name="falai-another-reply-in-skipped",
        system="falai",
        exercises=("falai.mention.say-answers#open_question",),
        description="the another-reply line is reported in skipped[] rather than outcomes[]",
        transform=_another_reply_in_skipped,
    ),
    Permitted(
        name="falai-first-wake-replaces-null",
        system="falai",
        exercises=("falai.silence.replaces#open_question",),
        description="a flow's first silence wake carries replaces: null instead of no replaces field",
        transform=_replaces_null,
    ),
    Permitted(
        name="falai-step-message-keys",
        system="falai",
        exercises=("falai.idle.key#open_question",),
        description="a step's message key is step/<runId>/<stepId> (only idle keys are documented)",
        transform=_step_keys_slashed,
    ),
    Permitted(
        name="falai-idle-message-kind",
        system="falai",
        exercises=("falai.idle.key#open_question",),
        description="the idle speaker's message has kind 'reply' (its outcome line stays kind 'idle')",
        transform=_idle_kind_reply,
    ),
    Permitted(
        name="falai-session-anchor-spelling",
        system="falai",
        exercises=("falai.repeat.claim-key#open_question",),
        description="a session anchor is written session=<id> inside claim keys",
        policies=_anchor_spelled_session,
    ),
    Permitted(
        name="falai-cooldown-exclusive",
        system="falai",
        exercises=("falai.repeat.cooldown#open_question",),
        description="a trigger exactly one cooldown after the last start is still refused (cooldown)",
        policies=_cooldown_exclusive,
    ),
    Permitted(
        name="falai-score-ties-to-later-flow",
        system="falai",
        exercises=(
            "falai.routing.new-flow-min-score#open_question",
            "falai.routing.takeover.margin#open_question",
        ),
        description="among equal top scores the later flow in agent order wins",
        policies=lambda base: dataclasses.replace(base, best=_ties_to_later),
    ),
    Permitted(
        name="falai-suspended-flow-scored-only-when-eligible",
        system="falai",
        exercises=("falai.routing.asking-scored#open_question", "falai.routing.takeover.effect"),
        description="a flow with a suspended run is scored only while its repeat allows a start",
        policies=lambda base: dataclasses.replace(base, plan=_suspended_scored_only_when_eligible),
    ),
    Permitted(
        name="falai-understand-call-on-ingest",
        system="falai",
        exercises=("falai.routing.ingest-first#open_question",),
        description="a message a waiting run ingests still gets an understand call (its answer unused)",
        policies=lambda base: dataclasses.replace(base, understand_on_ingest=True),
    ),
    Permitted(
        name="falai-waiting-run-gives-floor-back",
        system="falai",
        exercises=("falai.silence.fires#open_question",),
        description="a run parked on a wait hands the floor back to the run it suspended",
        policies=lambda base: dataclasses.replace(base, waiting_run_keeps_floor=False),
    ),
]
