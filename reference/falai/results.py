"""What one turn did, typed: runs started and ended, messages spoken, outcomes, skips and wake-ups.

Each line has the record form of ``spec/protocol/records/falai.md`` (``to_record``); ``TurnResult.rules``
is extra, for people reading a run: the rule ids of the decisions the turn took.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from reference.falai.inputs import TurnInput


@dataclass(frozen=True)
class Started:
    flow_id: str
    run_id: str

    def to_record(self) -> dict[str, Any]:
        return {"flowId": self.flow_id, "runId": self.run_id}


@dataclass(frozen=True)
class Ended:
    run_id: str
    flow_id: str
    reason: str
    """``completed``, ``premise-changed``, ``customer-replied`` or ``replaced``."""

    def to_record(self) -> dict[str, Any]:
        return {"runId": self.run_id, "flowId": self.flow_id, "reason": self.reason}


@dataclass(frozen=True)
class Said:
    """A message to the customer: ``verbatim`` (a say step), ``talk`` (a model call) or ``idle``."""

    kind: Literal["verbatim", "talk", "idle"]
    text: str
    key: str

    def to_record(self) -> dict[str, Any]:
        return {"kind": self.kind, "text": self.text, "key": self.key}


@dataclass(frozen=True)
class Outcome:
    """A documented outcome code, with the run it concerns or the key of what it produced."""

    code: str
    run_id: str | None = None
    key: str | None = None
    kind: str | None = None

    def to_record(self) -> dict[str, Any]:
        line: dict[str, Any] = {} if self.kind is None else {"kind": self.kind}
        line["code"] = self.code
        if self.run_id is not None:
            line["runId"] = self.run_id
        if self.key is not None:
            line["key"] = self.key
        return line


@dataclass(frozen=True)
class Skipped:
    """A flow that could have started but did not, and the documented code saying why."""

    flow_id: str
    code: str

    def to_record(self) -> dict[str, Any]:
        return {"flowId": self.flow_id, "code": self.code}


@dataclass(frozen=True)
class Scheduled:
    """A wake-up the host must fire at ``at`` (virtual ms) with ``Wake(key)``; ``replaces`` an earlier key."""

    key: str
    at: int
    replaces: str | None = None

    def to_record(self) -> dict[str, Any]:
        line: dict[str, Any] = {"key": self.key, "at": self.at}
        if self.replaces is not None:
            line["replaces"] = self.replaces
        return line


@dataclass
class TurnResult:
    """What ``Agent.turn`` returns (the session itself is ``Agent.session``)."""

    input: TurnInput
    started: list[Started] = field(default_factory=list)
    ended: list[Ended] = field(default_factory=list)
    messages: list[Said] = field(default_factory=list)
    outcomes: list[Outcome] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    schedule: list[Scheduled] = field(default_factory=list)
    llm_calls: int = 0
    changed: bool = True
    """False when the turn changed nothing (a replay, a stale or broken wake)."""
    spoke: bool = False
    """The assistant spoke this turn (falai.silence.stamp), by a message or an action; not recorded."""
    rules: list[str] = field(default_factory=list)
    """Rule ids of the decisions this turn took, in order; for readers, not part of the record."""

    def to_record(self) -> dict[str, Any]:
        return {
            "input": self.input.to_record(),
            "started": [line.to_record() for line in self.started],
            "ended": [line.to_record() for line in self.ended],
            "messages": [line.to_record() for line in self.messages],
            "outcomes": [line.to_record() for line in self.outcomes],
            "skipped": [line.to_record() for line in self.skipped],
            "schedule": [line.to_record() for line in self.schedule],
            "llmCalls": self.llm_calls,
            "changed": self.changed,
        }
