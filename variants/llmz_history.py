"""Permitted variants for the llmz history rules (requestMessages, prune, explicit-summary signals,
non-JSON input, context tokens): the readings the documents leave open there, as llmz 1.0.1 makes them
where it differs from the reference. ``variants.llmz.PERMITTED`` includes them.
"""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

from reference.llmz import memory
from reference.llmz.preview import preview
from variants import Permitted, Record

OVERVIEW_PREVIEW_TOKENS = 60
"""The budget llmz 1.0.1 gives each variable's preview in its memory overview."""


def _overview_with_previews(state: memory.Memory) -> str | None:
    """The memory overview with a short preview of each variable, an inventory's own small budget."""
    if not state.variables:
        return None
    listed = "\n".join(
        f"- {name}: {preview(memory.to_plain(value), OVERVIEW_PREVIEW_TOKENS)}"
        for name, value in sorted(state.variables.items())
    )
    return f"<memory_overview>\nNamed variables and their values, abbreviated:\n{listed}\n</memory_overview>"


def _overview_on_last_input(record: Record) -> Record:
    """llmz 1.0.1's placement: the overview joins the last input message when that is a user message."""
    changed = copy.deepcopy(record)
    for event in changed.get("events", []):
        if event.get("type") != "request_messages":
            continue
        messages = event.get("messages", [])
        if len(messages) >= 2 and str(messages[-1].get("content", "")).startswith("<memory_overview>"):
            previous = messages[-2]
            if previous.get("role") == "user" and isinstance(previous.get("content"), str):
                previous["content"] += "\n\n" + messages.pop()["content"]
    return changed


def _cancellation_as_compaction_failure(record: Record) -> Record:
    """A cancelled summarize or compact raises COMPACTION_FAILED rather than EXECUTION_ABORTED."""
    changed = copy.deepcopy(record)
    for event in changed.get("events", []):
        cancelled = event.get("type") == "error" and event.get("step") in ("summarize", "compact")
        if cancelled and event.get("code") == "EXECUTION_ABORTED":
            event.update(code="COMPACTION_FAILED", **{"class": "CompactionError"})
    return changed


def _non_json_as_invalid_message(record: Record) -> Record:
    """A payload that is not plain JSON is refused as INVALID_MESSAGE, events included."""
    changed = copy.deepcopy(record)
    for event in changed.get("events", []):
        refused = event.get("type") == "error" and event.get("step") == "append"
        # The reference's own refusal of a payload that is not JSON (its wording, matched in its record).
        not_json = "must be JSON data" in event.get("message", "")
        if refused and event.get("code") == "INVALID_EVENT" and not_json:
            event.update(code="INVALID_MESSAGE", **{"class": "InvalidMessageError"})
    return changed


def _llmz_categories(record: Record) -> Record:
    """llmz 1.0.1's context categories (framework, instructions, tools, protocol, iterations)."""
    changed = copy.deepcopy(record)
    for event in changed.get("events", []):
        if event.get("type") != "iteration" or not isinstance(event.get("tokens"), dict):
            continue
        context: Any = event["tokens"].get("context")
        if not isinstance(context, dict):
            continue
        total = context["total"]
        tools = context.get("tools", 0)
        instructions = context.get("instructions", 0)
        framework = instructions // 2
        event["tokens"]["context"] = {
            "total": total,
            "framework": framework,
            "instructions": instructions - framework,
            "tools": tools // 2,
            "protocol": tools - tools // 2,
            "iterations": total - instructions - tools,
        }
    return changed


PERMITTED: list[Permitted] = [
    Permitted(
        name="llmz-overview-small-previews",
        system="llmz",
        exercises=("llmz.inspection.inventories-own-budgets#open_question",),
        description="the memory overview previews each variable within 60 tokens (as llmz 1.0.1 does)",
        policies=lambda p: replace(p, memory_overview=_overview_with_previews),
    ),
    Permitted(
        name="llmz-overview-on-last-input",
        system="llmz",
        exercises=("llmz.sessions.request-messages-overview#open_question",),
        description="requestMessages() adds the overview to the last input message (as llmz 1.0.1 does)",
        transform=_overview_on_last_input,
    ),
    Permitted(
        name="llmz-prune-keeps-turn-inputs",
        system="llmz",
        exercises=("llmz.compaction.prune#open_question",),
        description="prune keeps the user inputs of the turns whose iterations it deletes",
        policies=lambda p: replace(p, prune_keeps_inputs=True),
    ),
    Permitted(
        name="llmz-cancelled-summary-compaction-failed",
        system="llmz",
        exercises=("llmz.compaction.signal-cancels#open_question",),
        description="a cancelled summarize or compact fails with COMPACTION_FAILED",
        transform=_cancellation_as_compaction_failure,
    ),
    Permitted(
        name="llmz-non-json-invalid-message",
        system="llmz",
        exercises=("llmz.persistence.plain-json-only#open_question",),
        description="a payload that is not plain JSON is refused as INVALID_MESSAGE, events included",
        transform=_non_json_as_invalid_message,
    ),
    Permitted(
        name="llmz-context-categories-llmz-names",
        system="llmz",
        exercises=("llmz.budget.context-tokens.categories-sum#open_question",),
        description="tokens.context reports llmz 1.0.1's five categories (they still add up to the total)",
        transform=_llmz_categories,
    ),
]
