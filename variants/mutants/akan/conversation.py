"""Mutants of the conversation: compaction, attachments, sanitize, slash commands, transcript."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from reference.akan import attachments, compaction, sanitize
from reference.akan.attachments import CanRead
from reference.akan.ceilings import (
    FILE_MAX_BYTES,
    MB,
    MESSAGE_MAX_BYTES,
    MESSAGE_MAX_FILES,
    Candidate,
    Ceilings,
)
from reference.akan.commands import CommandTable
from reference.akan.cut import choose_cut
from reference.akan.model import Accepts, File, Message, Prompt
from variants import Mutant
from variants.mutants.akan.common import mutant


def _nominal_cut(roles: Sequence[str], keep: int) -> int | None:
    """Keeps exactly the newest ``keep`` wire messages, wherever that lands: on a tool result too."""
    wire = [index for index, role in enumerate(roles) if role != "local"]
    if keep == 0:
        return len(roles) if wire else None
    return wire[len(wire) - keep] if len(wire) > keep else None


def _cut_back_to_first_caller(roles: Sequence[str], keep: int) -> int | None:
    """With no user message in the tail, the cut walks back past every assistant message of the turn, not
    just the one whose results are kept, to the first assistant message after the user's question."""
    cut = choose_cut(roles, keep)
    if cut is None or roles[cut] != "assistant":
        return cut
    while cut > 0 and roles[cut - 1] in ("assistant", "tool", "local"):
        cut -= 1
    return cut if any(role not in ("local", "summary") for role in roles[:cut]) else None


def _everything_on_wire(transcript: list[Message]) -> list[Message]:
    """Posts local messages as well, as if a note were something the assistant had said."""
    return list(transcript)


def _half_threshold(estimate: int, at: int, held_at: int | None) -> bool:
    """Compacts far below the threshold: an estimate beyond half of ``compact.at`` already counts.

    (Whether an estimate *equal* to ``compact.at`` is past it is an open question, so the boundary itself
    is a permitted variant, ``variants.akan``, not a mutant.)
    """
    if at == 0 or estimate <= at // 2:
        return False
    return held_at is None or estimate > held_at + at


def _zero_is_a_threshold(estimate: int, at: int, held_at: int | None) -> bool:
    return estimate > at and (held_at is None or estimate > held_at + at)


#: The mutant below takes a ``compact.at`` above this for a typing mistake (no provider window it expects is
#: larger) and falls back to the default.
_LARGEST_PLAUSIBLE_AT = 200_000


def _large_threshold_falls_back(estimate: int, at: int, held_at: int | None) -> bool:
    """Replaces a ``compact.at`` beyond 200,000 tokens by the default 24k, as a validation that "corrects" an
    implausible setting would: raising the threshold past that point makes the chat compact sooner, not
    later, which no reading of "past ``compact.at``" allows (a larger threshold never compacts more)."""
    effective = compaction.DEFAULT_AT_TOKENS if at > _LARGEST_PLAUSIBLE_AT else at
    return compaction.should_compact(estimate, effective, held_at)


def _summary_with_tools(messages: list[Message], max_chars: int, message_chars: int) -> dict[str, Any]:
    return {**compaction.summary_request(messages, max_chars, message_chars), "tools": [], "screen": ""}


def _summary_of_nothing(messages: list[Message], max_chars: int, message_chars: int) -> dict[str, Any]:
    """The summarizing request without the conversation: its digest is empty."""
    return compaction.summary_request([], max_chars, message_chars)


def _summary_left_as_user(message: Message, accepts: Accepts, readable: CanRead) -> Message:
    """Maps a summary like any other user message, so the provider reads the notes as a question."""
    plain = {key: value for key, value in message.items() if key != "summary"}
    return attachments.provider_message(plain, accepts, readable)


def _persist_everything(message: Message) -> Message:
    return dict(message)


def _erasing_sanitize(transcript: list[Message], stopped: str) -> list[Message]:
    """Repairs a hole by deleting the calls that have no result, and any orphaned result."""
    answered = {m.get("tool_call_id") for m in transcript if m.get("role") == "tool"}
    called = {c["id"] for m in transcript for c in m.get("tool_calls") or []}
    out: list[Message] = []
    for message in transcript:
        if message.get("role") == "tool" and message.get("tool_call_id") not in called:
            continue
        calls = [c for c in message.get("tool_calls") or [] if c["id"] in answered]
        if message.get("tool_calls") is not None:
            message = (
                {**message, "tool_calls": calls}
                if calls
                else {k: v for k, v in message.items() if k != "tool_calls"}
            )
        out.append(message)
    return out


def _as_is(transcript: list[Message], stopped: str) -> list[Message]:
    return list(transcript)


def _window_only(transcript: list[Message], newest: int, stopped: str) -> list[Message]:
    return sanitize.window(transcript, newest)


def _retry_everything(transcript: list[Message]) -> list[Message]:
    """Replays the whole trailing run of user messages, appending it again after the answer is dropped."""
    end = len(transcript)
    while end and transcript[end - 1]["role"] != "user":
        end -= 1
    start = end
    while start and transcript[start - 1]["role"] == "user":
        start -= 1
    return transcript[:end] + [dict(m) for m in transcript[start:end]]


def _split_on_spaces(text: str) -> tuple[str, ...]:
    return tuple(text.split())


def _export_conversation_only(route: str, at: str, messages: list[Message]) -> dict[str, Any]:
    return {"route": "", "at": "", "messages": messages}


def _message_marking_voice(text: str, voiced: bool) -> Message:
    """Tells the wire how the ask was entered: a voiced user message carries ``voiced: true``."""
    return {"role": "user", "content": text, **({"voiced": True} if voiced else {})}


def _prompt_images_as_text(text: str, images: Sequence[File]) -> Message:
    """A prompt's ``Msg.image`` reaches the chat as the literal ``[image]``, not as an attachment."""
    return {"role": "user", "content": text + " [image]" * len(images)}


class _DuplicatesAllowed(Ceilings):
    def same_file(self, a: Candidate, b: Candidate) -> bool:
        return False


class _DuplicateBySize(Ceilings):
    """Two files of equal size count as the same file, whatever their names and contents."""

    def same_file(self, a: Candidate, b: Candidate) -> bool:
        return a.size == b.size


class _DuplicateByOrderedSize(Ceilings):
    """A file is "the same" as an attached one of its name that is no larger: which of two files of one
    name is refused then depends on which came first, which no reading of "the same file" allows."""

    def same_file(self, a: Candidate, b: Candidate) -> bool:
        return a.name == b.name and a.size <= b.size


class _MenuWithoutPrompts(CommandTable):
    """The / menu lists only the chat's own commands; the app's prompts are left out of it."""

    def menu(self, prompt_names: Sequence[str]) -> list[str]:
        return super().menu(())


class _MenuShowsFirstMessage(CommandTable):
    """The / menu describes a prompt by its first message instead of its dictionary desc."""

    def description(self, prompt: Prompt) -> str | None:
        return prompt.messages[0].text if prompt.messages else None


MUTANTS: list[Mutant] = [
    mutant(
        "akan-default-threshold-below-24000",
        "akan.compaction.threshold.default",
        "with no compact.at the chat compacts past 23,999 estimated tokens, below either reading of 24k",
        default_at_tokens=compaction.DEFAULT_AT_TOKENS - 1,
    ),
    mutant(
        "akan-menu-shows-first-message",
        "akan.slash.menu-shows-dictionary-desc",
        "the / menu describes a prompt by its first message rather than its dictionary desc",
        commands=_MenuShowsFirstMessage(),
    ),
    mutant(
        "akan-prompts-not-commands",
        "akan.slash.prompts-are-commands",
        "the app's prompt() endpoints are left out of the slash-command list",
        commands=_MenuWithoutPrompts(),
    ),
    mutant(
        "akan-cut-on-tool",
        (
            "akan.compaction.cut.never-on-tool",
            "akan.compaction.cut.prefers-user",
            "akan.compaction.cut.assistant-when-no-user",
        ),
        "the cut keeps exactly `keep` messages even when that opens the kept part on a tool result",
        cut=_nominal_cut,
    ),
    mutant(
        "akan-cut-back-to-first-caller",
        "akan.compaction.cut.assistant-when-no-user",
        "with no user message in the kept tail, the cut goes back to the first assistant message of the turn",
        cut=_cut_back_to_first_caller,
    ),
    mutant(
        "akan-local-on-wire",
        "akan.local.withheld-from-wire",
        "local messages are posted (and exported) like any other",
        on_wire=_everything_on_wire,
    ),
    mutant(
        "akan-file-ceiling-off-by-one",
        "akan.attachments.ceiling.per-file",
        f"a file of exactly {FILE_MAX_BYTES // MB} MB is refused",
        lambda p: replace(p, ceilings=p.ceilings._replace(file_max_bytes=FILE_MAX_BYTES - 1)),
    ),
    mutant(
        "akan-message-bytes-unchecked",
        "akan.attachments.ceiling.per-message-bytes",
        f"the {MESSAGE_MAX_BYTES // MB} MB per-message ceiling is never applied",
        lambda p: replace(p, ceilings=p.ceilings._replace(message_max_bytes=10**12)),
    ),
    mutant(
        "akan-six-files",
        "akan.attachments.ceiling.per-message-files",
        f"a file past the {MESSAGE_MAX_FILES} per message is accepted",
        lambda p: replace(p, ceilings=p.ceilings._replace(message_max_files=MESSAGE_MAX_FILES + 1)),
    ),
    mutant(
        "akan-duplicates-allowed",
        "akan.attachments.duplicate-refused",
        "the same file can be attached twice",
        ceilings=_DuplicatesAllowed(),
    ),
    mutant(
        "akan-duplicate-by-size",
        "akan.attachments.duplicate-refused",
        "a file of the same size as one already attached is refused as a duplicate, whatever its name",
        ceilings=_DuplicateBySize(),
    ),
    mutant(
        "akan-duplicate-by-ordered-size",
        "akan.attachments.duplicate-refused",
        "a file of an attached file's name is refused when the attached one is no larger (order decides)",
        ceilings=_DuplicateByOrderedSize(),
    ),
    mutant(
        "akan-threshold-halved",
        "akan.compaction.threshold.past",
        "compaction starts once the estimate passes half of compact.at",
        should_compact=_half_threshold,
    ),
    mutant(
        "akan-large-threshold-falls-back-to-default",
        "akan.compaction.threshold.past",
        "a compact.at above 200,000 is replaced by the default 24k, so a larger threshold compacts sooner",
        should_compact=_large_threshold_falls_back,
    ),
    mutant(
        "akan-at-zero-compacts",
        "akan.compaction.disabled-at-zero",
        "compact.at = 0 is treated as a threshold of zero tokens",
        should_compact=_zero_is_a_threshold,
    ),
    mutant(
        "akan-default-12000",
        "akan.compaction.threshold.default",
        "the default threshold is half of 24k",
        default_at_tokens=12_000,
    ),
    mutant(
        "akan-default-48000",
        "akan.compaction.threshold.default",
        "the default threshold is twice 24k",
        default_at_tokens=48_000,
    ),
    mutant(
        "akan-five-chars-per-token",
        "akan.compaction.estimate.four-chars-per-token",
        "the estimate divides by five",
        chars_per_token=5,
    ),
    mutant(
        "akan-three-chars-per-token",
        "akan.compaction.estimate.four-chars-per-token",
        "the estimate divides by three",
        chars_per_token=3,
    ),
    mutant(
        "akan-no-shrink-retried",
        "akan.compaction.no-shrink.held",
        "an unhelpful summary is retried on the very next request",
        hold_after=lambda before, after: None,
    ),
    mutant(
        "akan-every-summary-holds",
        "akan.compaction.no-shrink.held",
        "a summary that did shrink the conversation also holds compaction back for another threshold's worth",
        hold_after=lambda before, after: after,
    ),
    mutant(
        "akan-unbounded-digest",
        "akan.compaction.summarizer.bounded-digest",
        "the summarizer is handed the transcript whole",
        digest_max_chars=10**9,
        digest_message_chars=10**9,
    ),
    mutant(
        "akan-empty-digest",
        "akan.compaction.summarizer.bounded-digest",
        "the summarizer is handed an empty digest: a bound of zero characters keeps none of the conversation",
        digest_max_chars=0,
    ),
    mutant(
        "akan-summarizer-sees-nothing",
        "akan.compaction.summarizer.bounded-digest",
        "the summarizer is sent an empty digest instead of the conversation",
        summary_request=_summary_of_nothing,
    ),
    mutant(
        "akan-summarizer-with-tools",
        "akan.compaction.summarizer.no-tools-no-screen",
        "the summarizing request carries tools and screen context",
        summary_request=_summary_with_tools,
    ),
    mutant(
        "akan-ignores-accepts",
        ("akan.attachments.unreadable-note", "akan.attachments.deepseek-accepts-none"),
        "every attachment is passed to the provider whatever it declares",
        can_read=lambda kind, accepts: True,
    ),
    mutant(
        "akan-deepseek-reads-documents",
        "akan.attachments.deepseek-accepts-none",
        "the default provider is treated as if it declared documents: a reader's document reaches it whole",
        can_read=lambda kind, accepts: kind == "document" or attachments.can_read(kind, accepts),
    ),
    mutant(
        "akan-summary-as-user-for-provider",
        "akan.compaction.summary-as-system-for-provider",
        "the adaptor hands the summary to the provider as a user message",
        provider_message=_summary_left_as_user,
    ),
    mutant(
        "akan-persist-keeps-content",
        "akan.attachments.persist-names-only",
        "saving the transcript keeps attachment bytes and text",
        persisted=_persist_everything,
    ),
    mutant(
        "akan-sanitize-erases",
        "akan.sanitize.stopped-calls-answered-not-erased",
        "an unanswered call is deleted from the transcript instead of being answered as stopped",
        sanitize_request=_erasing_sanitize,
        restore=_erasing_sanitize,
    ),
    mutant(
        "akan-request-unsanitized",
        ("akan.sanitize.runs-on-request-assembly", "akan.sanitize.no-unanswered-tool-calls-on-wire"),
        "a turn's request is posted with the stopped calls still unanswered",
        sanitize_request=_as_is,
    ),
    mutant(
        "akan-restore-unsanitized",
        "akan.sanitize.runs-on-restore",
        "a transcript restored from storage is taken as saved, holes and all",
        restore=_as_is,
    ),
    mutant(
        "akan-cap-unsanitized",
        "akan.sanitize.runs-on-capped-store",
        "a capped store keeps the window as cut, opening on results whose call is gone",
        cap_store=_window_only,
    ),
    mutant(
        "akan-prompt-wins-collision",
        "akan.slash.builtin-wins-collision",
        "an app prompt named like a built-in runs instead of it and is listed twice",
        lambda p: replace(p, commands=replace(p.commands, winner="prompt", dispatch_first=frozenset())),
    ),
    mutant(
        "akan-new-and-copy-after-running-check",
        "akan.slash.new-and-copy-dispatch-first",
        "/new and /copy are refused mid-turn and taken by an open question card as the answer",
        lambda p: replace(p, commands=replace(p.commands, dispatch_first=frozenset())),
    ),
    mutant(
        "akan-new-without-abort",
        "akan.slash.new-aborts-then-waits",
        "/new empties the transcript while the turn it interrupted is still running",
        new_aborts=False,
    ),
    mutant(
        "akan-retry-replays-everything",
        "akan.slash.retry-replays-trailing-user-message",
        "/retry sends the whole last input again, a prompt's preamble included",
        retry=_retry_everything,
    ),
    mutant(
        "akan-args-split-on-spaces",
        "akan.slash.positional-whitespace-args-with-quotes",
        "quotes do not group: every word is its own argument",
        lambda p: replace(p, commands=replace(p.commands, split=_split_on_spaces)),
    ),
    mutant(
        "akan-copy-without-route-and-time",
        "akan.slash.copy-includes-route-and-time",
        "the /copy export holds the messages only: its route and time are empty",
        export=_export_conversation_only,
    ),
    mutant(
        "akan-error-not-folded",
        "akan.transcript.error-folded-into-text",
        "a failed turn reaches the provider as an empty assistant message with a stray error field",
        explained=lambda message: message,
    ),
    mutant(
        "akan-report-as-note",
        "akan.slash.note-and-report",
        "session.report writes its failure as a local note",
        report_lands_as="note",
    ),
    mutant(
        "akan-compact-command-keeps-tail",
        "akan.compaction.command-keeps-nothing",
        "/compact keeps the newest messages, as an automatic compaction does",
        command_keep=2,
    ),
    mutant(
        "akan-compacting-never-shown",
        "akan.compaction.is-compacting",
        "isCompacting is never raised while a summary is written",
        shows_compacting=False,
    ),
    mutant(
        "akan-voice-flag-on-wire",
        "akan.speech.no-wire-field-for-voice",
        "a voiced ask is posted with a field saying it was spoken",
        user_message=_message_marking_voice,
    ),
    mutant(
        "akan-prompt-image-as-text",
        "akan.attachments.msg-image-same-shape",
        "a prompt's image becomes the literal [image] in its text",
        prompt_message=_prompt_images_as_text,
    ),
]
