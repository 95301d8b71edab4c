"""A clinic's booking assistant on the falai reference: three flows, a silence wake, no network.

The agent books appointments (``book``), cancels them (``cancel``) and, when a patient goes quiet before
choosing a day, nudges them once, at the next opening hour (``nudge``, a silence trigger with business
hours). Anything else goes to the idle speaker. The model is a plain Python function that scores flows by
the words they share with the message and picks names and weekdays out of it, so the run is offline and
the same every time. Each turn prints what was said, then what the turn did and the rules that decided it.

Run: ``python examples/falai/clinic_booking.py``
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from reference.falai import (
    Agent,
    Do,
    Field,
    Flow,
    Idle,
    Message,
    OnMessage,
    OnSilence,
    Say,
    Talk,
    TurnInput,
    TurnResult,
    VirtualClock,
    Wake,
    Where,
    WorkingHours,
)
from reference.providers import FunctionProvider, ModelResponse

MONDAY_NOON_UTC = 1_767_614_400_000
MINUTE = 60_000
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")

FLOWS = [
    Flow(
        "book",
        "Book an appointment",
        description="The patient wants to see a doctor.",
        on=[OnMessage(["book an appointment", "see a doctor", "schedule a visit"])],
        steps=[
            Talk("who", prompt="Ask who the appointment is for.", collect=["patient"]),
            Talk("when", prompt="Offer the open days this week.", collect=["day"]),
            Do("reserve", "reserve_slot", {"patient": "{{data.patient}}", "day": "{{data.day}}"}),
            Say("confirm", "All set: {{data.patient}} on {{data.day}} at 10:00, Rua Verde clinic."),
        ],
    ),
    Flow(
        "cancel",
        "Cancel an appointment",
        on=[OnMessage(["cancel my appointment", "cannot make it"])],
        steps=[
            Do("release", "cancel_slot", {"patient": "{{data.patient}}"}),
            Say("done", "The {{data.day}} appointment is cancelled. Write any time to book again."),
        ],
    ),
    Flow(
        "nudge",
        "Nudge a quiet patient",
        on=[OnSilence("2h", if_=Where("data.day", exists=False), business_hours=True)],
        steps=[Say("nudge", "Good morning! Shall we find a day for that appointment?")],
    ),
]

FIELDS = {
    "patient": Field(ask="the patient's full name"),
    "day": Field(ask="a weekday", enum=list(WEEKDAYS)),
}


# -- the model: a Python function ---------------------------------------------------------------------------


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z']+", text.lower()))


def _heard(field: str, text: str) -> str | None:
    if field == "patient":
        found = re.search(r"\b([A-Z][a-z]+ [A-Z][a-z]+)\b", text)
        return found.group(1) if found else None
    return next((day for day in WEEKDAYS if day.lower() in text.lower()), None)


def clinic_model(request: dict[str, Any], purpose: str) -> ModelResponse:
    """Scores a flow by the share of one of its phrases' words found in the message (0 to 100)."""
    if purpose == "understand":
        said = _words(request["message"])
        scores = {
            candidate["flowId"]: max(
                (round(100 * len(_words(p) & said) / len(_words(p))) for p in candidate["phrases"]), default=0
            )
            for candidate in request["candidates"]
        }
        fields = {f: v for f in request["fields"] if (v := _heard(f, request["message"])) is not None}
        return ModelResponse(json_data={"scores": scores, "mentions": {}, "fields": fields})
    if purpose == "idle":
        return ModelResponse(text="You're welcome! We're here Monday to Saturday, 8:00 to 18:00.")
    if "patient" in request["collect"]:
        return ModelResponse(text="Of course! Who is the appointment for?")
    return ModelResponse(text="Thanks! We have Tuesday and Thursday open. Which suits you?")


# -- the host: plays turns, fires wake-ups, prints --------------------------------------------------------


def clock_time(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%a %H:%M")


class Clinic:
    def __init__(self) -> None:
        self.clock = VirtualClock(MONDAY_NOON_UTC + 4 * 60 * MINUTE + 30 * MINUTE)  # Monday 16:30 UTC
        self.actions: list[str] = []
        self.agent = Agent(
            FLOWS,
            model=FunctionProvider(clinic_model),
            clock=self.clock,
            name="Clara",
            session_id="patient-4711",
            fields=FIELDS,
            actions={"reserve_slot": self._ok, "cancel_slot": self._ok},
            idle=Idle(prompt="Answer briefly as the clinic's receptionist."),
            business_hours=WorkingHours(8, 18),
            observer=self._observe,
        )
        self.wake_ups: dict[str, int] = {}

    def _ok(self, params: dict[str, Any]) -> dict[str, Any]:
        return {"ok": True}

    def _observe(self, kind: str, fields: dict[str, Any]) -> None:
        if kind == "action":
            params = ", ".join(f"{name}={value}" for name, value in fields["params"].items())
            self.actions.append(f"{fields['name']}({params})")

    def say(self, message_id: str, text: str, after_minutes: int = 0) -> None:
        self.clock.advance(after_minutes * MINUTE)
        print(f"{clock_time(self.clock.now_ms())}  patient    {text}")
        self.play(Message(message_id, text))

    def fire_next_wake_up(self) -> None:
        key, at = min(self.wake_ups.items(), key=lambda item: item[1])
        self.clock.advance(at - self.clock.now_ms())
        print(f"{clock_time(at)}  (the host's timer fires {key})")
        self.play(Wake(key))

    def play(self, given: TurnInput) -> None:
        result = self.agent.turn(given)
        for line in result.messages:
            print(f"{'':10} assistant  {line.text}")
        for note in self.notes(result):
            print(f"{'':10}   · {note}")
        print()

    def notes(self, result: TurnResult) -> list[str]:
        notes = [f"started {s.flow_id}" for s in result.started]
        notes += [f"action {call}" for call in self.actions]
        self.actions.clear()
        notes += [f"ended {e.flow_id} ({e.reason})" for e in result.ended]
        notes += [f"outcome {o.code}" for o in result.outcomes]
        notes += [f"skipped {s.flow_id} ({s.code})" for s in result.skipped]
        for wake in result.schedule:
            self.wake_ups[wake.key] = wake.at
            moved = ", moved to opening hours" if wake.at - self.clock.now_ms() > 2 * 60 * MINUTE else ""
            notes.append(f"wake-up at {clock_time(wake.at)}{moved}: {wake.key}")
            if wake.replaces is not None:
                self.wake_ups.pop(wake.replaces, None)
                notes.append(f"  (replaces {wake.replaces}, now stale)")
        if isinstance(result.input, Wake):
            self.wake_ups.pop(result.input.key, None)
        if not result.changed:
            notes.append("nothing changed")
        notes.append(f"model calls {result.llm_calls}; rules: {', '.join(result.rules) or '-'}")
        return notes


def main() -> None:
    print("Clinic booking: flows book, cancel and nudge (silence 2h, business hours 8-18 UTC)\n")
    clinic = Clinic()
    clinic.say("m1", "Hello, I'd like to book an appointment")
    clinic.say("m2", "It's for my son, Leo Santos", after_minutes=5)
    clinic.fire_next_wake_up()
    clinic.say("m3", "Thursday works", after_minutes=20)
    clinic.say("m4", "Sorry, I cannot make it after all. Please cancel my appointment", after_minutes=50)
    clinic.say("m5", "Thanks!", after_minutes=1)
    print("(the channel delivers m5 a second time)")
    clinic.play(Message("m5", "Thanks!"))
    state = clinic.agent.state()
    print(f"data: {state['data']}; runs: {', '.join(r['runId'] + ' ' + r['status'] for r in state['runs'])}")


if __name__ == "__main__":
    main()
