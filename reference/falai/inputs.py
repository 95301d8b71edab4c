"""What the host hands ``Agent.turn``: one typed input per kind of turn.

The kinds are closed: anything else is a ``TypeError``, never silently a wake. ``Wake`` fires a key the
agent scheduled earlier (a silence, an ``after`` or a ``wait``); the host keeps the timers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal


@dataclass(frozen=True)
class Message:
    """A customer message; ``id`` is the channel's message id (a repeated id is a replay)."""

    id: str
    text: str

    def to_record(self) -> dict[str, Any]:
        return {"kind": "message", "id": self.id}


@dataclass(frozen=True)
class Event:
    """A host event; ``payload`` becomes the run's input, ``key`` identifies this occurrence.
    ``direction`` stamps the session as if the customer or the assistant had just spoken."""

    name: str
    key: str
    payload: Mapping[str, Any] = field(default_factory=dict)
    direction: Literal["customer", "assistant"] | None = None

    def to_record(self) -> dict[str, Any]:
        return {"kind": "event", "event": self.name, "key": self.key}


@dataclass(frozen=True)
class Start:
    """The host starts a flow by id with an input; ``key`` identifies this start (falai.start.*)."""

    flow: str
    key: str
    input: Mapping[str, Any] = field(default_factory=dict)

    def to_record(self) -> dict[str, Any]:
        return {"kind": "start", "flow": self.flow, "key": self.key}


@dataclass(frozen=True)
class Wake:
    """A scheduled key fired by the host's timer (see ``TurnResult.schedule``)."""

    key: str

    def to_record(self) -> dict[str, Any]:
        return {"kind": "wake", "key": self.key}


TurnInput = Message | Event | Start | Wake


@dataclass(frozen=True)
class HostClaims:
    """``turn({ claims })``: what the host carries over from the customer's other sessions.

    ``held``: claim key -> claimed at (virtual ms); ``active``: ``'<flowId>:<anchor>'`` pairs live elsewhere.
    """

    held: Mapping[str, int] = field(default_factory=dict)
    active: Sequence[str] = ()
