"""The digest the summarizer reads: the summarized messages as bounded text (the reference's own shape).

akan.compaction.summarizer.bounded-digest fixes two things, both pinned by scenarios: the digest carries
the conversation it stands for (summarizer-reads-the-conversation) and its size has a fixed bound, far
below the transcript's (summarizer-sees-digest-only). Everything else here is the reference's choice,
which the rule's open question leaves to each implementation: one line per message, tool calls and
attachment names written into it, each message cut to ``DIGEST_MESSAGE_CHARS`` and the whole to
``DIGEST_MAX_CHARS``, the oldest lines dropped first (the newest history is what the conversation
continues from). It is kept apart from ``compaction.py`` so that module holds only documented decisions.
"""

from __future__ import annotations

from reference.akan.model import Message
from reference.akan.wire import json_text

#: akan.compaction.summarizer.bounded-digest: the reference's bounds (the documents give none).
DIGEST_MAX_CHARS = 12_000
DIGEST_MESSAGE_CHARS = 800


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
