"""falai cases around the documented boundaries, and the falai facts a record is compared on.

Three families of case:

- **routing**: one to three message flows (each asks for a field, so a started run holds the floor),
  perhaps a catch-all that only says something, the idle speaker on or silent, and one or two customer
  messages whose understand calls score every flow. Scores cluster around 40 (the least winning score)
  and around 15 apart (the takeover margin). Scores within one call are distinct, since ties are open
  (``falai.routing.new-flow-min-score#open_question``); ``idle: silent`` comes with one message only, so
  a lone candidate is never asked about while a run holds the floor (an open question too).
- **silence**: a catch-all that speaks at the first message, one or two silence flows (durations in hours
  and half hours, some with ``businessHours``), perhaps a second customer message (answered again when the
  catch-all repeats), then a wake fired by its documented key, fresh or stale.
- **repeat**: an event flow with ``once``, ``always``, the default or a cooldown, and events a few minutes
  either side of the cooldown. Keys are reused only where the documents say what a reused key does.

Facts (read from the reference's record): per turn which flows started (and, for events, the skip codes);
the final floor and runs (status); which model calls were made (understand, talk, idle); the silence wakes
scheduled (key, and time unless it falls exactly on an opening or closing hour, which the declarative
``businessHours`` leaves open); whether a fired wake was honoured. Never message wording, keys the
documents do not fix, or the order of schedule entries.
"""

from __future__ import annotations

from typing import Any

from hypothesis import assume
from hypothesis import strategies as st

from conformance.fuzz.facts import Fact
from conformance.scenario.falai import DEFAULT_CLOCK_START_MS

Case = dict[str, Any]
Record = dict[str, Any]

MINUTE_MS = 60_000
HOUR_MS = 60 * MINUTE_MS
DAY_MS = 24 * HOUR_MS

#: Scores near 40 and pairs 14, 15 and 16 apart around it.
SCORE_POINTS = (0, 10, 24, 25, 26, 38, 39, 40, 41, 42, 54, 55, 56, 57, 70, 85, 100)
#: How far a challenger's score lies from the asking flow's on a second message.
MARGIN_STEPS = (14, 15, 16)
#: Scores of the asking flow on a second message: a challenger 14 to 16 above lands either side of 40.
TAKEOVER_BASES = (23, 24, 25, 26, 40, 55)
#: Either side of the least winning score.
NEAR_40 = (39, 40, 41)
#: Silence durations, in minutes (hours and half hours, a day either side).
SILENCE_MINUTES = (60, 90, 480, 1380, 1440, 1500, 2880)
COOLDOWNS = ("30m", "1h", "90m", "2h", "24h")
#: Gaps between events, in minutes: a minute either side of every cooldown.
EVENT_GAPS = (1, 29, 30, 31, 59, 60, 61, 89, 90, 91, 119, 120, 121, 1439, 1440, 1441)


def _minutes(text: str) -> int:
    value, unit = int(text[:-1]), text[-1]
    return value * {"m": 1, "h": 60, "d": 1440}[unit]


def _duration(minutes: int) -> str:
    if minutes % 1440 == 0:
        return f"{minutes // 1440}d"
    if minutes % 60 == 0:
        return f"{minutes // 60}h"
    return f"{minutes}m"


def _scores(count: int) -> st.SearchStrategy[list[int]]:
    score = st.one_of(st.sampled_from(NEAR_40), st.sampled_from(SCORE_POINTS), st.integers(0, 100))
    return st.lists(score, min_size=count, max_size=count, unique=True)


# --- routing -------------------------------------------------------------------------------------------


@st.composite
def routing_case(draw: st.DrawFn) -> Case:
    count = draw(st.sampled_from((2, 3, 1)))
    ids = [f"f{i}" for i in range(1, count + 1)]
    catch_all = draw(st.booleans())
    messages = draw(st.sampled_from((2, 1, 2, 2)))
    silent = messages == 1 and draw(st.booleans())
    flows: list[dict[str, Any]] = [
        {
            "id": flow,
            "name": f"Flow {flow}",
            "description": f"The customer wants {flow}",
            "on": [{"message": [f"asks about {flow}"]}],
            "steps": [{"id": "ask", "collect": [f"x{flow}"]}],
        }
        for flow in ids
    ]
    if catch_all:
        flows.append(
            {
                "id": "ca",
                "name": "Catch-all",
                "on": [{"message": []}],
                "steps": [{"id": "s", "say": "Hello!"}],
            }
        )
    setup: dict[str, Any] = {
        "fields": {f"x{flow}": {"type": "string", "ask": f"Ask for x{flow}."} for flow in ids},
        "flows": flows,
    }
    if silent:
        setup["idle"] = "silent"
    turns = [draw(_scores(count))]
    if messages == 2:
        # The first message mostly starts a flow (the best score is made the winner's), and the second
        # meets it holding the floor: one challenger is aimed 13 to 17 points above it, either side of 40.
        asking = draw(st.integers(0, count - 1))
        top = draw(st.one_of(st.sampled_from((*NEAR_40, 55, 100)), st.integers(0, 100)))
        turns[0] = [top if n == asking else draw(st.integers(0, max(0, top - 1))) for n in range(count)]
        bases = st.sampled_from(TAKEOVER_BASES)
        base = draw(st.one_of(bases, bases, st.integers(0, 100)))
        near = st.sampled_from(MARGIN_STEPS)
        lead = st.one_of(near, near, near, st.integers(-100, 100))
        second = [base if n == asking else min(100, max(0, base + draw(lead))) for n in range(count)]
        assume(len(set(second)) == count and len(set(turns[0])) == count)
        turns.append(second)
    script: list[dict[str, Any]] = [
        {"purpose": "understand", "json": {"scores": dict(zip(ids, scores, strict=True))}} for scores in turns
    ]
    script.extend({"text": f"reply {n}"} for n in range(1, messages + 2))
    steps = [{"op": "message", "id": f"m{n}", "text": f"message {n}"} for n in range(1, messages + 1)]
    return {"system": "falai", "setup": setup, "script": script, "steps": steps}


def routing_facts(case: Case, record: Record) -> list[Fact]:
    catch_alls = {flow["id"] for flow in case["setup"]["flows"] if flow["on"][0]["message"] == []}
    scores = [entry["json"]["scores"] for entry in case["script"] if entry.get("purpose") == "understand"]
    turns = _turns(record)
    facts: list[Fact] = []
    floor: str | None = None
    for index, turn in enumerate(turns):
        started = [run["flowId"] for run in turn["started"]]
        shown = (
            ", ".join(f"{flow} {score}" for flow, score in scores[index].items())
            if index < len(scores)
            else ""
        )
        if floor is not None:
            rule = "falai.routing.takeover.margin"
            why = f"{floor} is asking; scores {shown}: a challenger needs 15 more than the asking flow and 40"
        elif started and started[0] in catch_alls:
            rule, why = (
                "falai.routing.catch-all-fallback",
                f"nobody holds the floor; scores {shown}: none reaches 40",
            )
        else:
            rule, why = "falai.routing.new-flow-min-score", f"nobody holds the floor; scores {shown}: 40 wins"
        facts.append(Fact(rule, f"events[type=turn][{index}].started[*].flowId", "equals", started, why))
        for flow in started:
            if flow not in catch_alls:
                floor = flow
    session = record["final"]["session"]
    facts.append(Fact("falai.message.single-floor", "final.session.floor", "equals", session["floor"]))
    runs = [{"runId": r["runId"], "flowId": r["flowId"], "status": r["status"]} for r in session["runs"]]
    facts.append(
        Fact(
            "falai.routing.takeover.effect",
            "final.session.runs",
            "subset",
            runs,
            "a winner over the asking run starts; the asking run is suspended",
        )
    )
    facts.append(_purposes(record, "falai.routing.idle-last"))
    return facts


# --- silence -------------------------------------------------------------------------------------------


@st.composite
def silence_case(draw: st.DrawFn) -> Case:
    hours = draw(
        st.none()
        | st.integers(0, 22).flatmap(
            lambda open_hour: st.tuples(st.just(open_hour), st.integers(open_hour + 1, 24))
        )
    )
    silences = draw(st.integers(1, 2))
    flows: list[dict[str, Any]] = []
    catch_all_repeats = draw(st.booleans())
    triage: dict[str, Any] = {"message": []}
    if catch_all_repeats:
        triage["repeat"] = "always"
    flows.append({"id": "triagem", "name": "Triage", "on": [triage], "steps": [{"id": "s", "say": "Hi!"}]})
    for n in range(1, silences + 1):
        minutes = draw(st.one_of(st.sampled_from(SILENCE_MINUTES), st.integers(1, 72).map(lambda h: h * 60)))
        trigger: dict[str, Any] = {"silence": _duration(minutes)}
        if hours is not None and draw(st.booleans()):
            trigger["businessHours"] = True
        flows.append(
            {
                "id": f"s{n}",
                "name": f"Silence {n}",
                "on": [trigger],
                "steps": [{"id": "s", "say": "Still there?"}],
            }
        )
    setup: dict[str, Any] = {"idle": "silent", "flows": flows}
    case: Case = {"system": "falai", "setup": setup, "steps": []}
    if hours is not None:
        setup["businessHours"] = {"open_hour": hours[0], "close_hour": hours[1]}
        case["requires"] = ["falai.business-hours"]
    steps: list[dict[str, Any]] = [{"op": "message", "id": "m1", "text": "hello"}]
    spoke_at = [DEFAULT_CLOCK_START_MS]
    if draw(st.booleans()):
        gap = draw(st.sampled_from((30, 60, 600, 1380, 1440)))
        steps += [
            {"op": "advance", "by": _duration(gap)},
            {"op": "message", "id": "m2", "text": "hello again"},
        ]
        if catch_all_repeats:
            spoke_at.append(DEFAULT_CLOCK_START_MS + gap * MINUTE_MS)
    flow = draw(st.integers(1, silences))
    stamp = draw(st.sampled_from(spoke_at))
    # Far enough for any wake to be due: the longest silence plus a day of business-hours postponement.
    steps += [
        {"op": "advance", "by": "5d"},
        {"op": "wake", "key": f"silence:s{flow}:s1:{stamp}"},
    ]
    case["steps"] = steps
    return case


def _next_working(at_ms: int, hours: dict[str, int]) -> int | None:
    """The declarative business hours applied to ``at_ms``; None when it falls exactly on a boundary."""
    day = at_ms - at_ms % DAY_MS
    into = at_ms - day
    if into in (hours["open_hour"] * HOUR_MS, hours["close_hour"] * HOUR_MS):
        return None
    if into >= hours["close_hour"] * HOUR_MS:
        return day + DAY_MS + hours["open_hour"] * HOUR_MS
    if into < hours["open_hour"] * HOUR_MS:
        return day + hours["open_hour"] * HOUR_MS
    return at_ms


def silence_facts(case: Case, record: Record) -> list[Fact]:
    setup = case["setup"]
    silence_flows = [flow for flow in setup["flows"] if "silence" in flow["on"][0]]
    turns = _turns(record)
    facts: list[Fact] = []
    clock = DEFAULT_CLOCK_START_MS
    turn_index = 0
    for step in case["steps"]:
        if step["op"] == "advance":
            clock += _minutes(step["by"]) * MINUTE_MS
            continue
        turn = turns[turn_index]
        if step["op"] == "message" and turn["messages"]:
            facts.append(
                Fact(
                    "falai.silence.arm",
                    f"events[type=turn][{turn_index}].schedule",
                    "count",
                    len(turn["schedule"]),
                    "one wake per silence flow that has not fired",
                )
            )
            for flow in silence_flows:
                if any(f"silence:{flow['id']}:" in entry["key"] for entry in turn["schedule"]):
                    facts.extend(_wake_facts(turn_index, flow, clock, setup.get("businessHours")))
        if step["op"] == "wake":
            started = [run["flowId"] for run in turn["started"]]
            broken = sum(1 for line in turn["outcomes"] if line.get("code") == "silence-broken")
            why = f"the wake {step['key']} is honoured only while that assistant message is still unanswered"
            facts += [
                Fact(
                    "falai.silence.honoured-only-while",
                    f"events[type=turn][{turn_index}].started[*].flowId",
                    "equals",
                    started,
                    why,
                ),
                Fact(
                    "falai.silence.honoured-only-while",
                    f"events[type=turn][{turn_index}].outcomes[code=silence-broken]",
                    "count",
                    broken,
                    why,
                ),
                Fact(
                    "falai.silence.honoured-only-while",
                    f"events[type=turn][{turn_index}].changed",
                    "equals",
                    turn["changed"],
                    why,
                ),
            ]
        turn_index += 1
    return facts


def _wake_facts(index: int, flow: dict[str, Any], now: int, hours: dict[str, int] | None) -> list[Fact]:
    trigger = flow["on"][0]
    key = f"silence:{flow['id']}:s1:{now}"
    due = now + _minutes(trigger["silence"]) * MINUTE_MS
    at: int | None = due
    rule = "falai.silence.arm"
    if trigger.get("businessHours") and hours is not None:
        rule = "falai.silence.business-hours"
        at = _next_working(due, hours)
    facts = [Fact("falai.silence.arm", f'events[type=turn][{index}].schedule[key="{key}"]', "count", 1)]
    if at is not None:
        facts.append(
            Fact(
                rule,
                f'events[type=turn][{index}].schedule[key="{key}"][0].at',
                "equals",
                at,
                f"{trigger['silence']} after the assistant spoke"
                + (", moved into working hours" if rule.endswith("business-hours") else ""),
            )
        )
    return facts


# --- repeat --------------------------------------------------------------------------------------------


@st.composite
def repeat_case(draw: st.DrawFn) -> Case:
    repeat = draw(st.sampled_from(("default", "once", "always", "cooldown")))
    trigger: dict[str, Any] = {"event": "paid"}
    if repeat == "cooldown":
        trigger["repeat"] = {"cooldown": draw(st.sampled_from(COOLDOWNS))}
    elif repeat != "default":
        trigger["repeat"] = repeat
    setup = {
        "events": ["paid"],
        "flows": [
            {"id": "recibo", "name": "Receipt", "on": [trigger], "steps": [{"id": "s", "say": "Received."}]}
        ],
    }
    steps: list[dict[str, Any]] = []
    keys: list[str] = []
    for n in range(draw(st.integers(2, 4))):
        if n:
            steps.append({"op": "advance", "by": _duration(draw(st.sampled_from(EVENT_GAPS)))})
        reuse = repeat in ("default", "always") and keys and draw(st.booleans())
        key = draw(st.sampled_from(keys)) if reuse else f"k{n + 1}"
        keys.append(key)
        steps.append({"op": "event", "event": "paid", "key": key})
    return {"system": "falai", "setup": setup, "steps": steps}


def repeat_facts(case: Case, record: Record) -> list[Fact]:
    trigger = case["setup"]["flows"][0]["on"][0]
    declared = trigger.get("repeat")
    cooldown = _minutes(declared["cooldown"]) * MINUTE_MS if isinstance(declared, dict) else None
    rule = {
        None: "falai.event.repeat-default",
        "once": "falai.repeat.once",
        "always": "falai.repeat.always",
    }.get(declared if isinstance(declared, str) or declared is None else "", "falai.repeat.cooldown")
    turns = _turns(record)
    facts: list[Fact] = []
    clock = DEFAULT_CLOCK_START_MS
    last_start: int | None = None
    seen: set[str] = set()
    index = 0
    for step in case["steps"]:
        if step["op"] == "advance":
            clock += _minutes(step["by"]) * MINUTE_MS
            continue
        if cooldown is not None and last_start is not None and clock - last_start == cooldown:
            break  # exactly one cooldown later is open (falai.repeat.cooldown#open_question); so is all after
        turn = turns[index]
        started = [run["flowId"] for run in turn["started"]]
        codes = [line["code"] for line in turn["skipped"]]
        step_rule = "falai.event.same-key" if step["key"] in seen and declared in (None, "always") else rule
        why = f"event key {step['key']} at +{(clock - DEFAULT_CLOCK_START_MS) // MINUTE_MS} min"
        if last_start is not None:
            why += f", {(clock - last_start) // MINUTE_MS} min after the last start"
        facts += [
            Fact(step_rule, f"events[type=turn][{index}].started[*].flowId", "equals", started, why),
            Fact(step_rule, f"events[type=turn][{index}].skipped[*].code", "equals", codes, why),
        ]
        if started:
            last_start = clock
        seen.add(step["key"])
        index += 1
    return facts


# --- shared --------------------------------------------------------------------------------------------


def _turns(record: Record) -> list[dict[str, Any]]:
    return [event for event in record["events"] if event["type"] == "turn"]


def _purposes(record: Record, rule: str) -> Fact:
    purposes = [e["purpose"] for e in record["events"] if e["type"] == "model_request"]
    return Fact(
        rule,
        "events[type=model_request][*].purpose",
        "equals",
        purposes,
        "the model calls the turns needed: understand (routing), talk (a flow step), idle (idle speaker)",
    )


class FalaiGenerator:
    system = "falai"

    def cases(self) -> st.SearchStrategy[Case]:
        # Routing is the richest family (two thresholds, two messages), so it gets half the cases.
        families = {"routing": routing_case(), "silence": silence_case(), "repeat": repeat_case()}
        return st.sampled_from(("routing", "silence", "routing", "repeat")).flatmap(families.__getitem__)

    def area(self, case: Case) -> str:
        flows = case["setup"]["flows"]
        if any("event" in flow["on"][0] for flow in flows):
            return "repeat"
        if any("silence" in flow["on"][0] for flow in flows):
            return "silence"
        return "routing"

    def facts(self, case: Case, record: Record) -> list[Fact]:
        return {"repeat": repeat_facts, "silence": silence_facts, "routing": routing_facts}[self.area(case)](
            case, record
        )
