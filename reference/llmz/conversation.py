"""The session's messages: how input is stored, how the model sees it, and what a snapshot must satisfy.

Pure functions over plain dicts; ``reference.llmz.session`` holds the state and calls them through its
policy object. Messages are stored in their native wire form (``role``, ``content``, ``toolCalls``,
``toolResultCallId``, ``type``) plus two private keys that never reach the model: ``source`` (the
transcript form of convenience input, so events keep their name and payload) and ``iteration`` (the
iteration a call and its result belong to; the budget code groups by it).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final

from reference.llmz.errors import LlmzError
from reference.record import snapshot

Message = dict[str, Any]
FORMAT: Final = "llmz-session"
FORMAT_VERSION: Final = 1
PRIVATE_KEYS: Final = frozenset({"source", "iteration"})

EVENT_PREVIEW_TOKENS: Final = 5000
"""llmz.sessions.event-preview-budget: the payload preview an event gets in native input."""

EVENT_ROLE: Final = "user"
"""Events reach the model as user-role data, never as instructions (llmz.sessions.events-not-system)."""


def render_event(name: str, preview: str) -> str:
    """An event as the model reads it: labelled with its name, its payload as a bounded preview; the full
    payload stays in the transcript (``source``)."""
    return f'<event name="{name}">\n{preview}\n</event>'


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


CONVENIENCE_FIELDS: Final = ("attachments", "modality")


def convenience_on_native(item: dict[str, Any]) -> LlmzError | None:
    """A native multipart message already describes its content; convenience attachments or a modality on
    it are refused (llmz.sessions.no-convenience-on-native-multipart; INVALID_MESSAGE is our reading)."""
    given = [name for name in CONVENIENCE_FIELDS if item.get(name) is not None]
    if given:
        return LlmzError("INVALID_MESSAGE", f"a native multipart message does not take {', '.join(given)}")
    return None


MEDIA_TYPES: Final = ("image", "audio")
VOICE_LABEL: Final = "Voice transcript:"


def voice_label(text: str) -> str:
    """How convenience input spoken by the user is labelled (llmz.sessions.voice-label; our wording)."""
    return f"{VOICE_LABEL} {text}"


def attachment_note(attachment: dict[str, Any], number: int) -> str:
    """The text part beside a media part: its id and alt text (llmz.sessions.attachments-become-parts;
    our wording, placed before the part)."""
    name = attachment.get("id") or f"#{number}"
    alt = attachment.get("alt")
    return f"Attachment {name}: {alt}" if alt else f"Attachment {name}"


def convenience_parts(
    text: str, attachments: list[dict[str, Any]], voice: bool, label: Callable[[str], str] = voice_label
) -> list[dict[str, Any]]:
    """Convenience input as native parts: the (labelled) text, then per attachment its note and its media
    part, in the given order."""
    parts: list[dict[str, Any]] = [{"type": "text", "text": label(text) if voice else text}]
    for number, attachment in enumerate(attachments, start=1):
        parts.append({"type": "text", "text": attachment_note(attachment, number)})
        parts.append({"type": attachment["type"], "url": attachment["url"]})
    return parts


def _attachments(item: dict[str, Any]) -> list[dict[str, Any]]:
    attachments = item.get("attachments")
    if attachments is None:
        return []
    if not isinstance(attachments, list) or not all(
        isinstance(a, dict)
        and a.get("type") in MEDIA_TYPES
        and isinstance(a.get("url"), str)
        and a["url"]
        and all(a.get(k) is None or isinstance(a.get(k), str) for k in ("id", "alt"))
        for a in attachments
    ):
        raise LlmzError("INVALID_MESSAGE", "attachments need an image or audio type and a URL")
    return attachments


def append_batch(items: object) -> list[dict[str, Any]]:
    """``append`` takes one message (native or transcript) or an array mixing either kind
    (llmz.sessions.append-accepted-shapes); anything else is INVALID_MESSAGE."""
    if isinstance(items, dict):
        return [items]
    if isinstance(items, list) and all(isinstance(item, dict) for item in items):
        return items
    raise LlmzError("INVALID_MESSAGE", "append takes a message or an array of messages")


def to_native(
    item: dict[str, Any],
    *,
    event_text: Callable[[str, Any], str],
    summary_text: Callable[[str], str] = render_summary,
    event_role: str = EVENT_ROLE,
    native_extras: Callable[[dict[str, Any]], LlmzError | None] = lambda item: None,
    convenience: Callable[[str, list[dict[str, Any]], bool], list[dict[str, Any]]] = convenience_parts,
) -> Message:
    """Validate one ``append`` input and return its stored form; raises INVALID_MESSAGE / INVALID_EVENT.
    ``item`` must already be the session's own copy (``Session.append`` copies the batch first), so the
    stored form shares its parts and payloads with nothing the caller holds.
    ``event_text(name, payload)`` and ``summary_text(content)`` say how events and summaries read."""
    role = item.get("role")
    if role == "event":
        name, payload = item.get("name"), item.get("payload")
        if not isinstance(name, str) or not name.strip():
            raise LlmzError("INVALID_EVENT", f"an event needs a non-empty string name, got {name!r}")
        if not _persistable(payload):
            raise LlmzError("INVALID_EVENT", f"event {name!r}: the payload must be JSON data")
        source = {"role": "event", "name": name, "payload": payload}
        return {"role": event_role, "content": event_text(name, payload), "source": source}
    if role not in ("user", "assistant", "summary"):
        raise LlmzError("INVALID_MESSAGE", f"role must be user, assistant, event or summary, got {role!r}")
    content = item.get("content")
    if role != "summary" and is_native_parts(content):
        problem = native_extras(item)
        if problem is not None:
            raise problem
        return {"role": role, "content": content, "source": {"role": role, "content": content}}
    if not isinstance(content, str):
        raise LlmzError(
            "INVALID_MESSAGE", f"a {role} message needs string content, got {type(content).__name__}"
        )
    for extra in ("name", "payload"):
        if item.get(extra) is not None:
            raise LlmzError("INVALID_MESSAGE", f"a {role} message does not take {extra!r}")
    if role == "summary":
        return summary_message(content, summary_text)
    modality = item.get("modality")
    if modality is not None and modality not in ("text", "voice"):
        raise LlmzError("INVALID_MESSAGE", f"modality must be text or voice, got {modality!r}")
    attachments = _attachments(item)
    source = {"role": role, "content": content}
    if not attachments and modality is None:
        return {"role": role, "content": content, "source": source}
    source.update({k: item[k] for k in ("attachments", "modality") if item.get(k) is not None})
    voice = modality == "voice" or any(a["type"] == "audio" for a in attachments)
    return {"role": role, "content": convenience(content, attachments, voice), "source": source}


def summary_message(content: str, summary_text: Callable[[str], str] = render_summary) -> Message:
    """A summary event as the session stores it: native text, and its transcript form as ``source``."""
    return {
        "role": "user",
        "content": summary_text(content),
        "source": {"role": "summary", "content": content},
    }


def wire(message: Message) -> Message:
    """The message as the model sees it: private bookkeeping removed."""
    return {key: snapshot(value) for key, value in message.items() if key not in PRIVATE_KEYS}


def visible(message: Message) -> Message:
    """The message without private bookkeeping, sharing its values (``wire`` is the detached form)."""
    return {key: value for key, value in message.items() if key not in PRIVATE_KEYS}


def transcript_entry(message: Message) -> dict[str, Any] | None:
    """Conversation view: convenience input as appended, assistant text; tool traffic is left out. Shares
    its values with the stored message: ``Session.transcript`` detaches the whole view."""
    if "source" in message:
        return message["source"]  # type: ignore[no-any-return]
    content = message.get("content")
    if message.get("role") == "assistant" and isinstance(content, str) and content.strip():
        return {"role": "assistant", "content": content}
    return None


def compacted_earlier(earlier: list[Message], retained_count: int, summary: Message) -> list[Message]:
    """The history before the current turn once a compaction is committed: the new summary, then the newest
    ``retained_count`` earlier messages. An earlier summary is among the dropped messages, so the new one
    replaces it (llmz.compaction.summary-event.replaces-earlier)."""
    kept = earlier[len(earlier) - retained_count :] if retained_count else []
    return [summary, *kept]


def busy_problem(active: bool, operation: str) -> LlmzError | None:
    """Operations that need the session to themselves fail while a run holds it: a second execute
    (llmz.sessions.concurrent-execute-rejected) and serialization
    (llmz.persistence.serialize-only-settled), both with SESSION_STATE (llmz.errors.session-state)."""
    if active:
        return LlmzError("SESSION_STATE", f"cannot {operation} while an execution holds the session")
    return None


def known_format_version(version: object) -> bool:
    """Only versions this runtime wrote can be restored; nothing is upgraded silently
    (llmz.persistence.restore-checks-version, llmz.migration.no-automatic-upgrade)."""
    return version == FORMAT_VERSION


def check_pairing(history: list[Message]) -> None:
    """Every tool result must answer a call made earlier in the history."""
    called: set[str] = set()
    for index, message in enumerate(history):
        for call in message.get("toolCalls", []) or []:
            called.add(call.get("id"))
        answered = message.get("toolResultCallId")
        if answered is not None and answered not in called:
            raise LlmzError("INVALID_SESSION", f"history[{index}] answers unknown tool call {answered!r}")
