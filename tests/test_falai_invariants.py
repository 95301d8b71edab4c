"""A hypothesis state machine driving the falai reference with random turns and model answers.

Whatever the model answers and whatever the host sends, some things must always hold: one floor at most,
held by a live run (falai.message.single-floor); run ids unique and shaped ``<flowId>#<key>``; at most one
understand call per message turn (falai.triggers.judged-by); the catch-all never among the candidates
(falai.message.catch-all.never-scored); a silent idle speaker never called (falai.idle.silent); a replay
never changes anything (falai.triggers.duplicate-input); and the same inputs always give the same record.
"""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from reference.falai import (
    Agent,
    Event,
    Field,
    Flow,
    Message,
    OnEvent,
    OnMention,
    OnMessage,
    OnSilence,
    Outcome,
    Say,
    Talk,
    VirtualClock,
    Wake,
)
from reference.providers.model import ModelResponse
from reference.record import Recorder

FIELDS = {"nome": Field(ask="name?"), "motivo": Field(ask="why?")}
FLOWS = [
    Flow("triagem", "T", on=[OnMessage()], steps=[Talk("w", collect=["nome"])]),
    Flow("orc", "O", on=[OnMessage(["price"])], steps=[Talk("w", collect=["nome"])]),
    Flow(
        "sup",
        "S",
        on=[OnMessage(["broken"], repeat="always")],
        steps=[Talk("w", collect=["motivo"]), Say("s", "ok")],
    ),
    Flow("hum", "H", on=[OnMention(["human"])], steps=[Say("s", "calling")]),
    Flow("ret", "R", on=[OnSilence("1h")], steps=[Say("s", "still there?")]),
    Flow("evt", "E", on=[OnEvent("ping", after="30m")], steps=[Say("s", "pong")]),
]
CATCH_ALLS = {"triagem"}


class RandomModel:
    """A ``ModelProvider`` answering every call from a seeded generator instead of a fixed script."""

    def __init__(self, recorder: Recorder, seed: int) -> None:
        self._recorder = recorder
        self._random = random.Random(seed)
        self.calls = 0

    def complete(self, request: dict[str, Any], *, purpose: str = "turn") -> ModelResponse:
        pick = self._random
        if purpose == "understand":
            answer = {
                "scores": {
                    c["flowId"]: pick.choice([0, 14, 15, 39, 40, 55, 100]) for c in request["candidates"]
                },
                "mentions": {m["flowId"]: pick.random() < 0.3 for m in request["mentions"]},
                "fields": {f: "x" for f in request["fields"] if pick.random() < 0.5},
            }
            entry = ModelResponse(json_data=answer)
        else:
            entry = ModelResponse(text=f"{purpose} reply")
        self.calls += 1
        self._recorder.emit("model_request", call=self.calls, purpose=purpose, **request)
        self._recorder.emit("model_response", call=self.calls, **entry.record_fields())
        return entry


class FalaiMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.recorder = Recorder()
        self.clock = VirtualClock()
        self.agent = Agent(
            FLOWS, model=RandomModel(self.recorder, 7), clock=self.clock, fields=FIELDS, idle="silent"
        )
        self.message_ids: list[str] = []
        self.schedule: list[str] = []

    @rule(text=st.sampled_from(["price", "broken", "human", "hi"]))
    def message(self, text: str) -> None:
        message_id = f"m{len(self.message_ids) + 1}"
        self.message_ids.append(message_id)
        before = len(self.recorder.events)
        result = self.agent.turn(Message(message_id, text))
        requests = [e for e in self.recorder.events[before:] if e["type"] == "model_request"]
        understand = [e for e in requests if e["purpose"] == "understand"]
        assert len(understand) <= 1
        for request in understand:
            assert not {c["flowId"] for c in request["candidates"]} & CATCH_ALLS
        assert all(e["purpose"] != "idle" for e in requests)
        self.schedule = [entry.key for entry in result.schedule] or self.schedule

    @rule()
    def replay(self) -> None:
        if not self.message_ids:
            return
        snapshot = json.dumps(self.agent.session.to_record({}), sort_keys=True)
        result = self.agent.turn(Message(self.message_ids[-1], "again"))
        assert result.outcomes == [Outcome("duplicate-input")] and not result.changed
        assert json.dumps(self.agent.session.to_record({}), sort_keys=True) == snapshot

    @rule(key=st.integers(min_value=1, max_value=4))
    def event(self, key: int) -> None:
        result = self.agent.turn(Event("ping", f"p:{key}"))
        self.schedule = [entry.key for entry in result.schedule] or self.schedule

    @rule(hours=st.sampled_from(["10m", "1h", "2d"]))
    def advance(self, hours: str) -> None:
        self.clock.advance(hours)

    @rule(data=st.data())
    def wake(self, data: st.DataObject) -> None:
        if self.schedule:
            self.agent.turn(Wake(data.draw(st.sampled_from(self.schedule))))

    @invariant()
    def one_live_floor_holder(self) -> None:
        session = self.agent.session
        holder = session.run(session.floor)
        assert session.floor is None or (holder is not None and holder.live)

    @invariant()
    def run_ids_are_unique_and_shaped(self) -> None:
        runs = self.agent.session.runs
        assert len({r.run_id for r in runs}) == len(runs)
        assert all(r.run_id.startswith(f"{r.flow_id}#") for r in runs)

    @invariant()
    def one_live_run_per_flow(self) -> None:
        live = [r.flow_id for r in self.agent.session.runs if r.live]
        assert len(live) == len(set(live))


FalaiMachine.TestCase.settings = settings(max_examples=60, stateful_step_count=25, deadline=None)
TestFalaiInvariants = FalaiMachine.TestCase
