"""Mutants for requestMessages, prune, explicit-summary signals, summarize callbacks, non-JSON input and
per-iteration context tokens (issue 10, llmz history rules): one decision of
``reference.llmz.policies.Policies`` each. ``tests/test_llmz_mutants.py`` proves the scenarios pinning
each mutant's rules fail against it, naming those rules.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from reference.llmz import memory
from reference.llmz.policies import Policies
from variants import Mutant


def _controls_reset(state: Any) -> Any:
    """fromJSON restores the history but not the saved compaction controls: the defaults apply again."""
    if isinstance(state, dict) and isinstance(state.get("compaction"), dict):
        return {**state, "compaction": {}}
    return state


def _keep_newest(earlier_ids: Sequence[str], listed: Iterable[str]) -> set[str]:
    """prune keeps as many iterations as were listed, but the newest ones rather than the listed ones."""
    count = len(set(listed))
    return set(earlier_ids[len(earlier_ids) - count :]) if count else set()


def _bytes_as_lists(value: Any) -> Any:
    """Binary values are quietly turned into lists of numbers instead of being refused."""
    if isinstance(value, bytes | bytearray):
        return list(value)
    if isinstance(value, dict) and not any(item is value for item in value.values()):
        return {key: _bytes_as_lists(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_bytes_as_lists(item) for item in value]
    return value


def _character_guess(p: Policies) -> Policies:
    """Requests are measured by a guess of four characters a token instead of by the tokenizer."""
    return replace(p, measure=replace(p.measure, count_text=lambda text: (len(text) + 3) // 4))


def _overview_on_last(messages: list[dict[str, Any]], overview: str) -> list[dict[str, Any]]:
    """The overview is added to the last message's text, whatever that message is (signed output too)."""
    if messages and isinstance(messages[-1].get("content"), str):
        last = {**messages[-1], "content": messages[-1]["content"] + "\n\n" + overview}
        return [*messages[:-1], last]
    return [*messages, {"role": "user", "content": overview}]


def _total_without_tools(instructions: int, tools: int, messages: int) -> dict[str, int]:
    """The total leaves the tool declarations out while the categories still report them."""
    total = instructions + messages
    return {"instructions": instructions, "tools": tools, "messages": messages, "total": total}


def _overview_with_whole_values(state: memory.Memory) -> str | None:
    """The memory overview lists every variable with its whole value, as no small budget would."""
    if not state.variables:
        return None
    listed = "\n".join(
        f"- {name}: {json.dumps(memory.to_plain(value), default=str)}"
        for name, value in sorted(state.variables.items())
    )
    return f"<memory_overview>\n{listed}\n</memory_overview>"


MUTANTS: list[Mutant] = [
    Mutant(
        "llmz-inventory-shows-whole-values",
        ("llmz.inspection.inventories-own-budgets",),
        "The memory overview of requestMessages() shows each variable's whole value, a large one included.",
        policies=lambda p: replace(p, memory_overview=_overview_with_whole_values),
    ),
    Mutant(
        "llmz-request-messages-no-overview",
        ("llmz.sessions.request-messages-overview",),
        "requestMessages() returns the history without any memory overview.",
        policies=lambda p: replace(p, memory_overview=lambda _memory: None),
    ),
    Mutant(
        "llmz-overview-into-signed-output",
        ("llmz.sessions.signed-output-untouched",),
        "The memory overview is appended to the last message even when it is signed assistant output.",
        policies=lambda p: replace(p, place_overview=_overview_on_last),
    ),
    Mutant(
        "llmz-request-messages-memory-flag-ignored",
        ("llmz.sessions.request-messages-without-memory",),
        "requestMessages({ memory: false }) still adds the memory overview.",
        policies=lambda p: replace(p, overview_ignores_memory_flag=True),
    ),
    Mutant(
        "llmz-preview-ignores-retained-ids",
        ("llmz.compaction.request-messages-preview",),
        "requestMessages({ retainedIterationIds }) returns the whole history, as if no ids were given.",
        policies=lambda p: replace(p, preview_applies_retained=False),
    ),
    Mutant(
        "llmz-preview-prunes-for-real",
        ("llmz.compaction.request-messages-preview",),
        "requestMessages({ retainedIterationIds }) deletes the unlisted iterations from the session.",
        policies=lambda p: replace(p, preview_is_read_only=False),
    ),
    Mutant(
        "llmz-prune-moves-open-turn",
        rules=("llmz.compaction.prune",),
        description="pruning leaves an open turn's start where it was, so part of the turn can be pruned",
        policies=lambda p: replace(p, prune_spares_current_turn=False),
    ),
    Mutant(
        "llmz-compaction-controls-reset-on-restore",
        rules=("llmz.compaction.controls-persist", "llmz.persistence.json-round-trip"),
        description="fromJSON forgets the saved compaction controls; the restored session uses the defaults",
        policies=lambda p: replace(p, session_state=_controls_reset),
    ),
    Mutant(
        "llmz-callback-lost-on-restore",
        rules=("llmz.compaction.controls-persist",),
        description="a summarize callback passed to fromJSON is dropped; the model writes the summaries",
        policies=lambda p: replace(p, callback_after_restore=False),
    ),
    Mutant(
        "llmz-prune-keeps-newest",
        ("llmz.compaction.prune",),
        "prune keeps the newest iterations (as many as were listed) instead of the listed ones.",
        policies=lambda p: replace(p, prune_selection=_keep_newest),
    ),
    Mutant(
        "llmz-custom-summarizer-ignored",
        ("llmz.compaction.custom-summarize",),
        "A host compaction.summarize callback is ignored: the model is asked for the summary as usual.",
        policies=lambda p: replace(p, uses_custom_summarizer=False),
    ),
    Mutant(
        "llmz-summary-on-request-unchecked",
        ("llmz.compaction.custom-summarize",),
        "A summary made on request is committed whatever its length, over maxSummaryTokens included.",
        policies=lambda p: replace(p, checks_summary_on_request=False),
    ),
    Mutant(
        "llmz-summary-signal-ignored",
        ("llmz.compaction.signal-cancels",),
        "session.summarize and session.compact ignore their abort signal and finish the summary.",
        policies=lambda p: replace(p, honours_abort_signal=False),
    ),
    Mutant(
        "llmz-summary-signal-checked-up-front-only",
        ("llmz.compaction.signal-cancels",),
        "summarize and compact look at their signal only before starting; one firing mid-way is ignored.",
        policies=lambda p: replace(p, signal_checked_after_summary=False),
    ),
    Mutant(
        "llmz-context-tokens-total-misses-tools",
        ("llmz.budget.context-tokens.categories-sum",),
        "An iteration's context total leaves the tool declarations out while still reporting them.",
        policies=lambda p: replace(p, context_categories=_total_without_tools),
    ),
    Mutant(
        "llmz-binary-payload-encoded-implicitly",
        ("llmz.persistence.plain-json-only",),
        "Binary data in an event payload is encoded by the runtime (as a list of numbers) and accepted.",
        policies=lambda p: replace(p, payload_as_checked=_bytes_as_lists),
    ),
    Mutant(
        "llmz-budget-character-guess",
        ("llmz.budget.measure.local-tokenizer",),
        "The budget guesses four characters a token instead of tokenizing the request.",
        policies=_character_guess,
    ),
    Mutant(
        "llmz-context-tokens-before-hook",
        ("llmz.budget.context-tokens.after-compaction",),
        "tokens.context measures the request before onBeforeRequest replaced it.",
        policies=lambda p: replace(p, context_measured=lambda _sent, fitted, _history: fitted),
    ),
    Mutant(
        "llmz-context-tokens-before-compaction",
        ("llmz.budget.context-tokens.after-compaction",),
        "tokens.context measures the history as it was before compaction.",
        policies=lambda p: replace(p, context_measured=lambda _sent, _fitted, history: history),
    ),
]
