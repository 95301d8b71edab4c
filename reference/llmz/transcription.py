"""Audio a model cannot take natively is transcribed first (llmz.configuration.transcription-model).

``options.transcriptionModel`` names the model that transcribes audio input when the model answering the
turn has no native audio support. The documents fix only that: not where the transcript goes, not the
default model, not whether a model with native audio support ever gets a transcript instead. The
reference's readings: every model of a fallback list must take audio, else the request is transcribed
(the same request must suit each candidate, as with the token limits); each audio part is sent alone to
the transcription model as a ``transcription`` call before the turn request, and its text replaces the
part in that request (the session keeps the audio); without the option, ``DEFAULT_TRANSCRIPTION_MODEL``
(llmz 1.0.1's default) transcribes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from reference.llmz.api import Model

DEFAULT_TRANSCRIPTION_MODEL: Final = "fast"
"""The transcription model when ``options.transcriptionModel`` is unset (the documents give none)."""

TRANSCRIPT_LABEL: Final = "Audio transcript:"

TRANSCRIPT_MAX_TOKENS: Final = 4_096
"""The answer allowance of a transcription call (our choice: the documents say nothing of its shape)."""


def transcriber(option: str | None, models: Sequence[Model]) -> str | None:
    """The model that transcribes this request's audio, or None when every model takes audio natively."""
    if all(model.audio for model in models):
        return None
    return option if option is not None else DEFAULT_TRANSCRIPTION_MODEL


def has_audio(messages: Sequence[dict[str, Any]]) -> bool:
    return any(_is_audio(part) for message in messages for part in _parts(message))


def transcribed(
    messages: list[dict[str, Any]], transcribe: Callable[[dict[str, Any]], str]
) -> list[dict[str, Any]]:
    """``messages`` with each audio part replaced by a text part holding ``transcribe(part)``."""
    out: list[dict[str, Any]] = []
    for message in messages:
        content = message.get("content")
        if not isinstance(content, list) or not any(_is_audio(part) for part in content):
            out.append(message)
            continue
        parts = [
            {"type": "text", "text": f"{TRANSCRIPT_LABEL} {transcribe(part)}"} if _is_audio(part) else part
            for part in content
        ]
        out.append({**message, "content": parts})
    return out


def request(model: str, part: dict[str, Any]) -> dict[str, Any]:
    """The transcription call for one audio part (our shape: the part alone, no tools)."""
    return {
        "model": model,
        "messages": [{"role": "user", "content": [dict(part)]}],
        "tools": [],
        "max_tokens": TRANSCRIPT_MAX_TOKENS,
    }


def _parts(message: dict[str, Any]) -> list[Any]:
    content = message.get("content")
    return content if isinstance(content, list) else []


def _is_audio(part: Any) -> bool:
    return isinstance(part, dict) and part.get("type") == "audio"
