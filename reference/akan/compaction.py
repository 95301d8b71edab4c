"""When to compact, what the summarizing call carries, and when a useless summary holds compaction back.

These are the decisions; ``session.py`` performs them. Each function is pure so it can be read beside the
rule it implements and tested on its own. The digest the summarizer reads is written by ``digest.py``:
its format and its bounds are the reference's own (the documents fix only that it is bounded).
"""

from __future__ import annotations

from typing import Any

from reference.akan.digest import digest
from reference.akan.model import Message

#: akan.compaction.threshold.default: "24k" read as 24,000 (the open question is recorded in the rule).
DEFAULT_AT_TOKENS = 24_000
#: akan.compaction.summary-replaces-history: the documents give no default; this is the reference's choice.
DEFAULT_KEEP = 4
#: akan.compaction.command-keeps-nothing: ``/compact`` summarizes everything.
COMMAND_KEEP = 0

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
