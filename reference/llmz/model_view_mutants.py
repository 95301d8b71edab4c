"""Mutants for what the model is shown and what a stopped program leaves behind (see ``reference.mutants``).

Previews: a zero budget hides them, ``preserve`` picks the surviving end, a ``truncate()`` policy replaces
the run's budget and still leaves the program the whole value, standalone text is shown as itself and
nested strings JSON-quoted, cyclic values are previewed with their content, cuts never split a character,
onInspect text is bounded. Reports: a ThinkSignal report keeps reason, site and context apart, a forced
inspection names each reason and obeys display budgets, recovery feedback carries its footers. Inputs:
the worker prompt rules out chatter, events never become system messages. And a stopped program is never
resumed, neither after a restore nor after a signal; a timeout stops the run; a new summary replaces the
earlier ones. Each mutant patches the one function (or text) that
makes its choice."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import Any
from unittest import mock

from reference.llmz import inspector as inspector_module
from reference.llmz import iteration as iteration_module
from reference.llmz import preview as preview_module
from reference.llmz import session as session_module
from reference.llmz.host import IterationHost
from reference.llmz.play import Player
from reference.llmz.preview import Preserve
from reference.mutants import Mutant

_real_preview = preview_module.preview
_real_present = inspector_module.present
_real_to_native = session_module.to_native
_real_finish_call = IterationHost._finish_call
_real_run_iteration = iteration_module.run_iteration
_SIGNALLED: dict[int, Any] = {}
"""Per session, the program whose iteration ended in a forced inspection (for the resuming mutant)."""
_real_save_and_restore = Player.save_and_restore
_real_cut = preview_module._cut


def _patch(target: str, replacement: Any) -> Callable[[], AbstractContextManager[object]]:
    return lambda: mock.patch(target, replacement)


def _zero_shows_everything(value: Any, max_tokens: int = 2000, preserve: Preserve = "top") -> str:
    """A zero budget is read as "no limit"."""
    return _real_preview(value, 2000 if max_tokens <= 0 else max_tokens, preserve)


def _always_top(text: str, ids: list[int], max_tokens: int, preserve: Preserve) -> str:
    """``preserve`` is ignored: the start of the text always survives."""
    return _real_cut(text, ids, max_tokens, "top")


def _run_budget_only(value: Any, display: Any, budget: int, hook: Any = None) -> str:
    """A value's own truncate() policy is ignored: the run's result budget applies."""
    from reference.llmz.inspector import present

    return present(value, budget, hook=hook)


def _raw_nested_strings(value: Any) -> str:
    """Nested strings are written raw (their line breaks become real ones), not JSON-quoted."""
    if isinstance(value, str) or value is preview_module.UNDEFINED:
        return _real_format(value)
    return json.dumps(value, indent=2, ensure_ascii=False).replace("\\n", "\n")


_real_format = preview_module.format_value


def _strings_quoted(value: Any) -> str:
    """A standalone string is previewed JSON-quoted, its line breaks and quotes escaped."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return _real_format(value)


def _display_cuts_data(self: Any, report: Any, signal: str | None = None) -> str:
    """A truncate() display budget cuts the value the program receives, not only its preview."""
    if report.display is not None and isinstance(report.output, str):
        report.output = _real_preview(report.output, report.display[0], report.display[1])
    return _real_finish_call(self, report, signal)


def _resume_after_signal(entry: Any, ctx: Any, index: int) -> Any:
    """The iteration after a forced inspection first runs the signalled program again, then the new one."""
    previous = _SIGNALLED.get(id(ctx.session))
    if previous is not None:
        del _SIGNALLED[id(ctx.session)]
        _real_run_iteration(previous, ctx, index)
    end = _real_run_iteration(entry, ctx, index)
    if end.status == "thinking_requested":
        _SIGNALLED[id(ctx.session)] = entry
    return end


@contextlib.contextmanager
def _fresh_resume_patch() -> Iterator[object]:
    _SIGNALLED.clear()
    with mock.patch("reference.llmz.execute.run_iteration", _resume_after_signal) as patched:
        yield patched
    _SIGNALLED.clear()


def _cut_splitting_characters(text: str, ids: list[int], max_tokens: int, preserve: Preserve) -> str:
    """Cutting text splits a character beyond the BMP, leaving half of its surrogate pair."""
    cut = _real_cut(text, ids, max_tokens, preserve)
    return cut + "\ud83d" if any(ord(char) > 0xFFFF for char in text) else cut


def _cycles_as_object_tag(value: Any) -> str:
    """A value with a cycle is previewed as an opaque tag instead of its content."""
    text = _real_format(value)
    return "[object Object]" if "[Circular]" in text else text


def _custom_text_unbounded(value: Any, budget: int, preserve: Preserve = "top", hook: Any = None) -> str:
    """Text returned by onInspect is shown whole, whatever the budget."""
    from reference.llmz import inspector

    if hook is not None:
        custom = inspector._call_hook(hook, inspector.snapshot(value))
        if custom is not None:
            return custom
    return _real_present(value, budget, preserve, hook)


@contextlib.contextmanager
def _unbounded_everywhere() -> Iterator[object]:
    """``present`` is imported by name where previews are made: replace it at each of those names."""
    with (
        mock.patch("reference.llmz.iteration.present", _custom_text_unbounded),
        mock.patch("reference.llmz.feedback.present", _custom_text_unbounded) as patched,
    ):
        yield patched


def _events_as_system(item: dict[str, Any]) -> Any:
    """An appended event becomes a system instruction instead of user-role data."""
    message = _real_to_native(item)
    if item.get("role") == "event":
        message["role"] = "system"
    return message


def _forced_previews_uncut(host: Any, budget: int) -> str:
    """The forced inspection shows each signalling tool's result whole, ignoring display budgets."""
    from reference.llmz import signals

    parts = [
        f"{signal.tool} (line {signal.line}): {signal.reason}\n{preview_module.format_value(signal.result)}"
        for signal in signals.reported(host.signals)
    ]
    return "<forced_inspection>\n" + "\n".join(parts) + "\n</forced_inspection>"


_real_replace_history = session_module.Session.replace_earlier_history


def _earlier_summaries_kept(self: Any, retained_count: int, summary: str) -> None:
    """A new compaction adds its summary but keeps the earlier summaries too, instead of replacing them."""
    earlier, _current = self.split()
    older = [m for m in earlier if (m.get("source") or {}).get("role") == "summary"]
    _real_replace_history(self, retained_count, summary)
    kept = [m for m in older if m not in self.history]
    self.history = [*kept, *self.history]
    if self.turn_start is not None:
        self.turn_start += len(kept)


def _timeout_recoverable(ctx: Any) -> Any:
    """A program cut off by the timeout fails its iteration recoverably, so the run asks the model again."""
    from reference.llmz.errors import LlmzError

    return LlmzError("EXECUTION_FAILED", "the program was interrupted by the timeout")


def _forced_inspection_without_reasons(host: Any, budget: int) -> str:
    """The forced inspection lists each signalling tool and its result but leaves the reasons out."""
    from reference.llmz import signals
    from reference.llmz.feedback import shown

    parts = []
    for signal in signals.reported(host.signals):
        result = shown(signal.result, signal.display, budget, host.config.on_inspect)
        parts.append(f"{signal.tool} (line {signal.line}):\n{result}")
    return "<forced_inspection>\n" + "\n".join(parts) + "\n</forced_inspection>"


def _merged_signal_section(host: Any, budget: int) -> str:
    """The signal report runs reason and context together in one section, without the site."""
    from reference.llmz import signals
    from reference.llmz.feedback import shown

    parts = []
    for signal in signals.reported(host.signals):
        result = shown(signal.result, signal.display, budget, host.config.on_inspect)
        parts.append(f"{signal.tool}: {signal.reason} {result}")
    return "<forced_inspection>\n" + "\n".join(parts) + "\n</forced_inspection>"


def _restore_that_resumes(self: Player, step: Any) -> None:
    """Restoring resumes the stopped program: the next model call is answered, without asking the model,
    by the program that was running when the session was saved."""
    _real_save_and_restore(self, step)
    provider = self.provider
    stopped = getattr(provider, "last_entry", None)
    if stopped is None:
        return
    asking = provider.complete

    def resume_once(request: dict[str, Any], *, purpose: str = "turn") -> Any:
        provider.complete = asking  # type: ignore[method-assign]
        return stopped

    provider.complete = resume_once  # type: ignore[method-assign]


MUTANTS: list[Mutant] = [
    Mutant(
        "llmz-zero-budget-shows-preview",
        rules=("llmz.inspection.zero-hides", "llmz.think-signal.display-budgets-apply"),
        patch=_patch("reference.llmz.inspector.preview", _zero_shows_everything),
        description="a display budget of zero shows the whole preview",
    ),
    Mutant(
        "llmz-preserve-ignored",
        rules=("llmz.inspection.preserve-modes",),
        patch=_patch("reference.llmz.preview._cut", _always_top),
        description="preserve is ignored: an over-long preview always keeps its start",
    ),
    Mutant(
        "llmz-truncate-policy-ignored",
        rules=("llmz.inspection.truncate-overrides-budget",),
        patch=_patch("reference.llmz.feedback.shown", _run_budget_only),
        description="a truncate() policy on a result is ignored; the run's result budget applies",
    ),
    Mutant(
        "llmz-nested-strings-raw",
        rules=("llmz.inspection.nested-strings-json", "llmz.think-signal.native-inspector"),
        patch=_patch("reference.llmz.preview.format_value", _raw_nested_strings),
        description="strings nested in objects are previewed raw, their line breaks unescaped",
    ),
    Mutant(
        "llmz-signal-report-merged",
        rules=("llmz.error-recovery.think-signal-report",),
        patch=_patch("reference.llmz.feedback.forced_inspection", _merged_signal_section),
        description="a ThinkSignal report runs the reason and the context together, without the site",
    ),
    Mutant(
        "llmz-restore-resumes-program",
        rules=("llmz.persistence.no-paused-stack",),
        patch=_patch("reference.llmz.play.Player.save_and_restore", _restore_that_resumes),
        description="a restored session resumes the program that was running when it was saved",
    ),
    Mutant(
        "llmz-worker-prompt-allows-chatter",
        rules=("llmz.memory.worker-prompt-no-chatter",),
        patch=_patch(
            "reference.llmz.prompt._WORKER", "You are running as a worker: use run_javascript to do the task."
        ),
        description="the worker prompt no longer tells the model to write nothing beside its program",
    ),
    Mutant(
        "llmz-forced-inspection-without-reasons",
        rules=("llmz.think-signal.forced-inspection-report",),
        patch=_patch("reference.llmz.feedback.forced_inspection", _forced_inspection_without_reasons),
        description="the forced inspection shows each signalling tool's result but not its reason",
    ),
    Mutant(
        "llmz-standalone-text-quoted",
        rules=("llmz.inspection.standalone-text-verbatim",),
        patch=_patch("reference.llmz.preview.format_value", _strings_quoted),
        description="a standalone string is previewed JSON-quoted instead of as itself",
    ),
    Mutant(
        "llmz-display-budget-cuts-data",
        rules=("llmz.inspection.truncate-keeps-data",),
        patch=_patch("reference.llmz.host.IterationHost._finish_call", _display_cuts_data),
        description="a truncate() display budget also cuts the value the program receives",
    ),
    Mutant(
        "llmz-signal-resumes-program",
        rules=("llmz.error-recovery.think-signal-continue",),
        patch=_fresh_resume_patch,
        description="after a forced inspection the signalled program runs again before the new one",
    ),
    Mutant(
        "llmz-preview-splits-characters",
        rules=("llmz.inspection.unicode-safe",),
        patch=_patch("reference.llmz.preview._cut", _cut_splitting_characters),
        description="a cut preview can end in half of a surrogate pair",
    ),
    Mutant(
        "llmz-cycles-previewed-opaquely",
        rules=("llmz.inspection.awkward-values-safe",),
        patch=_patch("reference.llmz.preview.format_value", _cycles_as_object_tag),
        description="a cyclic value is previewed as [object Object], without its content",
    ),
    Mutant(
        "llmz-on-inspect-unbounded",
        rules=("llmz.inspection.on-inspect-bounded",),
        patch=_unbounded_everywhere,
        description="text returned by onInspect is shown whole, past the preview budget",
    ),
    Mutant(
        "llmz-events-become-system",
        rules=("llmz.sessions.events-not-system",),
        patch=_patch("reference.llmz.session.to_native", _events_as_system),
        description="an appended event reaches the model as a system message",
    ),
    Mutant(
        "llmz-feedback-without-footers",
        rules=("llmz.error-recovery.footers",),
        patch=_patch("reference.llmz.feedback._footers", lambda footer: ""),
        description="recovery feedback carries no memory or iteration-budget footer",
    ),
    Mutant(
        "llmz-forced-previews-uncut",
        rules=("llmz.think-signal.display-budgets-apply",),
        patch=_patch("reference.llmz.feedback.forced_inspection", _forced_previews_uncut),
        description="forced inspection shows signalling results whole, whatever their display budget",
    ),
    Mutant(
        "llmz-earlier-summaries-kept",
        rules=("llmz.compaction.summary-event.replaces-earlier",),
        patch=_patch("reference.llmz.session.Session.replace_earlier_history", _earlier_summaries_kept),
        description="a new compaction summary is added beside the earlier ones instead of replacing them",
    ),
    Mutant(
        "llmz-timeout-recoverable",
        rules=("llmz.errors.execution-aborted", "llmz.configuration.timeout-bounds-javascript"),
        patch=_patch("reference.llmz.program._timeout", _timeout_recoverable),
        description="a program cut off by the timeout is a recoverable failure and the run carries on",
    ),
]
