"""What one chat turn posts to the relay, and the token estimate taken over it.

The transcript is the model's history, so the wire is the transcript minus what is not history:
``local`` messages are the chat talking to the user and never leave the browser
(akan.local.withheld-from-wire). Every other message is posted in the shape it is stored in.

Message shapes (also documented in ``spec/protocol/records/akan.md``)::

    {"role": "user", "content": str, "attachments"?: [...]}
    {"role": "user", "content": str, "summary": true}           # a compaction summary
    {"role": "assistant", "content": str, "tool_calls"?: [{"id", "name", "arguments"}]}
    {"role": "tool", "tool_call_id": str, "content": str}
    {"role": "local", "content": str}                           # transcript only
"""

from __future__ import annotations

import json
import math
from typing import Any

from reference.akan.model import Message

#: akan.compaction.estimate.four-chars-per-token
CHARS_PER_TOKEN = 4


def is_local(message: Message) -> bool:
    return bool(message.get("role") == "local")


def on_wire(transcript: list[Message]) -> list[Message]:
    """The messages a request carries. Local messages stay behind (akan.local.withheld-from-wire)."""
    return [message for message in transcript if not is_local(message)]


def json_text(value: Any) -> str:
    """Compact JSON as a browser's ``JSON.stringify`` writes it (no spaces, non-ASCII kept)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def utf16_length(text: str) -> int:
    """String length as JavaScript counts it, so the estimate matches a browser's for any text."""
    return len(text.encode("utf-16-le")) // 2


def estimate_tokens(messages: list[Message], chars_per_token: int = CHARS_PER_TOKEN) -> int:
    """Estimated tokens of the conversation a request posts.

    akan.compaction.estimate.four-chars-per-token: characters of the posted ``messages`` JSON over four,
    rounded up. Tools and screen context are not measured: they sit on top of the threshold and never
    compact, so counting them would only make compaction fire on what it cannot shrink.
    """
    return math.ceil(utf16_length(json_text(messages)) / chars_per_token)


def user_message(text: str, voiced: bool) -> Message:
    """What the composer adds to the transcript for a typed or spoken ask: the same message either way.

    akan.speech.no-wire-field-for-voice: how an ask was entered decides only whether the answer is read
    aloud; it never becomes a field of the message the model is sent.
    """
    return {"role": "user", "content": text}
