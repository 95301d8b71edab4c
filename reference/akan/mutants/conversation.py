"""Mutants of the conversation: compaction, attachments, sanitize, slash commands, transcript."""

from __future__ import annotations

from collections.abc import Sequence
from unittest import mock

from conformance.scenario.akan import Accepts
from reference.akan import (
    attachments,
    ceilings,
    commands,
    compaction,
)
from reference.akan.commands import Command, builtin
from reference.akan.mutants.common import patch_all as _patch_all
from reference.akan.session import ChatSession
from reference.akan.wire import Message, on_wire
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


_summary_request = compaction.summary_request


def _summary_with_tools(messages: list[Message]) -> dict[str, object]:
    return {**_summary_request(messages), "tools": [], "screen": ""}


def _summary_left_as_user(message: Message, accepts: Accepts) -> Message:
    """Maps a summary like any other user message, so the provider reads the notes as a question."""
    plain = {key: value for key, value in message.items() if key != "summary"}
    return attachments.provider_message(plain, accepts)


def _persist_everything(message: Message) -> Message:
    return dict(message)


def _erasing_sanitize(transcript: list[Message]) -> list[Message]:
    """Repairs a hole by deleting the calls that have no result, and any orphaned result."""
    answered = {m.get("tool_call_id") for m in transcript if m.get("role") == "tool"}
    called = {c["id"] for m in transcript for c in m.get("tool_calls") or []}
    out: list[Message] = []
    for message in transcript:
        if message.get("role") == "tool" and message.get("tool_call_id") not in called:
            continue
        calls = [c for c in message.get("tool_calls") or [] if c["id"] in answered]
        if message.get("tool_calls") is not None:
            message = {**message, "tool_calls": calls} if calls else {
                k: v for k, v in message.items() if k != "tool_calls"}
        out.append(message)
    return out


def _no_sanitize(transcript: list[Message]) -> list[Message]:
    return list(transcript)


def _window_only(transcript: list[Message], newest: int) -> list[Message]:
    return transcript[max(0, len(transcript) - newest) :] if newest else []


def _prompt_first(self: ChatSession, command: Command) -> bool:
    """Looks the name up among the app's prompts before the chat's own commands."""
    if self._prompt(command):
        return True
    return _builtin_command(self, command)


_builtin_command = ChatSession._command


def _menu_with_every_prompt(prompt_names: Sequence[str]) -> list[str]:
    return [f"/{name}" for name in (*commands.BUILTINS, *prompt_names)]


def _retry_everything(self: ChatSession) -> None:
    """Replays the whole trailing run of user messages, appending it again after the answer is dropped."""
    end = len(self.transcript)
    while end and self.transcript[end - 1]["role"] != "user":
        end -= 1
    start = end
    while start and self.transcript[start - 1]["role"] == "user":
        start -= 1
    self.transcript = self.transcript[:end] + [dict(m) for m in self.transcript[start:end]]
    self._run()



def _split_on_spaces(text: str) -> tuple[str, ...]:
    return tuple(text.split())


def _copy_conversation_only(self: ChatSession) -> None:
    self.recorder.emit("export", route="", at="", messages=on_wire(self.transcript))


def _new_without_abort(self: ChatSession) -> None:
    self.transcript, self.held_at = [], None




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
        "akan-threshold-halved",
        ("akan.compaction.threshold.past",),
        lambda: mock.patch.object(compaction, "should_compact", _half_threshold),
        "compaction starts once the estimate passes half of compact.at",
    ),
    Mutant(
        "akan-at-zero-compacts",
        ("akan.compaction.disabled-at-zero",),
        lambda: mock.patch.object(compaction, "should_compact", _zero_is_a_threshold),
        "compact.at = 0 is treated as a threshold of zero tokens",
    ),
    Mutant(
        "akan-default-12000",
        ("akan.compaction.threshold.default",),
        lambda: mock.patch.object(compaction, "DEFAULT_AT_TOKENS", 12_000),
        "the default threshold is half of 24k",
    ),
    Mutant(
        "akan-default-48000",
        ("akan.compaction.threshold.default",),
        lambda: mock.patch.object(compaction, "DEFAULT_AT_TOKENS", 48_000),
        "the default threshold is twice 24k",
    ),
    Mutant(
        "akan-five-chars-per-token",
        ("akan.compaction.estimate.four-chars-per-token",),
        lambda: mock.patch("reference.akan.wire.CHARS_PER_TOKEN", 5),
        "the estimate divides by five",
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

MUTANTS += [
    Mutant(
        "akan-sanitize-erases",
        ("akan.sanitize.stopped-calls-answered-not-erased",),
        lambda: mock.patch("reference.akan.session.sanitize", _erasing_sanitize),
        "an unanswered call is deleted from the transcript instead of being answered as stopped",
    ),
    Mutant(
        "akan-request-unsanitized",
        ("akan.sanitize.runs-on-request-assembly", "akan.sanitize.no-unanswered-tool-calls-on-wire"),
        lambda: mock.patch.object(ChatSession, "_sanitize_request", lambda self: None),
        "a turn's request is posted with the stopped calls still unanswered",
    ),
    Mutant(
        "akan-restore-unsanitized",
        ("akan.sanitize.runs-on-restore",),
        lambda: mock.patch.object(ChatSession, "_restore", lambda self, stored: list(stored)),
        "a transcript restored from storage is taken as saved, holes and all",
    ),
    Mutant(
        "akan-cap-unsanitized",
        ("akan.sanitize.runs-on-capped-store",),
        lambda: mock.patch("reference.akan.session.cap", _window_only),
        "a capped store keeps the window as cut, opening on results whose call is gone",
    ),
    Mutant(
        "akan-prompt-wins-collision",
        ("akan.slash.builtin-wins-collision",),
        lambda: _patch_all(
            mock.patch.object(ChatSession, "_command", _prompt_first),
            mock.patch.object(ChatSession, "_dispatch_first", lambda self, command: False),
            mock.patch("reference.akan.session.menu", _menu_with_every_prompt),
        ),
        "an app prompt named like a built-in runs instead of it and is listed twice",
    ),
    Mutant(
        "akan-new-and-copy-after-running-check",
        ("akan.slash.new-and-copy-dispatch-first",),
        lambda: mock.patch.object(ChatSession, "_dispatch_first", lambda self, command: False),
        "/new and /copy are refused mid-turn and taken by an open question card as the answer",
    ),
    Mutant(
        "akan-new-without-abort",
        ("akan.slash.new-aborts-then-waits",),
        lambda: mock.patch.object(ChatSession, "_new", _new_without_abort),
        "/new empties the transcript while the turn it interrupted is still running",
    ),
    Mutant(
        "akan-retry-replays-everything",
        ("akan.slash.retry-replays-trailing-user-message",),
        lambda: mock.patch.object(ChatSession, "_retry", _retry_everything),
        "/retry sends the whole last input again, a prompt's preamble included",
    ),
    Mutant(
        "akan-args-split-on-spaces",
        ("akan.slash.positional-whitespace-args-with-quotes",),
        lambda: mock.patch.object(commands, "split_args", _split_on_spaces),
        "quotes do not group: every word is its own argument",
    ),
    Mutant(
        "akan-copy-without-route-and-time",
        ("akan.slash.copy-includes-route-and-time",),
        lambda: mock.patch.object(ChatSession, "_copy", _copy_conversation_only),
        "the /copy export holds the messages only: its route and time are empty",
    ),
    Mutant(
        "akan-error-not-folded",
        ("akan.transcript.error-folded-into-text",),
        lambda: mock.patch("reference.akan.session.explained", lambda message: message),
        "a failed turn reaches the provider as an empty assistant message with a stray error field",
    ),
]

MUTANTS += [
    Mutant(
        "akan-report-as-note",
        ("akan.slash.note-and-report",),
        lambda: mock.patch.object(ChatSession, "report", lambda self, message: self.note(message)),
        "session.report writes its failure as a local note",
    ),
]


def _compact_command_keeps_two(self: ChatSession, command: Command) -> bool:
    if builtin(command.name) == "compact":
        self._compact(keep=2, trigger="command")
        return True
    return _builtin_command(self, command)


_real_status = ChatSession._status


def _never_compacting(
    self: ChatSession, *, running: bool | None = None, compacting: bool | None = None
) -> None:
    _real_status(self, running=running, compacting=None if compacting else compacting)


_real_run = ChatSession._run


def _run_marking_voice(self: ChatSession) -> None:
    """Tells the wire how the ask was entered: a voiced user message carries ``voiced: true``."""
    if self.turn_voiced:
        for message in reversed(self.transcript):
            if message["role"] == "user":
                message["voiced"] = True
                break
    _real_run(self)


_real_prompt = ChatSession._prompt


def _prompt_images_as_text(self: ChatSession, command: Command) -> bool:
    """A prompt's ``Msg.image`` reaches the chat as the literal ``[image]``, not as an attachment."""
    prompt = next((p for p in self.setup.prompts if p.name == command.name), None)
    if prompt is None or not any(item.images for item in prompt.messages):
        return _real_prompt(self, command)
    for item in prompt.messages:
        self.transcript.append({"role": "user", "content": item.text + " [image]" * len(item.images)})
    self._run()
    return True


MUTANTS += [
    Mutant(
        "akan-compact-command-keeps-tail",
        ("akan.compaction.command-keeps-nothing",),
        lambda: mock.patch.object(ChatSession, "_command", _compact_command_keeps_two),
        "/compact keeps the newest messages, as an automatic compaction does",
    ),
    Mutant(
        "akan-compacting-never-shown",
        ("akan.compaction.is-compacting",),
        lambda: mock.patch.object(ChatSession, "_status", _never_compacting),
        "isCompacting is never raised while a summary is written",
    ),
    Mutant(
        "akan-voice-flag-on-wire",
        ("akan.speech.no-wire-field-for-voice",),
        lambda: mock.patch.object(ChatSession, "_run", _run_marking_voice),
        "a voiced ask is posted with a field saying it was spoken",
    ),
    Mutant(
        "akan-prompt-image-as-text",
        ("akan.attachments.msg-image-same-shape",),
        lambda: mock.patch.object(ChatSession, "_prompt", _prompt_images_as_text),
        "a prompt's image becomes the literal [image] in its text",
    ),
]
