"""Mutants of the chat's own surface rules: store classes, LLM settings, the transcript's costs, speech, the
panel and the composer."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from reference.akan import llm
from reference.akan.declarations import Declarations
from reference.akan.model import Adaptor, Message, Store
from reference.akan.rows import Estimate, TranscriptView
from variants import Mutant
from variants.mutants.akan.common import mutant


class _StoreMethodsPublished(Declarations):
    """Every method of every store class is offered as a tool of the same name."""

    def store_tools(self, stores: Sequence[Store]) -> list[dict[str, Any]]:
        return [
            {"name": method, "description": f"{store.name}.{method}",
             "parameters": {"type": "object", "properties": {}, "required": []}}
            for store in stores for method in store.methods
        ]


def _key_from_environment(adaptor: Adaptor) -> Adaptor:
    """Falls back to any ``*_API_KEY`` environment variable when setLlm gave no key."""
    resolved = llm.role_option(adaptor)
    found = any(name.endswith("API_KEY") and value for name, value in adaptor.environment.items())
    return resolved if resolved.api_key else replace(resolved, api_key=found)


def _object_form_only(adaptor: Adaptor) -> Adaptor:
    """Ignores a function given to setLlm: only the object form configures the role."""
    return adaptor


class _HeaderCountsLastExchange(TranscriptView):
    def tokens(self, transcript: Sequence[Message], estimate: Estimate) -> int:
        return estimate(list(transcript[-2:]))


class _RowShowsConversationTokens(TranscriptView):
    """Every row shows the running total instead of its own cost."""

    def tool_rows(self, transcript: Sequence[Message], estimate: Estimate) -> list[dict[str, Any]]:
        total = estimate(list(transcript))
        return [{**row, "tokens": total} for row in super().tool_rows(transcript, estimate)]


class _RowOpensPreview(TranscriptView):
    def opened(self, content: str) -> str:
        return content[:200] + ("..." if len(content) > 200 else "")


MUTANTS: list[Mutant] = [
    mutant("akan-store-methods-published", "akan.surface.no-derivation-from-store-class",
           "a store class's methods are offered as tools without any declaration",
           declarations=_StoreMethodsPublished()),
    mutant("akan-llm-key-from-environment", "akan.llm.configured-in-option-ts-not-env",
           "an API key in the server's environment is used when setLlm gave none",
           role_option=_key_from_environment),
    mutant("akan-set-llm-object-form-only", "akan.llm.set-llm-forms",
           "setLlm given a function configures nothing", role_option=_object_form_only),
    mutant("akan-header-counts-last-exchange", "akan.transcript.header-shows-conversation-tokens",
           "the header counts only the latest exchange", transcript_view=_HeaderCountsLastExchange()),
    mutant("akan-row-shows-conversation-tokens", "akan.transcript.tool-row-shows-own-tokens",
           "each tool row shows the conversation's total", transcript_view=_RowShowsConversationTokens()),
    mutant("akan-row-opens-preview", "akan.transcript.tool-row-opens-result",
           "an opened tool row shows a 200-character preview", transcript_view=_RowOpensPreview()),
]
