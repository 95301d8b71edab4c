"""The llmz ``Session``: queued input, processed history, turn state and who spoke last.

Theory of operation. Input is validated as a whole batch and queued (``pending``). ``execute`` opens a
*turn* by claiming every queued message into ``history``; the turn stays open until it completes through
an exit, so a failed execution can be retried and continues the same turn while newer input waits in the
queue (llmz.persistence.retry-may-leave-pending, llmz.chat-guard.retry-reset-at-turn-start). Claiming user
input is also what moves the chat guard's last speaker (``reference.llmz.guard``).

How messages are stored and what a snapshot must satisfy is ``reference.llmz.conversation``; every
decision the session makes goes through its policy object (``reference.llmz.policies``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reference.llmz import guard
from reference.llmz.api import DEFAULT_COMPACTION, Compaction
from reference.llmz.conversation import (
    FORMAT,
    FORMAT_VERSION,
    Message,
    summary_message,
    transcript_entry,
    visible,
)
from reference.llmz.conversation import to_native as convert
from reference.llmz.errors import LlmzError
from reference.llmz.guard import Speaker
from reference.llmz.memory import Memory, encode_plain, to_plain
from reference.llmz.policies import DEFAULT_POLICIES, Policies
from reference.record import snapshot


class Session:
    """One conversation: its queued input, processed history, memory and compaction controls.

    ``variables`` and ``max_bytes`` are ``new Session({ variables, maxBytes })``
    (llmz.memory.session-options, llmz.memory.default-limit); ``compaction`` None disables compaction.
    """

    def __init__(
        self,
        *,
        compaction: Compaction | None = DEFAULT_COMPACTION,
        variables: dict[str, Any] | None = None,
        max_bytes: int | None = None,
        policies: Policies = DEFAULT_POLICIES,
    ) -> None:
        self.policies = policies
        self.memory = Memory(
            variables={name: encode_plain(value) for name, value in (variables or {}).items()},
            max_bytes=max_bytes if max_bytes is not None else policies.default_memory_limit,
        )
        self.history: list[Message] = []
        self.pending: list[Message] = []
        self.last_speaker: Speaker = "none"
        self.turn_start: int | None = None
        self.compaction: dict[str, Any] | None = compaction.as_llmz() if compaction is not None else None
        """The controls in llmz's spelling, as serialized; None when compaction is disabled."""
        self.summarize_callback = compaction.summarize if compaction is not None else None
        """A host ``compaction.summarize`` callback (llmz.compaction.custom-summarize); not serialized."""
        self._calls = 0
        self._iterations = 0
        self._executions = 0
        self.active = False
        self.definitions: dict[str, Any] | None = None
        """Never set by the reference: definitions are not session state (llmz.tools.definitions-reattached);
        a mutant's ``execute`` stores them here."""

    # -- input -------------------------------------------------------------------------------------
    def to_native(self, item: dict[str, Any]) -> Message:
        """One input in its stored form, as this session's policies frame events and summaries."""
        policies = self.policies

        def event_text(name: str, payload: Any) -> str:
            return policies.render_event(name, policies.previewer(payload, policies.event_preview_tokens))

        if item.get("role") == "event" and "payload" in item:
            item = {**item, "payload": policies.payload_as_checked(item["payload"])}
        return convert(
            item,
            event_text=event_text,
            # Read when a summary is rendered, not for every message: a variant's choice of summary framing
            # then provably cannot touch a run without one (conformance.shared_reference).
            summary_text=lambda content: policies.render_summary(content),
            event_role=policies.event_role,
            native_extras=policies.convenience_on_native,
            convenience=policies.convenience_parts,
        )

    def append(self, items: list[dict[str, Any]] | dict[str, Any]) -> None:
        """All or nothing: one invalid message rejects the batch (INVALID_MESSAGE / INVALID_EVENT). Input
        appended while a run holds the session waits for the next turn."""
        batch = self.policies.append_batch(items)
        converted = [self.to_native(item) for item in self.policies.copy_input(batch)]
        joins_turn = self.active and self.policies.running_turn_takes_input
        (self.history if joins_turn else self.pending).extend(converted)

    @property
    def status(self) -> str:
        if self.active:
            return "active"
        return "pending" if self.pending else "idle"

    # The three read accessors hand out detached copies (llmz.sessions.accessors-return-copies).
    @property
    def transcript(self) -> list[dict[str, Any]]:
        entries = (transcript_entry(m) for m in [*self.history, *self.pending])
        return self.policies.detach([entry for entry in entries if entry is not None])  # type: ignore[no-any-return]

    @property
    def messages(self) -> list[Message]:
        return self.policies.detach([visible(m) for m in self.history])  # type: ignore[no-any-return]

    @property
    def pending_messages(self) -> list[Message]:
        """``session.pendingMessages``: queued native input."""
        return self.policies.detach([visible(m) for m in self.pending])  # type: ignore[no-any-return]

    @property
    def variables(self) -> dict[str, Any]:
        """Named variables as JSON values."""
        return {name: to_plain(value) for name, value in self.memory.variables.items()}

    # -- turns -------------------------------------------------------------------------------------
    def begin_turn(self) -> None:
        """Continue an unfinished turn, or claim the queued input as a new one."""
        self.active = True
        if self.turn_start is not None:
            return
        self.turn_start = len(self.history)
        for message in self.pending:
            source = message.get("source", {})
            self.last_speaker = self.policies.speaker_after_input(
                self.last_speaker, source.get("role", ""), source.get("content")
            )
        self.history.extend(self.pending)
        self.pending = []

    def end_execution(self, completed: bool) -> None:
        self.active = False
        if completed:
            self.turn_start = None

    def split(self) -> tuple[list[Message], list[Message]]:
        """(history before the current turn, the current turn so far)."""
        start = len(self.history) if self.turn_start is None else self.turn_start
        return self.history[:start], self.history[start:]

    def replace_earlier_history(self, retained_count: int, summary: str) -> None:
        """Commit a compaction: a summary, then the newest ``retained_count`` earlier messages."""
        earlier, current = self.split()
        summary_event = summary_message(summary, self.policies.render_summary)
        kept = self.policies.compacted_earlier(earlier, retained_count, summary_event)
        self.history = [*kept, *current]
        if self.turn_start is not None:
            self.turn_start = len(kept)

    def add(self, message: Message) -> None:
        self.history.append(message)

    def note_delivery(self, status: guard.DeliveryStatus, content_is_blank: bool) -> None:
        self.last_speaker = self.policies.speaker_after_delivery(self.last_speaker, status, content_is_blank)

    def mint_call_id(self) -> str:
        self._calls += 1
        return f"call_{self._calls}"

    def count_execution(self) -> int:
        """Number the next execute call on this session (1-based; records name executions by it)."""
        self._executions += 1
        return self._executions

    def mint_iteration_id(self) -> str:
        self._iterations += 1
        return f"iteration_{self._iterations}"

    # -- persistence -------------------------------------------------------------------------------
    def require_idle(self, operation: str) -> None:
        """Raise SESSION_STATE when a run holds the session (``conversation.busy_problem``)."""
        problem = self.policies.busy_problem(self.active, operation)
        if problem is not None:
            raise problem

    def to_json(self) -> dict[str, Any]:
        self.require_idle("serialize the session")
        state = {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "history": snapshot(self.history),
            "pending": snapshot(self.pending),
            "turnStart": self.turn_start,
            "delivery": {"lastSpeaker": self.last_speaker},
            "counters": {
                "calls": self._calls,
                "iterations": self._iterations,
                "executions": self._executions,
            },
            "compaction": snapshot(self.compaction) if self.compaction is not None else False,
            "memory": self.policies.memory_snapshot(self.memory),
        }
        if not self.policies.writes_format_version:  # only a mutant (llmz.migration.format-versions)
            del state["version"]
        if self.definitions is not None:  # only a mutant's (llmz.tools.definitions-reattached)
            state["definitions"] = snapshot(self.definitions)
        return state

    @classmethod
    def from_json(
        cls,
        state: Any,
        policies: Policies = DEFAULT_POLICIES,
        summarize: Callable[[list[dict[str, Any]], int], str] | None = None,
    ) -> Session:
        """Restore a snapshot. Without delivery tracking the last speaker is unknown
        (llmz.chat-guard.legacy-snapshot-unknown)."""
        state = policies.session_state(state)
        if not isinstance(state, dict) or state.get("format") != FORMAT:
            raise LlmzError("INVALID_SESSION", "not a serialized llmz session")
        if not policies.known_format_version(state.get("version")):
            raise LlmzError("INVALID_SESSION", f"unsupported session format version {state.get('version')!r}")
        for check in policies.restore_checks:
            check(state)
        session = cls(compaction=None, policies=policies)
        compaction = state.get("compaction")
        session.compaction = snapshot(compaction) if isinstance(compaction, dict) else None
        # A callback is host code: the caller passes it again (llmz.compaction.controls-persist).
        keeps = session.compaction is not None and policies.callback_after_restore
        session.summarize_callback = summarize if keeps else None
        session.memory = Memory.from_json(state.get("memory"))
        session.history = snapshot(state.get("history", []))
        session.pending = snapshot(state.get("pending", []))
        session.turn_start = state.get("turnStart")
        delivery = state.get("delivery")
        speaker = delivery.get("lastSpeaker") if isinstance(delivery, dict) else None
        session.last_speaker = policies.restored_speaker(speaker)
        counters = state.get("counters", {})
        session._calls = int(counters.get("calls", 0))
        session._iterations = int(counters.get("iterations", 0))
        session._executions = int(counters.get("executions", 0))
        return session
