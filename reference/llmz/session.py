"""The llmz ``Session``: queued input, processed history, turn state and who spoke last.

Theory of operation. Input is validated as a whole batch and queued (``pending``). ``execute`` opens a
*turn* by claiming every queued message into ``history``; the turn stays open until it completes through
an exit, so a failed execution can be retried and continues the same turn while newer input waits in the
queue (llmz.persistence.retry-may-leave-pending, llmz.chat-guard.retry-reset-at-turn-start). Claiming user
input is also what moves the chat guard's last speaker (``reference.llmz.guard``).

Messages are stored in their native wire form (``role``, ``content``, ``toolCalls``,
``toolResultCallId``, ``type``) plus two private keys that never reach the model: ``source`` (the
transcript form of convenience input, so events keep their name and payload) and ``iteration`` (the
iteration a call and its result belong to; the budget code groups by it).
"""

from __future__ import annotations

import copy
import json
from typing import Any, Final

from reference.llmz import guard
from reference.llmz.errors import LlmzError
from reference.llmz.guard import Speaker
from reference.llmz.memory import Memory
from reference.llmz.preview import preview

Message = dict[str, Any]
FORMAT: Final = "llmz-session"
FORMAT_VERSION: Final = 1
PRIVATE_KEYS: Final = frozenset({"source", "iteration"})


EVENT_PREVIEW_TOKENS: Final = 5000
"""llmz.sessions.event-preview-budget: the payload preview an event gets in native input."""


def render_event(name: str, payload: Any) -> str:
    """Events reach the model as user-role data labelled with the event name; the full payload stays in the
    transcript (``source``) while the model sees a bounded preview."""
    return f'<event name="{name}">\n{preview(payload, EVENT_PREVIEW_TOKENS)}\n</event>'


def render_summary(content: str) -> str:
    """Summaries reach the model as user-role data labelled as a summary, never as instructions."""
    return f"<conversation_summary>\n{content}\n</conversation_summary>"


def _persistable(payload: Any) -> bool:
    try:
        json.dumps(payload, allow_nan=False)
    except (TypeError, ValueError):
        return False
    return True


def is_native_parts(content: Any) -> bool:
    """A native multipart content: a non-empty list of typed JSON parts. It is stored and sent exactly as
    given, parts in order (llmz.sessions.native-message-preserved)."""
    return (
        isinstance(content, list)
        and bool(content)
        and all(isinstance(part, dict) and isinstance(part.get("type"), str) for part in content)
        and _persistable(content)
    )


def to_native(item: dict[str, Any]) -> Message:
    """Validate one ``append`` input and return its stored form; raises INVALID_MESSAGE / INVALID_EVENT."""
    role = item.get("role")
    if role == "event":
        name, payload = item.get("name"), item.get("payload")
        if not isinstance(name, str) or not name.strip():
            raise LlmzError("INVALID_EVENT", f"an event needs a non-empty string name, got {name!r}")
        if not _persistable(payload):
            raise LlmzError("INVALID_EVENT", f"event {name!r}: the payload must be JSON data")
        source = {"role": "event", "name": name, "payload": copy.deepcopy(payload)}
        return {"role": "user", "content": render_event(name, payload), "source": source}
    if role not in ("user", "assistant", "summary"):
        raise LlmzError("INVALID_MESSAGE", f"role must be user, assistant, event or summary, got {role!r}")
    content = item.get("content")
    if role != "summary" and is_native_parts(content):
        return {"role": role, "content": copy.deepcopy(content), "source": {"role": role, "content": content}}
    if not isinstance(content, str):
        raise LlmzError(
            "INVALID_MESSAGE", f"a {role} message needs string content, got {type(content).__name__}"
        )
    for extra in ("name", "payload"):
        if item.get(extra) is not None:
            raise LlmzError("INVALID_MESSAGE", f"a {role} message does not take {extra!r}")
    if role == "summary":
        return {
            "role": "user",
            "content": render_summary(content),
            "source": {"role": "summary", "content": content},
        }
    return {"role": role, "content": content, "source": {"role": role, "content": content}}


def wire(message: Message) -> Message:
    """The message as the model sees it: private bookkeeping removed."""
    return {key: copy.deepcopy(value) for key, value in message.items() if key not in PRIVATE_KEYS}


def transcript_entry(message: Message) -> dict[str, Any] | None:
    """Conversation view: convenience input as appended, assistant text; tool traffic is left out."""
    if "source" in message:
        return copy.deepcopy(message["source"])  # type: ignore[no-any-return]
    content = message.get("content")
    if message.get("role") == "assistant" and isinstance(content, str) and content.strip():
        return {"role": "assistant", "content": content}
    return None


class Session:
    def __init__(self, compaction: dict[str, Any] | None = None, memory: Memory | None = None) -> None:
        self.memory = memory if memory is not None else Memory()
        self.history: list[Message] = []
        self.pending: list[Message] = []
        self.last_speaker: Speaker = "none"
        self.turn_start: int | None = None
        self.compaction = compaction
        self._calls = 0
        self._iterations = 0
        self.active = False

    # -- input -------------------------------------------------------------------------------------
    def append(self, items: list[dict[str, Any]]) -> None:
        """All or nothing: one invalid message rejects the batch (INVALID_MESSAGE / INVALID_EVENT)."""
        converted = [to_native(item) for item in items]
        self.pending.extend(converted)

    @property
    def status(self) -> str:
        if self.active:
            return "active"
        return "pending" if self.pending else "idle"

    @property
    def transcript(self) -> list[dict[str, Any]]:
        entries = (transcript_entry(m) for m in [*self.history, *self.pending])
        return [entry for entry in entries if entry is not None]

    @property
    def messages(self) -> list[Message]:
        return [wire(m) for m in self.history]

    # -- turns -------------------------------------------------------------------------------------
    def begin_turn(self) -> None:
        """Continue an unfinished turn, or claim the queued input as a new one."""
        self.active = True
        if self.turn_start is not None:
            return
        self.turn_start = len(self.history)
        for message in self.pending:
            source = message.get("source", {})
            self.last_speaker = guard.speaker_after_input(
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
        kept = earlier[len(earlier) - retained_count :] if retained_count else []
        summary_message = {
            "role": "user",
            "content": render_summary(summary),
            "source": {"role": "summary", "content": summary},
        }
        self.history = [summary_message, *kept, *current]
        if self.turn_start is not None:
            self.turn_start = 1 + len(kept)

    def add(self, message: Message) -> None:
        self.history.append(message)

    def note_delivery(self, status: guard.DeliveryStatus, content_is_blank: bool) -> None:
        self.last_speaker = guard.speaker_after_delivery(self.last_speaker, status, content_is_blank)

    def mint_call_id(self) -> str:
        self._calls += 1
        return f"call_{self._calls}"

    def mint_iteration_id(self) -> str:
        self._iterations += 1
        return f"iteration_{self._iterations}"

    # -- persistence -------------------------------------------------------------------------------
    def require_idle(self, operation: str) -> None:
        """Operations that need the session to themselves fail while a run holds it: a second execute
        (llmz.sessions.concurrent-execute-rejected) and serialization
        (llmz.persistence.serialize-only-settled), both with SESSION_STATE (llmz.errors.session-state)."""
        if self.active:
            raise LlmzError("SESSION_STATE", f"cannot {operation} while an execution holds the session")

    def to_json(self) -> dict[str, Any]:
        self.require_idle("serialize the session")
        return {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "history": copy.deepcopy(self.history),
            "pending": copy.deepcopy(self.pending),
            "turnStart": self.turn_start,
            "delivery": {"lastSpeaker": self.last_speaker},
            "counters": {"calls": self._calls, "iterations": self._iterations},
            "compaction": copy.deepcopy(self.compaction) if self.compaction is not None else False,
            "memory": self.memory.to_json(),
        }

    @classmethod
    def from_json(cls, state: Any) -> Session:
        """Restore a snapshot. Without delivery tracking the last speaker is unknown
        (llmz.chat-guard.legacy-snapshot-unknown)."""
        if not isinstance(state, dict) or state.get("format") != FORMAT:
            raise LlmzError("INVALID_SESSION", "not a serialized llmz session")
        if not known_format_version(state.get("version")):
            raise LlmzError("INVALID_SESSION", f"unsupported session format version {state.get('version')!r}")
        compaction = state.get("compaction")
        session = cls(
            compaction=compaction if isinstance(compaction, dict) else None,
            memory=Memory.from_json(state.get("memory")),
        )
        session.history = copy.deepcopy(state.get("history", []))
        session.pending = copy.deepcopy(state.get("pending", []))
        session.turn_start = state.get("turnStart")
        _check_pairing(session.history)
        delivery = state.get("delivery")
        speaker = delivery.get("lastSpeaker") if isinstance(delivery, dict) else None
        session.last_speaker = guard.restored_speaker(speaker)
        counters = state.get("counters", {})
        session._calls = int(counters.get("calls", 0))
        session._iterations = int(counters.get("iterations", 0))
        return session


def known_format_version(version: object) -> bool:
    """Only versions this runtime wrote can be restored; nothing is upgraded silently
    (llmz.persistence.restore-checks-version, llmz.migration.no-automatic-upgrade)."""
    return version == FORMAT_VERSION


def _check_pairing(history: list[Message]) -> None:
    """Every tool result must answer a call made earlier in the history."""
    called: set[str] = set()
    for index, message in enumerate(history):
        for call in message.get("toolCalls", []) or []:
            called.add(call.get("id"))
        answered = message.get("toolResultCallId")
        if answered is not None and answered not in called:
            raise LlmzError("INVALID_SESSION", f"history[{index}] answers unknown tool call {answered!r}")
