"""Deliberately broken llmz references, one flipped rule each (see ``reference.mutants``).

Every runtime mutant patches exactly one pure policy (guard, settle, signals, session restore), so the
suite can show that the scenarios pinning a rule really notice when that rule is broken.
``tests/test_llmz_mutants.py`` checks ``RUNTIME_MUTANTS`` (these plus ``contract_mutants``: errors,
memory, sessions, inspection, hooks; and ``model_view_mutants``: what the model is shown);
the budget's own test checks its mutants.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any
from unittest import mock

from reference.llmz import kernel, settle
from reference.llmz.budget_mutants import MUTANTS as BUDGET_MUTANTS
from reference.llmz.config import ExitDef
from reference.llmz.contract_mutants import MUTANTS as CONTRACT_MUTANTS
from reference.llmz.errors import LlmzError
from reference.llmz.input_mutants import MUTANTS as INPUT_MUTANTS
from reference.llmz.model_view_mutants import MUTANTS as MODEL_VIEW_MUTANTS
from reference.mutants import Mutant


def _patch(target: str, replacement: Any) -> Callable[[], AbstractContextManager[object]]:
    return lambda: mock.patch(target, replacement)


def _exit_first(happened: settle.Happenings) -> settle.Decision:
    """Inspection loses to an attempted exit."""
    if happened.critical:
        return "critical"
    if happened.exit_attempted and not happened.recoverable_error:
        return "exit"
    return "inspect" if happened.signalled else ("recover" if happened.recoverable_error else "continue")


def _error_first(happened: settle.Happenings) -> settle.Decision:
    """Inspection loses to a recoverable error."""
    if happened.critical:
        return "critical"
    if happened.recoverable_error:
        return "recover"
    return "inspect" if happened.signalled else ("exit" if happened.exit_attempted else "continue")


def _signal_softens_critical(happened: settle.Happenings) -> settle.Decision:
    """A signal turns a cancellation or critical failure into an inspection turn."""
    if happened.signalled:
        return "inspect"
    if happened.critical:
        return "critical"
    return "recover" if happened.recoverable_error else ("exit" if happened.exit_attempted else "continue")


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

RUNTIME_MUTANTS: list[Mutant] = [
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
        patch=_patch("reference.llmz.guard.may_listen", lambda last_speaker, require_chat_response: True),
        description="exit('listen') always completes, whoever spoke last",
    ),
    Mutant(
        "llmz-guard-ignores-opt-out",
        rules=("llmz.chat-guard.opt-out",),
        patch=_patch(
            "reference.llmz.guard.may_listen", lambda last_speaker, require: last_speaker == "assistant"
        ),
        description="requireChatResponse: false is ignored",
    ),
    Mutant(
        "llmz-guard-everywhere",
        rules=("llmz.chat-guard.custom-exits-unaffected", "llmz.chat-guard.worker-unaffected"),
        patch=_patch("reference.llmz.guard.guard_applies", lambda mode, exit_name: True),
        description="every exit, in every mode, requires a chat reply",
    ),
    Mutant(
        "llmz-any-delivery-is-speech",
        rules=("llmz.chat-guard.failed-delivery-not-speech", "llmz.chat-guard.unhandled-text-not-speech"),
        patch=_patch("reference.llmz.guard.speaker_after_delivery", lambda current, *_: "assistant"),
        description="failed and unhandled deliveries count as the assistant speaking",
    ),
    Mutant(
        "llmz-whitespace-is-speech",
        rules=("llmz.chat-guard.whitespace-not-speech",),
        patch=_patch("reference.llmz.guard.is_blank", lambda text: text is None or text == ""),
        description="whitespace-only text is delivered and counts as a reply",
    ),
    Mutant(
        "llmz-events-are-speech",
        rules=("llmz.chat-guard.events-not-speech",),
        patch=_patch(
            "reference.llmz.guard.speaker_after_input",
            lambda current, role, content: "user" if role in ("user", "event") else current,
        ),
        description="an event resets the guard like a user message",
    ),
    Mutant(
        "llmz-user-message-no-reset",
        rules=("llmz.chat-guard.user-message-resets", "llmz.chat-guard.retry-reset-at-turn-start"),
        patch=_patch(
            "reference.llmz.guard.speaker_after_input",
            lambda current, role, content: current if current == "assistant" else "user",
        ),
        description="a new user message does not require a new reply",
    ),
    Mutant(
        "llmz-speaker-not-persisted",
        rules=("llmz.chat-guard.across-saved-sessions",),
        patch=_patch("reference.llmz.guard.restored_speaker", lambda saved: "unknown"),
        description="fromJSON forgets who spoke last",
    ),
    Mutant(
        "llmz-legacy-snapshot-trusted",
        rules=("llmz.chat-guard.legacy-snapshot-unknown",),
        patch=_patch("reference.llmz.guard.restored_speaker", lambda saved: saved or "assistant"),
        description="an untracked snapshot restores as if the assistant spoke last",
    ),
    Mutant(
        "llmz-inspection-loses-to-exit",
        rules=("llmz.think-signal.beats-exit", "llmz.think-signal.exit-hooks-skipped"),
        patch=_patch("reference.llmz.settle.settle", _exit_first),
        description="an attempted exit wins over a ThinkSignal",
    ),
    Mutant(
        "llmz-inspection-loses-to-error",
        rules=("llmz.think-signal.beats-later-recoverable-error",),
        patch=_patch("reference.llmz.settle.settle", _error_first),
        description="a later recoverable error wins over a ThinkSignal",
    ),
    Mutant(
        "llmz-signal-softens-critical",
        rules=("llmz.think-signal.critical-still-stops",),
        patch=_patch("reference.llmz.settle.settle", _signal_softens_critical),
        description="a ThinkSignal turns a cancellation or timeout into an inspection turn",
    ),
    Mutant(
        "llmz-signal-interrupts-program",
        rules=("llmz.think-signal.code-continues", "llmz.think-signal.context-is-result"),
        patch=_patch("reference.llmz.signals.interrupts_program", lambda: True),
        description="code after a signalling tool no longer runs (1.0.1 behaviour)",
    ),
    Mutant(
        "llmz-signal-only-when-thrown",
        rules=("llmz.think-signal.return-or-throw",),
        patch=_patch("reference.llmz.signals.honoured", lambda via: via == "throw"),
        description="a returned ThinkSignal is treated as plain data",
    ),
    Mutant(
        "llmz-first-signal-only",
        rules=("llmz.think-signal.all-signals-together",),
        patch=_patch("reference.llmz.signals.reported", lambda raised: list(raised)[:1]),
        description="only the first signalling tool is reported",
    ),
    Mutant(
        "llmz-chat-without-listen-exit",
        rules=("llmz.exits.chat-listen-exit",),
        patch=_patch(
            "reference.llmz.config.LISTEN_EXIT", ExitDef("wait_for_user", "Wait for the user.", None)
        ),
        description="chat mode registers its hand-back exit under another name, so exit('listen') is unknown",
    ),
    Mutant(
        "llmz-timeout-not-enforced",
        rules=("llmz.configuration.timeout-bounds-javascript",),
        patch=_patch("reference.llmz.containment.javascript_budget", lambda timeout_ms: None),
        description="options.timeout does not stop a running program; only the host's backstop does",
    ),
    Mutant(
        "llmz-heap-exhaustion-crashes",
        rules=("llmz.configuration.program-memory-bounded",),
        patch=_patch("reference.llmz.program.heap_exhausted", _heap_exhaustion_crashes),
        description="a program that runs out of heap takes the runtime down instead of failing as typed",
    ),
    Mutant(
        "llmz-settle-hook-forgeable",
        rules=("llmz.errors.execution-failed",),
        patch=_patch("reference.llmz.kernel.DEFINITION", _FORGEABLE_KERNEL),
        description="the end of a program is watched through Promise.prototype.then, which it can replace",
    ),
    *CONTRACT_MUTANTS,
    *MODEL_VIEW_MUTANTS,
    *INPUT_MUTANTS,
]

#: Everything the harness can run: the runtime mutants above and the token budget's
#: (``reference.llmz.budget_mutants``, owned and tested with the budget work).
MUTANTS: list[Mutant] = [*RUNTIME_MUTANTS, *BUDGET_MUTANTS]
