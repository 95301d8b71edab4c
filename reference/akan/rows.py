"""What the rendered transcript tells the user about cost: the header's total and each tool row.

The transcript is the only place a tool result is ever shown, so the view carries two things the documents
fix: the header's estimate of the whole conversation (``session.tokens``,
akan.transcript.header-shows-conversation-tokens) and, for every settled tool call, a row with that
result's own estimate (akan.transcript.tool-row-shows-own-tokens) that opens onto the exact text the model
was handed (akan.transcript.tool-row-opens-result). The estimator is the compaction one (four characters to
a token); the documents leave open whether the header uses it too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from reference.akan.model import Message

Estimate = Callable[[list[Message]], int]
"""Estimated tokens of a list of messages, as the session counts them."""


@dataclass(frozen=True)
class TranscriptView:
    """The header's total and the settled tool rows, computed from the transcript as it stands."""

    def tokens(self, transcript: Sequence[Message], estimate: Estimate) -> int:
        """akan.transcript.header-shows-conversation-tokens: the whole conversation, every message."""
        return estimate(list(transcript))

    def result_tokens(self, content: str, estimate: Estimate) -> int:
        """akan.transcript.tool-row-shows-own-tokens: the estimate of this one result message."""
        return estimate([{"role": "tool", "content": content}])

    def opened(self, content: str) -> str:
        """akan.transcript.tool-row-opens-result: the row opens onto the value exactly as posted."""
        return content

    def tool_rows(self, transcript: Sequence[Message], estimate: Estimate) -> list[dict[str, Any]]:
        """One row per settled call (a call with its result), in transcript order."""
        names = {
            call["id"]: call["name"]
            for message in transcript for call in message.get("tool_calls") or ()
        }
        return [
            {
                "id": message["tool_call_id"],
                "name": names.get(message["tool_call_id"], ""),
                "tokens": self.result_tokens(str(message.get("content", "")), estimate),
                "result": self.opened(str(message.get("content", ""))),
            }
            for message in transcript
            if message.get("role") == "tool" and message.get("tool_call_id") in names
        ]
