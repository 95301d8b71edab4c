"""``AgentService.explained``: a failed turn's ``error`` folded into the text a provider reads.

The chat's wire gives an assistant message an ``error`` field when its turn failed, but provider
dialects only carry text, so a mapping would silently drop it and the model would see an empty answer
it is inclined to repeat. Folding happens once, before any adaptor, so every provider sees the failure.
"""

from __future__ import annotations

from reference.akan.model import Message


def failure_text(error: str) -> str:
    """The wording is ours (akan.transcript.error-folded-into-text leaves it open); it quotes the error."""
    return f"[This turn failed: {error}]"


def explained(message: Message) -> Message:
    """The message with ``error`` merged into ``content`` (akan.transcript.error-folded-into-text)."""
    if not message.get("error"):
        return message
    folded = {key: value for key, value in message.items() if key != "error"}
    text = str(message.get("content") or "")
    note = failure_text(str(message["error"]))
    folded["content"] = f"{text}\n\n{note}" if text else note
    return folded
