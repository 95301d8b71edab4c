"""Mutants of what the model is shown and of what a stopped program leaves behind.

Previews: a zero budget hides them, ``preserve`` picks the surviving end, a ``truncate()`` policy replaces
the run's budget and still leaves the program the whole value, standalone text is shown as itself and
nested strings JSON-quoted, cyclic values are previewed with their content, cuts never split a character,
onInspect text is bounded. Reports: a ThinkSignal report keeps reason, site and context apart, a forced
inspection names each reason and obeys display budgets, recovery feedback carries its footers. Inputs:
the worker prompt rules out chatter, events never become system messages. And a stopped program is never
resumed, neither after a restore nor after a signal; a timeout stops the run; a new summary replaces the
earlier ones. Each mutant replaces the one decision (or text) that makes its choice.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from reference.llmz.api import Truncated
from reference.llmz.errors import LlmzError
from reference.llmz.policies import Policies
from reference.llmz.preview import UNDEFINED, Cut, KeptChars, Preserve, format_value
from reference.llmz.reports import Display, SignalReport
from variants import Mutant

Formatter = Callable[[Any], str]


def _zero_shows_everything(p: Policies) -> Policies:
    """A zero budget is read as "no limit" (the default result budget applies)."""
    base = p.preview_budget

    def preview_budget(display: Display, budget: int) -> tuple[int, Preserve]:
        tokens, preserve = base(display, budget)
        return (2000 if tokens <= 0 else tokens), preserve

    return replace(p, preview_budget=preview_budget)


def _always_top(p: Policies) -> Policies:
    """``preserve`` is ignored: the start of the text always survives."""
    base: Cut = p.cut_preview
    return replace(
        p, cut_preview=lambda text, kept, budget, preserve, count: base(text, kept, budget, "top", count)
    )


def _splitting_characters(p: Policies) -> Policies:
    """Cutting text splits a character beyond the BMP, leaving half of its surrogate pair."""
    base: Cut = p.cut_preview

    def cut(text: str, kept: KeptChars, budget: int, preserve: Preserve, count: Callable[[str], int]) -> str:
        shown = base(text, kept, budget, preserve, count)
        return shown + "\ud83d" if any(ord(char) > 0xFFFF for char in text) else shown

    return replace(p, cut_preview=cut)


def _formatting(change: Callable[[Formatter, Any], str]) -> Callable[[Policies], Policies]:
    """A mutant of how values are written: ``change(base, value)``."""

    def mutate(p: Policies) -> Policies:
        base = p.format_value
        return replace(p, format_value=lambda value: change(base, value))

    return mutate


def _raw_nested_strings(base: Formatter, value: Any) -> str:
    """Nested strings are written raw (their line breaks become real ones), not JSON-quoted."""
    if isinstance(value, str) or value is UNDEFINED:
        return base(value)
    return json.dumps(value, indent=2, ensure_ascii=False).replace("\\n", "\n")


def _strings_quoted(base: Formatter, value: Any) -> str:
    """A standalone string is previewed JSON-quoted, its line breaks and quotes escaped."""
    return json.dumps(value, ensure_ascii=False) if isinstance(value, str) else base(value)


def _cycles_as_object_tag(base: Formatter, value: Any) -> str:
    """A value with a cycle is previewed as an opaque tag instead of its content."""
    text = base(value)
    return "[object Object]" if "[Circular]" in text else text


def _display_cuts_data(p: Policies) -> Policies:
    """A truncate() display budget cuts the value the program receives, not only its preview."""
    base = p.unwrap_truncated

    def unwrap(result: Truncated) -> tuple[Any, Display]:
        value, display = base(result)
        if display is not None and isinstance(value, str):
            value = p.previewer(value, display[0], display[1])
        return value, display

    return replace(p, unwrap_truncated=unwrap)


def _replaying(when: Callable[[bool], bool], resumed: Callable[[str], str]) -> Callable[[Policies], Policies]:
    """What ``resumed`` keeps of the turn's previous program runs again before the new one, at the
    iterations ``when`` picks (given whether the iteration is the first of its execute call)."""

    def mutate(p: Policies) -> Policies:
        def code_to_run(new_code: str, previous: str | None, first_of_execute: bool) -> str:
            if previous is None or not when(first_of_execute):
                return new_code
            return f"{resumed(previous)}\n{new_code}"

        return replace(p, code_to_run=code_to_run)

    return mutate


def _whole(program: str) -> str:
    return program


def _after_first_statement(program: str) -> str:
    """Where a program stopped by a ThinkSignal on its first statement would resume."""
    return "\n".join(program.splitlines()[1:])


def _merged_signal_section(
    signals: Sequence[SignalReport], show: Callable[[SignalReport], str], reuse_instruction: str
) -> str:
    """The signal report runs reason and context together in one section, without the site."""
    parts = [f"{signal.tool}: {signal.reason} {show(signal)}" for signal in signals]
    return "<forced_inspection>\n" + "\n".join(parts) + "\n</forced_inspection>"


def _without_reasons(
    signals: Sequence[SignalReport], show: Callable[[SignalReport], str], reuse_instruction: str
) -> str:
    """The forced inspection lists each signalling tool and its result but leaves the reasons out."""
    parts = [f"{signal.tool} (line {signal.line}):\n{show(signal)}" for signal in signals]
    return "<forced_inspection>\n" + "\n".join(parts) + "\n</forced_inspection>"


def _previews_uncut(
    signals: Sequence[SignalReport], show: Callable[[SignalReport], str], reuse_instruction: str
) -> str:
    """The forced inspection shows each signalling tool's result whole, ignoring display budgets."""
    parts = [
        f"{signal.tool} (line {signal.line}): {signal.reason}\n{format_value(signal.result)}"
        for signal in signals
    ]
    return "<forced_inspection>\n" + "\n".join(parts) + "\n</forced_inspection>"


def _custom_text_whole(text: Any, budget: int, preserve: Preserve, preview: Callable[..., str]) -> str:
    """Text returned by onInspect is shown whole, whatever the budget."""
    return text if isinstance(text, str) else preview(text, budget, preserve)


def _timeout_recoverable(timeout_ms: int | None) -> LlmzError:
    """A program cut off by the timeout fails its iteration recoverably, so the run asks the model again."""
    return LlmzError("EXECUTION_FAILED", "the program was interrupted by the timeout")


def _earlier_summaries_kept(p: Policies) -> Policies:
    """A new compaction adds its summary but keeps the earlier summaries too, instead of replacing them."""
    base = p.compacted_earlier

    def compacted(
        earlier: list[dict[str, Any]], retained: int, summary: dict[str, Any]
    ) -> list[dict[str, Any]]:
        older = [m for m in earlier if (m.get("source") or {}).get("role") == "summary"]
        kept = base(earlier, retained, summary)
        return [*[m for m in older if m not in kept], *kept]

    return replace(p, compacted_earlier=compacted)


MUTANTS: list[Mutant] = [
    Mutant(
        "llmz-zero-budget-shows-preview",
        rules=("llmz.inspection.zero-hides", "llmz.think-signal.display-budgets-apply"),
        description="a display budget of zero shows the whole preview",
        policies=_zero_shows_everything,
    ),
    Mutant(
        "llmz-preserve-ignored",
        rules=("llmz.inspection.preserve-modes",),
        description="preserve is ignored: an over-long preview always keeps its start",
        policies=_always_top,
    ),
    Mutant(
        "llmz-truncate-policy-ignored",
        rules=("llmz.inspection.truncate-overrides-budget",),
        description="a truncate() policy on a result is ignored; the run's result budget applies",
        policies=lambda p: replace(p, preview_budget=lambda display, budget: (budget, "top")),
    ),
    Mutant(
        "llmz-nested-strings-raw",
        rules=("llmz.inspection.nested-strings-json", "llmz.think-signal.native-inspector"),
        description="strings nested in objects are previewed raw, their line breaks unescaped",
        policies=_formatting(_raw_nested_strings),
    ),
    Mutant(
        "llmz-signal-report-merged",
        rules=("llmz.error-recovery.think-signal-report",),
        description="a ThinkSignal report runs the reason and the context together, without the site",
        policies=lambda p: replace(p, forced_inspection=_merged_signal_section),
    ),
    Mutant(
        "llmz-restore-resumes-program",
        rules=("llmz.persistence.no-paused-stack",),
        description="the next execute of an unfinished turn (after a restore) resumes the stopped program",
        policies=_replaying(lambda first_of_execute: first_of_execute, _whole),
    ),
    Mutant(
        "llmz-worker-prompt-allows-chatter",
        rules=("llmz.memory.worker-prompt-no-chatter",),
        description="the worker prompt no longer tells the model to write nothing beside its program",
        policies=lambda p: replace(
            p, worker_guidance="You are running as a worker: use run_javascript to do the task."
        ),
    ),
    Mutant(
        "llmz-forced-inspection-without-reasons",
        rules=("llmz.think-signal.forced-inspection-report",),
        description="the forced inspection shows each signalling tool's result but not its reason",
        policies=lambda p: replace(p, forced_inspection=_without_reasons),
    ),
    Mutant(
        "llmz-standalone-text-quoted",
        rules=("llmz.inspection.standalone-text-verbatim",),
        description="a standalone string is previewed JSON-quoted instead of as itself",
        policies=_formatting(_strings_quoted),
    ),
    Mutant(
        "llmz-display-budget-cuts-data",
        rules=("llmz.inspection.truncate-keeps-data",),
        description="a truncate() display budget also cuts the value the program receives",
        policies=_display_cuts_data,
    ),
    Mutant(
        "llmz-signal-resumes-program",
        rules=("llmz.error-recovery.think-signal-continue",),
        description="after a forced inspection the signalled program resumes (after the statement that "
        "signalled) before the new one runs",
        policies=_replaying(lambda first_of_execute: not first_of_execute, _after_first_statement),
    ),
    Mutant(
        "llmz-preview-splits-characters",
        rules=("llmz.inspection.unicode-safe",),
        description="a cut preview can end in half of a surrogate pair",
        policies=_splitting_characters,
    ),
    Mutant(
        "llmz-cycles-previewed-opaquely",
        rules=("llmz.inspection.awkward-values-safe",),
        description="a cyclic value is previewed as [object Object], without its content",
        policies=_formatting(_cycles_as_object_tag),
    ),
    Mutant(
        "llmz-on-inspect-unbounded",
        rules=("llmz.inspection.on-inspect-bounded",),
        description="text returned by onInspect is shown whole, past the preview budget",
        policies=lambda p: replace(p, custom_preview=_custom_text_whole),
    ),
    Mutant(
        "llmz-events-become-system",
        rules=("llmz.sessions.events-not-system",),
        description="an appended event reaches the model as a system message",
        policies=lambda p: replace(p, event_role="system"),
    ),
    Mutant(
        "llmz-feedback-without-footers",
        rules=("llmz.error-recovery.footers",),
        description="recovery feedback carries no memory or iteration-budget footer",
        policies=lambda p: replace(p, footers=lambda footer: ""),
    ),
    Mutant(
        "llmz-forced-previews-uncut",
        rules=("llmz.think-signal.display-budgets-apply",),
        description="forced inspection shows signalling results whole, whatever their display budget",
        policies=lambda p: replace(p, forced_inspection=_previews_uncut),
    ),
    Mutant(
        "llmz-earlier-summaries-kept",
        rules=("llmz.compaction.summary-event.replaces-earlier",),
        description="a new compaction summary is added beside the earlier ones instead of replacing them",
        policies=_earlier_summaries_kept,
    ),
    Mutant(
        "llmz-timeout-recoverable",
        rules=("llmz.errors.execution-aborted", "llmz.configuration.timeout-bounds-javascript"),
        description="a program cut off by the timeout is a recoverable failure and the run carries on",
        policies=lambda p: replace(p, timeout_error=_timeout_recoverable),
    ),
    Mutant(
        "llmz-transcribes-with-execution-model",
        rules=("llmz.configuration.transcription-model",),
        description="options.transcriptionModel is ignored: audio is transcribed by the execution model",
        policies=lambda p: replace(
            p, transcriber=lambda option, models: None if all(m.audio for m in models) else models[0].id
        ),
    ),
    Mutant(
        "llmz-never-transcribes",
        rules=("llmz.configuration.transcription-model",),
        description="audio is sent as it is even to a model that cannot take audio natively",
        policies=lambda p: replace(p, transcriber=lambda option, models: None),
    ),
]
