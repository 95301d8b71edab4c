"""Deliberately broken variants of the akan reference, one rule flipped in each.

Each patch replaces one policy (or one constant a policy reads at call time) for the duration of a run;
``tests/test_akan_mutants.py`` proves that for every rule listed, some case pinning it fails and names it.
"""

from __future__ import annotations

from collections.abc import Sequence
from unittest import mock

from conformance.scenario.akan import Accepts
from reference.akan import attachments, ceilings, compaction
from reference.akan.wire import Message
from reference.mutants import Mutant


def _nominal_cut(roles: Sequence[str], keep: int) -> int | None:
    """Keeps exactly the newest ``keep`` wire messages, wherever that lands: on a tool result too."""
    wire = [index for index, role in enumerate(roles) if role != "local"]
    if keep == 0:
        return len(roles) if wire else None
    return wire[len(wire) - keep] if len(wire) > keep else None


def _everything_on_wire(transcript: list[Message]) -> list[Message]:
    """Posts local messages as well, as if a note were something the assistant had said."""
    return list(transcript)


def _inclusive_threshold(estimate: int, at: int, held_at: int | None) -> bool:
    if at == 0 or estimate < at:
        return False
    return held_at is None or estimate > held_at + at


def _zero_is_a_threshold(estimate: int, at: int, held_at: int | None) -> bool:
    return estimate > at and (held_at is None or estimate > held_at + at)


_summary_request = compaction.summary_request


def _summary_with_tools(messages: list[Message]) -> dict[str, object]:
    return {**_summary_request(messages), "tools": [], "screen": ""}


def _summary_left_as_user(message: Message, accepts: Accepts) -> Message:
    """Maps a summary like any other user message, so the provider reads the notes as a question."""
    plain = {key: value for key, value in message.items() if key != "summary"}
    return attachments.provider_message(plain, accepts)


def _persist_everything(message: Message) -> Message:
    return dict(message)


MUTANTS: list[Mutant] = [
    Mutant(
        "akan-cut-on-tool",
        ("akan.compaction.cut.never-on-tool", "akan.compaction.cut.prefers-user",
         "akan.compaction.cut.assistant-when-no-user"),
        lambda: mock.patch("reference.akan.session.choose_cut", _nominal_cut),
        "the cut keeps exactly `keep` messages even when that opens the kept part on a tool result",
    ),
    Mutant(
        "akan-local-on-wire",
        ("akan.local.withheld-from-wire",),
        lambda: mock.patch("reference.akan.session.on_wire", _everything_on_wire),
        "local messages are posted (and exported) like any other",
    ),
    Mutant(
        "akan-file-ceiling-off-by-one",
        ("akan.attachments.ceiling.per-file",),
        lambda: mock.patch.object(ceilings, "FILE_MAX_BYTES", ceilings.FILE_MAX_BYTES - 1),
        "a file of exactly 4 MB is refused",
    ),
    Mutant(
        "akan-message-bytes-unchecked",
        ("akan.attachments.ceiling.per-message-bytes",),
        lambda: mock.patch.object(ceilings, "MESSAGE_MAX_BYTES", 10**12),
        "the 8 MB per-message ceiling is never applied",
    ),
    Mutant(
        "akan-six-files",
        ("akan.attachments.ceiling.per-message-files",),
        lambda: mock.patch.object(ceilings, "MESSAGE_MAX_FILES", 6),
        "a sixth file is accepted",
    ),
    Mutant(
        "akan-duplicates-allowed",
        ("akan.attachments.duplicate-refused",),
        lambda: mock.patch.object(ceilings, "_same_file", lambda a, b: False),
        "the same file can be attached twice",
    ),
    Mutant(
        "akan-threshold-inclusive",
        ("akan.compaction.threshold.past",),
        lambda: mock.patch.object(compaction, "should_compact", _inclusive_threshold),
        "an estimate equal to compact.at already compacts",
    ),
    Mutant(
        "akan-at-zero-compacts",
        ("akan.compaction.disabled-at-zero",),
        lambda: mock.patch.object(compaction, "should_compact", _zero_is_a_threshold),
        "compact.at = 0 is treated as a threshold of zero tokens",
    ),
    Mutant(
        "akan-default-24576",
        ("akan.compaction.threshold.default",),
        lambda: mock.patch.object(compaction, "DEFAULT_AT_TOKENS", 24_576),
        "the default threshold is read as 24 x 1024",
    ),
    Mutant(
        "akan-three-chars-per-token",
        ("akan.compaction.estimate.four-chars-per-token",),
        lambda: mock.patch("reference.akan.wire.CHARS_PER_TOKEN", 3),
        "the estimate divides by three",
    ),
    Mutant(
        "akan-no-shrink-retried",
        ("akan.compaction.no-shrink.held",),
        lambda: mock.patch.object(compaction, "hold_after", lambda before, after: None),
        "an unhelpful summary is retried on the very next request",
    ),
    Mutant(
        "akan-unbounded-digest",
        ("akan.compaction.summarizer.bounded-digest",),
        lambda: mock.patch.multiple(compaction, DIGEST_MAX_CHARS=10**9, DIGEST_MESSAGE_CHARS=10**9),
        "the summarizer is handed the transcript whole",
    ),
    Mutant(
        "akan-summarizer-with-tools",
        ("akan.compaction.summarizer.no-tools-no-screen",),
        lambda: mock.patch.object(compaction, "summary_request", _summary_with_tools),
        "the summarizing request carries tools and screen context",
    ),
    Mutant(
        "akan-ignores-accepts",
        ("akan.attachments.unreadable-note", "akan.attachments.deepseek-accepts-none"),
        lambda: mock.patch.object(attachments, "_can_read", lambda kind, accepts: True),
        "every attachment is passed to the provider whatever it declares",
    ),
    Mutant(
        "akan-summary-as-user-for-provider",
        ("akan.compaction.summary-as-system-for-provider",),
        lambda: mock.patch("reference.akan.session.provider_message", _summary_left_as_user),
        "the adaptor hands the summary to the provider as a user message",
    ),
    Mutant(
        "akan-persist-keeps-content",
        ("akan.attachments.persist-names-only",),
        lambda: mock.patch("reference.akan.session.persisted", _persist_everything),
        "saving the transcript keeps attachment bytes and text",
    ),
]
