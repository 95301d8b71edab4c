"""When to compact, what the summarizer is shown, and when a useless summary holds compaction back.

These are the decisions; ``session.py`` performs them. Each function is pure so it can be read beside the
rule it implements and tested on its own.
"""

from __future__ import annotations

from typing import Any

from reference.akan.model import Message
from reference.akan.wire import json_text

#: akan.compaction.threshold.default: "24k" read as 24,000 (the open question is recorded in the rule).
DEFAULT_AT_TOKENS = 24_000
#: akan.compaction.summary-replaces-history: the documents give no default; this is the reference's choice.
DEFAULT_KEEP = 4
#: akan.compaction.command-keeps-nothing: ``/compact`` summarizes everything.
COMMAND_KEEP = 0
#: akan.compaction.summarizer.bounded-digest: the reference's bounds.
DIGEST_MAX_CHARS = 12_000
DIGEST_MESSAGE_CHARS = 800

SUMMARY_INSTRUCTIONS = (
    "Condense the conversation below into notes that let the assistant carry on without it: what the user "
    "wants, what has been done on the page, results that still matter, and anything left open."
)


def should_compact(estimate: int, at: int, held_at: int | None) -> bool:
    """Whether the request about to be posted is compacted first.

    akan.compaction.disabled-at-zero: ``at == 0`` never compacts.
    akan.compaction.threshold.past: only an estimate strictly above ``at``.
    akan.compaction.no-shrink.held: after a summary that shrank nothing, ``held_at`` is the estimate it left
    behind, and nothing is tried until another ``at`` has been added on top of it.
    """
    if at == 0 or estimate <= at:
        return False
    return held_at is None or estimate > held_at + at


def hold_after(before: int, after: int) -> int | None:
    """The hold a landed summary leaves: the new estimate when it shrank nothing, else no hold.

    akan.compaction.no-shrink.held. A failed summary never reaches here, so it leaves no hold
    (akan.compaction.failure.retried-next-turn).
    """
    return after if after >= before else None


def _line(message: Message, message_chars: int) -> str:
    role = "summary" if message.get("summary") else str(message.get("role"))
    text = str(message.get("content", ""))
    calls = message.get("tool_calls") or []
    if calls:
        shown = ", ".join(f"{c['name']}({json_text(c.get('arguments', {}))})" for c in calls)
        text += f" [called {shown}]"
    names = [a["name"] for a in message.get("attachments") or []]
    if names:
        text += " [attached " + ", ".join(names) + "]"
    if len(text) > message_chars:
        text = text[: message_chars - 1] + "…"
    return f"{role}: {text}"


def digest(
    messages: list[Message], max_chars: int = DIGEST_MAX_CHARS, message_chars: int = DIGEST_MESSAGE_CHARS
) -> str:
    """The bounded text the summarizer reads (akan.compaction.summarizer.bounded-digest).

    Each message is cut to ``message_chars`` and attachment content is never included (names only); if
    the lines still exceed ``max_chars`` the oldest go first, because the newest history is what the
    conversation continues from.
    """
    lines = [_line(message, message_chars) for message in messages]
    kept: list[str] = []
    total = 0
    for line in reversed(lines):
        if total + len(line) + 1 > max_chars - 80:
            break
        kept.append(line)
        total += len(line) + 1
    kept.reverse()
    dropped = len(lines) - len(kept)
    head = [f"[{dropped} earlier messages left out]"] if dropped else []
    return "\n".join(head + kept)


def summary_request(messages: list[Message], max_chars: int, message_chars: int) -> dict[str, Any]:
    """The summarizing call: instructions and the digest, with no tools and no screen context.

    akan.compaction.summarizer.no-tools-no-screen. ``max_chars`` and ``message_chars`` bound the digest.
    """
    return {
        "messages": [
            {"role": "system", "content": SUMMARY_INSTRUCTIONS},
            {"role": "user", "content": digest(messages, max_chars, message_chars)},
        ]
    }
