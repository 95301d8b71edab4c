"""Deliberate history deletion and request previews: ``session.prune``, ``session.requestMessages``, and
the small pieces around explicit summarization (its abort signal, a host summarize callback) and the
per-iteration ``tokens.context`` report.

Theory of operation. The session's history before the current turn is its *compactable* part. ``prune``
keeps the listed iterations' messages from it and deletes the rest with no summary call, dropping the
deleted iterations' results from memory as compaction does (llmz.compaction.prune).
``request_messages`` builds the same view without touching the session: the processed history, pruned to
``retained`` when that is given, plus an ephemeral memory overview unless ``memory`` is false
(llmz.sessions.request-messages-overview, llmz.sessions.request-messages-without-memory,
llmz.compaction.request-messages-preview). Where the overview goes and what it says are the reference's
reading (the documents fix neither): one user message listing the named variables, at the end.

Every decision a variant may make differently is a field of ``reference.llmz.policies`` that points here;
this module reads none of them itself except through the ``Policies`` object it is handed.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from reference.llmz.conversation import Message, visible
from reference.llmz.errors import LlmzError

if TYPE_CHECKING:
    from reference.llmz.memory import Memory
    from reference.llmz.policies import Policies
    from reference.llmz.session import Session

SummaryCallback = Callable[[list[dict[str, Any]], int], str]
"""``compaction.summarize({ messages, maxTokens })`` as a Python host writes it: the text, synchronously."""


@dataclass
class AbortSignal:
    """An ``AbortSignal`` as explicit ``summarize``/``compact`` take it (llmz.compaction.signal-cancels)."""

    aborted: bool = False
    reason: str = "aborted"


def cancelled(signal: AbortSignal | None, honour: bool) -> LlmzError | None:
    """llmz.compaction.signal-cancels: an aborted signal stops the operation before anything is committed.
    The documents name no code for a cancelled summary; the reference uses the catalogue's cancellation
    code."""
    if honour and signal is not None and signal.aborted:
        return LlmzError("EXECUTION_ABORTED", f"summarization was cancelled: {signal.reason}")
    return None


def memory_overview(memory: Memory) -> str | None:
    """The reference's overview: the named variables, by name. None when there is nothing to show."""
    names = sorted(memory.variables)
    if not names:
        return None
    listed = "\n".join(f"- {name}" for name in names)
    return f"<memory_overview>\nNamed variables available to the program:\n{listed}\n</memory_overview>"


def keep_listed(earlier_ids: Sequence[str], listed: Iterable[str]) -> set[str]:
    """llmz.compaction.prune: exactly the iterations the caller listed stay."""
    wanted = set(listed)
    return {iteration for iteration in earlier_ids if iteration in wanted}


def _iteration_ids(messages: Sequence[Message]) -> list[str]:
    seen: list[str] = []
    for message in messages:
        iteration = message.get("iteration")
        if isinstance(iteration, str) and iteration not in seen:
            seen.append(iteration)
    return seen


def pruned_history(session: Session, retained: Iterable[str]) -> tuple[list[Message], list[str]]:
    """The history a pruning to ``retained`` leaves, and the iterations it deletes. Only listed iterations
    of the compactable part stay (its turn inputs and any summary go too: the reference's reading of
    "removes the rest"); the current turn is never touched."""
    earlier, current = session.split()
    ids = _iteration_ids(earlier)
    kept = session.policies.prune_selection(ids, retained)
    inputs = session.policies.prune_keeps_inputs
    survivors = [m for m in earlier if m.get("iteration") in kept or (inputs and m.get("iteration") is None)]
    return [*survivors, *current], [i for i in ids if i not in kept]


def prune(session: Session, retained: Iterable[str]) -> None:
    """``session.prune(retainedIterationIds)``: delete, with no summary, what is not listed."""
    session.require_idle("prune")
    current = len(session.split()[1])
    history, deleted = pruned_history(session, list(retained))
    session.history = history
    if session.turn_start is not None and session.policies.prune_spares_current_turn:
        # An unfinished turn keeps its place after the kept history.
        session.turn_start = len(history) - current
    session.policies.drop_iterations(session.memory, deleted)


def request_messages(
    session: Session, *, memory: bool = True, retained: Iterable[str] | None = None
) -> list[Message]:
    """``session.requestMessages({ memory, retainedIterationIds })``: a detached copy; the session keeps
    its history (unless a variant makes the preview commit)."""
    policies: Policies = session.policies
    if retained is not None and policies.preview_applies_retained:
        history, deleted = pruned_history(session, list(retained))
        if not policies.preview_is_read_only:
            session.history = history
            policies.drop_iterations(session.memory, deleted)
    else:
        history = session.history
    messages = [copy.deepcopy(visible(m)) for m in history]
    if memory or policies.overview_ignores_memory_flag:
        overview = policies.memory_overview(session.memory)
        if overview is not None:
            messages = policies.place_overview(messages, overview)
    return messages


def overview_apart(messages: list[Message], overview: str) -> list[Message]:
    """The overview as one user message of its own after the history, so no message is ever changed, and
    assistant output carrying a provider signature least of all (llmz.sessions.signed-output-untouched)."""
    return [*messages, {"role": "user", "content": overview}]


def context_categories(instructions: int, tools: int, messages: int) -> dict[str, int]:
    """llmz.budget.context-tokens.categories-sum: the reference's categories and their exact total."""
    return {"instructions": instructions, "tools": tools, "messages": messages,
            "total": instructions + tools + messages}


def as_sent(sent: list[Any], fitted: list[Any], uncompacted: list[Any]) -> list[Any]:
    """llmz.budget.context-tokens.after-compaction: ``tokens.context`` measures the request actually sent,
    after compaction and after an ``onBeforeRequest`` replacement (not ``fitted`` nor ``uncompacted``)."""
    return sent


def as_given(payload: Any) -> Any:
    """llmz.persistence.plain-json-only: an event payload is checked as the host gave it; binary values are
    never encoded on the host's behalf, so the JSON check refuses them."""
    return payload


def summary_fits(text: str, allowance: int, count_text: Callable[[str], int]) -> LlmzError | None:
    """llmz.compaction.custom-summarize: a summary on request (a host callback's or the model's) must be
    non-empty text within the summary limit; otherwise nothing is committed."""
    if not isinstance(text, str) or not text.strip():
        return LlmzError("COMPACTION_FAILED", f"the summary must be non-empty text, got {text!r}")
    size = count_text(text)
    if size > allowance:
        return LlmzError("COMPACTION_FAILED", f"the summary has {size} tokens, over its limit of {allowance}")
    return None
