"""Mutants of the chat guard, the settlement precedence, ThinkSignals, exits and program containment."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from reference.llmz import config, failures, guard, kernel
from reference.llmz.api import Exit
from reference.llmz.errors import LlmzError
from reference.llmz.guard import Speaker
from reference.llmz.policies import Policies
from reference.llmz.settle import Decision, Happenings
from variants import Mutant


def _any_out_of_memory(error: dict[str, Any] | None) -> LlmzError | None:
    """An error the program threw itself counts as an exhausted heap when its message says out of memory."""
    if error is not None and not error.get("host") and "out of memory" in str(error.get("message")):
        return failures.heap_exhausted({**error, "name": "InternalError"})
    return failures.heap_exhausted(error)


def _summary_speaks(current: Speaker, role: str, content: object) -> Speaker:
    """A summary with text, appended as input, counts as the assistant having spoken."""
    if role == "summary" and isinstance(content, str) and content.strip():
        return "assistant"
    return guard.speaker_after_input(current, role, content)


def _listen_everywhere(exits: Any, chat: bool, listen: Exit) -> dict[str, Exit]:
    """The listen exit joins every run's exits, a worker's too."""
    return {**config.available_exits(exits, chat, listen), listen.name: listen}


def _exit_first(happened: Happenings) -> Decision:
    """Inspection loses to an attempted exit."""
    if happened.critical:
        return "critical"
    if happened.exit_attempted and not happened.recoverable_error:
        return "exit"
    return "inspect" if happened.signalled else ("recover" if happened.recoverable_error else "continue")


def _error_first(happened: Happenings) -> Decision:
    """Inspection loses to a recoverable error."""
    if happened.critical:
        return "critical"
    if happened.recoverable_error:
        return "recover"
    return "inspect" if happened.signalled else ("exit" if happened.exit_attempted else "continue")


def _signal_softens_critical(happened: Happenings) -> Decision:
    """A signal turns a cancellation or critical failure into an inspection turn."""
    if happened.signalled:
        return "inspect"
    if happened.critical:
        return "critical"
    return "recover" if happened.recoverable_error else ("exit" if happened.exit_attempted else "continue")


def _events_speak(current: Speaker, role: str, content: object) -> Speaker:
    """An event hands the floor to the user, like a user message."""
    return "user" if role in ("user", "event") else current


def _assistant_keeps_the_floor(current: Speaker, role: str, content: object) -> Speaker:
    """A new user message does not take the floor back from the assistant."""
    return current if current == "assistant" else "user"


def _heap_exhaustion_crashes(error: dict[str, Any] | None) -> LlmzError | None:
    """Running out of heap takes the runtime down (reported as an internal failure)."""
    if error is None or "out of memory" not in str(error.get("message")):
        return None
    return LlmzError("INTERNAL_ERROR", "the runtime died with the program")


#: The kernel with its settle hook attached through the guest-visible ``then``, as a naive host would.
_FORGEABLE_KERNEL = kernel.DEFINITION.replace(
    "apply(then, settleQuietly(promise), [onValue, onError]);", "promise.then(onValue, onError);"
)
assert _FORGEABLE_KERNEL != kernel.DEFINITION, "the kernel mutant no longer applies"


def _undefined_checked_as_zero(policies: Policies) -> Policies:
    """Validates an assigned ``undefined`` (null on the host side) as if it were 0."""
    base = policies.schema_issues
    return replace(policies, schema_issues=lambda schema, value: base(schema, 0 if value is None else value))


MUTANTS: list[Mutant] = [
    Mutant(
        "llmz-loop-one-extra",
        rules=("llmz.configuration.loop-bounds-iterations", "llmz.errors.iteration-limit"),
        description="options.loop allows one more model iteration than it says",
        policies=lambda p: replace(p, iterations_allowed=lambda loop: loop + 1),
    ),
    Mutant(
        "llmz-loop-one-short",
        rules=("llmz.configuration.loop-bounds-iterations", "llmz.errors.iteration-limit"),
        description="options.loop stops a run one model iteration before its last",
        policies=lambda p: replace(p, iterations_allowed=lambda loop: max(loop - 1, 1)),
    ),
    Mutant(
        "llmz-guard-disabled",
        rules=(
            "llmz.chat-guard.listen-requires-reply",
            "llmz.chat-guard.missing-response-error",
            "llmz.chat-guard.blank-stop-response",
            "llmz.chat-guard.user-message-resets",
            "llmz.chat-guard.legacy-snapshot-unknown",
            "llmz.chat-guard.failed-delivery-not-speech",
            "llmz.chat-guard.whitespace-not-speech",
            "llmz.chat-guard.unhandled-text-not-speech",
            "llmz.chat-guard.before-on-exit",
            "llmz.chat-guard.keeps-tool-results",
            "llmz.chat-guard.tool-results-not-speech",
            "llmz.chat-guard.retry-reset-at-turn-start",
        ),
        description="exit('listen') always completes, whoever spoke last",
        policies=lambda p: replace(p, may_listen=lambda last_speaker, require_chat_response: True),
    ),
    Mutant(
        "llmz-guard-ignores-opt-out",
        rules=("llmz.chat-guard.opt-out",),
        description="requireChatResponse: false is ignored",
        policies=lambda p: replace(p, may_listen=lambda last_speaker, require: last_speaker == "assistant"),
    ),
    Mutant(
        "llmz-guard-everywhere",
        rules=("llmz.chat-guard.custom-exits-unaffected", "llmz.chat-guard.worker-unaffected"),
        description="every exit, in every mode, requires a chat reply",
        policies=lambda p: replace(p, guard_applies=lambda mode, exit_name: True),
    ),
    Mutant(
        "llmz-any-delivery-is-speech",
        rules=("llmz.chat-guard.failed-delivery-not-speech", "llmz.chat-guard.unhandled-text-not-speech"),
        description="failed and unhandled deliveries count as the assistant speaking",
        policies=lambda p: replace(p, speaker_after_delivery=lambda current, *_: "assistant"),
    ),
    Mutant(
        "llmz-whitespace-is-speech",
        rules=("llmz.chat-guard.whitespace-not-speech",),
        description="whitespace-only text is delivered and counts as a reply",
        policies=lambda p: replace(p, is_blank=lambda text: text is None or text == ""),
    ),
    Mutant(
        "llmz-events-are-speech",
        rules=("llmz.chat-guard.events-not-speech",),
        description="an event resets the guard like a user message",
        policies=lambda p: replace(p, speaker_after_input=_events_speak),
    ),
    Mutant(
        "llmz-user-message-no-reset",
        rules=("llmz.chat-guard.user-message-resets", "llmz.chat-guard.retry-reset-at-turn-start"),
        description="a new user message does not require a new reply",
        policies=lambda p: replace(p, speaker_after_input=_assistant_keeps_the_floor),
    ),
    Mutant(
        "llmz-speaker-not-persisted",
        rules=("llmz.chat-guard.across-saved-sessions",),
        description="fromJSON forgets who spoke last",
        policies=lambda p: replace(p, restored_speaker=lambda saved: "unknown"),
    ),
    Mutant(
        "llmz-legacy-snapshot-trusted",
        rules=("llmz.chat-guard.legacy-snapshot-unknown",),
        description="an untracked snapshot restores as if the assistant spoke last",
        policies=lambda p: replace(p, restored_speaker=lambda saved: saved or "assistant"),
    ),
    Mutant(
        "llmz-inspection-loses-to-exit",
        rules=("llmz.think-signal.beats-exit", "llmz.think-signal.exit-hooks-skipped"),
        description="an attempted exit wins over a ThinkSignal",
        policies=lambda p: replace(p, settle=_exit_first),
    ),
    Mutant(
        "llmz-inspection-loses-to-error",
        rules=("llmz.think-signal.beats-later-recoverable-error",),
        description="a later recoverable error wins over a ThinkSignal",
        policies=lambda p: replace(p, settle=_error_first),
    ),
    Mutant(
        "llmz-signal-softens-critical",
        rules=("llmz.think-signal.critical-still-stops",),
        description="a ThinkSignal turns a cancellation or timeout into an inspection turn",
        policies=lambda p: replace(p, settle=_signal_softens_critical),
    ),
    Mutant(
        "llmz-signal-interrupts-program",
        rules=("llmz.think-signal.code-continues", "llmz.think-signal.context-is-result"),
        description="code after a signalling tool no longer runs (1.0.1 behaviour)",
        policies=lambda p: replace(p, signals_interrupt_program=True),
    ),
    Mutant(
        "llmz-signal-only-when-thrown",
        rules=("llmz.think-signal.return-or-throw",),
        description="a returned ThinkSignal is treated as plain data",
        policies=lambda p: replace(p, signal_honoured=lambda via: via == "throw"),
    ),
    Mutant(
        "llmz-first-signal-only",
        rules=("llmz.think-signal.all-signals-together",),
        description="only the first signalling tool is reported",
        policies=lambda p: replace(p, reported_signals=lambda raised: list(raised)[:1]),
    ),
    Mutant(
        "llmz-chat-without-listen-exit",
        rules=("llmz.exits.chat-listen-exit",),
        description="chat mode registers its hand-back exit under another name, so exit('listen') is unknown",
        policies=lambda p: replace(p, listen_exit=Exit("wait_for_user", "Wait for the user.", None)),
    ),
    Mutant(
        "llmz-listen-exit-for-workers",
        rules=("llmz.exits.empty-exits-none",),
        description="the listen exit is added to every run, workers included, not only to chats",
        policies=lambda p: replace(p, available_exits=_listen_everywhere),
    ),
    Mutant(
        "llmz-out-of-memory-message-is-memory",
        rules=("llmz.errors.execution-failed",),
        description="any error whose message mentions running out of memory is taken for an exhausted heap",
        policies=lambda p: replace(p, heap_exhausted=_any_out_of_memory),
    ),
    Mutant(
        "llmz-summary-counts-as-reply",
        rules=("llmz.chat-guard.delivery-counts",),
        description="a summary appended as input makes the assistant the last speaker",
        policies=lambda p: replace(p, speaker_after_input=_summary_speaks),
    ),
    Mutant(
        "llmz-timeout-not-enforced",
        rules=("llmz.configuration.timeout-bounds-javascript",),
        description="options.timeout does not stop a running program; only the host's backstop does",
        policies=lambda p: replace(p, javascript_budget=lambda timeout_ms: None),
    ),
    Mutant(
        "llmz-heap-exhaustion-crashes",
        rules=("llmz.configuration.program-memory-bounded",),
        description="a program that runs out of heap takes the runtime down instead of failing as typed",
        policies=lambda p: replace(p, heap_exhausted=_heap_exhaustion_crashes),
    ),
    Mutant(
        "llmz-settle-hook-forgeable",
        rules=("llmz.errors.execution-failed",),
        description="the end of a program is watched through Promise.prototype.then, which it can replace",
        policies=lambda p: replace(p, kernel_definition=_FORGEABLE_KERNEL),
    ),
    Mutant(
        "llmz-property-undefined-as-zero",
        rules=("llmz.errors.invalid-object-property",),
        description="undefined assigned to an object property is checked against its schema as 0",
        policies=_undefined_checked_as_zero,
    ),
]
