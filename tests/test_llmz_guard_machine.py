"""A stateful check of the chat guard through the Session: random appends, turns, deliveries and
save/restore cycles, compared with a tiny independent model of "who spoke last"."""

from __future__ import annotations

import json

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from reference.llmz import guard
from reference.llmz.session import Session


class GuardMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.session = Session()
        self.speaker = "none"
        self.user_waiting = False

    @rule(text=st.text(max_size=5))
    def user_message(self, text: str) -> None:
        self.session.append([{"role": "user", "content": text}])
        self.user_waiting = True

    @rule()
    def event(self) -> None:
        self.session.append([{"role": "event", "name": "tick", "payload": {"n": 1}}])

    @rule()
    def turn(self) -> None:
        self.session.begin_turn()
        self.session.end_execution(completed=True)
        if self.user_waiting:
            self.speaker, self.user_waiting = "user", False

    @rule(status=st.sampled_from(["delivered", "failed", "unhandled"]), blank=st.booleans())
    def delivery(self, status: guard.DeliveryStatus, blank: bool) -> None:
        self.session.note_delivery(status, blank)
        if status == "delivered" and not blank:
            self.speaker = "assistant"

    @rule(drop_tracking=st.booleans())
    def save_and_restore(self, drop_tracking: bool) -> None:
        state = json.loads(json.dumps(self.session.to_json()))
        if drop_tracking:
            del state["delivery"]
            self.speaker = "unknown"
        self.session = Session.from_json(state)

    @invariant()
    def same_last_speaker(self) -> None:
        assert self.session.last_speaker == self.speaker

    @invariant()
    def listen_allowed_exactly_after_assistant_speech(self) -> None:
        assert guard.may_listen(self.session.last_speaker, True) is (self.speaker == "assistant")
        assert guard.may_listen(self.session.last_speaker, False)


GuardMachine.TestCase.settings = settings(max_examples=60, stateful_step_count=25, deadline=None)
TestGuardMachine = GuardMachine.TestCase
