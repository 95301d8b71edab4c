"""The LLM adaptor's side of a turn and how the browser turns its errors into text.

An adaptor has three ways to answer: a reply from the model, ``null`` (nothing is configured) or a thrown
``Err`` (a refusal it can explain). The two failures must stay apart: ``null`` is shown as
``llmUnavailable`` while an ``Err`` is shown as its own text (akan.llm.adaptor-null-means-not-configured,
akan.llm.adaptor-throw-shows-provider-reason). The relay has no language, so an error travels as its
dictionary key plus the values it interpolates (akan.llm.err-travels-as-key-and-values) and
``fetchRunner`` resolves it in the browser before the transcript sees it
(akan.llm.fetch-runner-resolves-error-key).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from conformance.scenario.akan import Provider, Scalar

#: akan.llm.missing-api-key-boots-and-answers-unavailable, akan.llm.adaptor-null-means-not-configured
UNAVAILABLE_KEY = "llmUnavailable"
#: The chat's own dictionary, under the app's (``setup.dictionary``).
BASE_DICTIONARY = {UNAVAILABLE_KEY: "No language model is configured for this assistant."}


@dataclass(frozen=True)
class ErrorKey:
    """An error as it crosses the relay: a dictionary key and its interpolation values, unresolved."""

    key: str
    values: dict[str, Scalar] = field(default_factory=dict)

    def wire(self) -> dict[str, object]:
        return {"key": self.key, "values": dict(self.values)}


def adaptor_error(provider: Provider, turn: int) -> ErrorKey | None:
    """The error the adaptor answers turn ``turn`` with, or None when it asks the model.

    No apiKey means the default adaptor has nothing to call and answers null; null is reported as
    ``llmUnavailable``; a thrown ``Err`` keeps its own key.
    """
    if not provider.api_key:
        return ErrorKey(UNAVAILABLE_KEY)
    answer = next((a for a in provider.answers if a.turn == turn), None)
    if answer is None:
        return None
    if answer.returns == "null":
        return ErrorKey(UNAVAILABLE_KEY)
    assert answer.key is not None  # the vocabulary requires it for `err`
    return ErrorKey(answer.key, dict(answer.values))


def resolve(error: ErrorKey, dictionary: dict[str, str]) -> str:
    """fetchRunner's lookup: the key's text with ``{name}`` replaced by its value.

    A key with no entry is shown as the key itself (the documents leave that case open).
    """
    text = {**BASE_DICTIONARY, **dictionary}.get(error.key, error.key)
    return re.sub(
        r"\{(\w+)\}", lambda m: str(error.values.get(m.group(1), m.group(0))), text
    )
