"""What a ``ChatSession`` hands back: the outcome of one user action, and the chat's state at any moment.

The session also reports every event to its recorder and observers (the conformance record is built from
them); these typed values are the same facts shaped for a Python caller, so a script can branch on what
happened without reading the event log.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from reference.akan.model import Message

Event = dict[str, Any]
"""One event as recorded: ``{"type": ..., **fields}``."""

Status = Literal["answered", "waiting", "failed", "refused", "limit", "stopped", "done"]


@dataclass(frozen=True)
class TurnResult:
    """What one action in the composer (a message, a command, a question card's answer) came to.

    ``status``: ``answered`` (the model replied), ``waiting`` (the turn is paused on a tool or a question
    card), ``failed`` (the relay, the adaptor or the provider failed), ``refused`` (the input was not
    taken, for example while a turn runs), ``limit`` (maxTurns was reached), ``stopped`` (a running turn
    was ended) or ``done`` (a command or note that asks no model).
    """

    status: Status
    reply: str | None = None
    """The model's final text in this action, when it gave one."""
    question: str | None = None
    """The question card the turn waits on, when it waits on one."""
    tool_calls: tuple[str, ...] = ()
    """Names of the tools the model called, in order."""
    events: tuple[Event, ...] = ()
    """Everything the session reported during the action, in order."""


@dataclass(frozen=True)
class ChatState:
    """The chat as the user would see it now."""

    transcript: tuple[Message, ...]
    tokens: int
    """The estimate of the posted conversation (akan.compaction.estimate.four-chars-per-token)."""
    composer: tuple[str, ...]
    """Names of the files waiting in the composer."""
    is_running: bool
    is_compacting: bool
    route: str
    commands: tuple[str, ...]
    """The ``/`` menu."""
    form: dict[str, Any] | None = None
    """The form's values, when the page has a form."""
    draft: str | None = None
    """The composer's text, when the chat has a voice engine."""
    microphone: bool | None = None
    """Whether a microphone is drawn, when the chat has a voice engine."""
    panel: dict[str, Any] | None = None
    """What the panel draws, when the chat was opened with one (``reference.akan.panel``)."""
    command_descriptions: dict[str, str] | None = None
    """What the ``/`` menu shows beside each prompt command, when a prompt has a description."""
    page_state: dict[str, Any] | None = None
    """The subscribed keys' values as the page holds them, when the page subscribes any."""

    def to_dict(self) -> dict[str, Any]:
        """The state as the conformance record's ``final`` holds it (optional parts only when present)."""
        state: dict[str, Any] = {
            "transcript": list(self.transcript),
            "tokens": self.tokens,
            "composer": list(self.composer),
            "is_running": self.is_running,
            "is_compacting": self.is_compacting,
            "route": self.route,
            "commands": list(self.commands),
        }
        if self.form is not None:
            state["form"] = self.form
        if self.command_descriptions is not None:
            state["command_descriptions"] = self.command_descriptions
        if self.page_state is not None:
            state["page_state"] = self.page_state
        if self.draft is not None:
            state["draft"] = self.draft
            state["microphone"] = self.microphone
        if self.panel is not None:
            state["panel"] = self.panel
        return state
