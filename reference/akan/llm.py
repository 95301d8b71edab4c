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
from collections.abc import Mapping
from dataclasses import replace

from reference.akan.model import DEFAULT_ADAPTOR, Adaptor, ErrorKey, LlmSettings

#: akan.llm.missing-api-key-boots-and-answers-unavailable, akan.llm.adaptor-null-means-not-configured
UNAVAILABLE_KEY = "llmUnavailable"
#: The chat's own dictionary, under the app's.
BASE_DICTIONARY = {UNAVAILABLE_KEY: "No language model is configured for this assistant."}
#: akan.llm.default-provider-deepseek: where the chat talks when no adaptor is applied.
DEFAULT_PROVIDER = {"name": DEFAULT_ADAPTOR, "model": "deepseek-v4-flash", "host": "https://api.deepseek.com"}


def role_option(adaptor: Adaptor) -> Adaptor:
    """What ``option.setLlm`` leaves the role holding, in either of its forms.

    akan.llm.set-llm-forms: an object is taken as given; a function is called with the app's options
    (its ``env`` object), and what it returns is the key and the settings. akan.llm.configured-in-option-ts-
    not-env: nothing else is read; the server's environment reaches the role only through that function.
    """
    if adaptor.option_function is None:
        return adaptor
    option = adaptor.option_function({"env": dict(adaptor.environment)})
    settings = LlmSettings(option.model, option.host) if option.model or option.host else adaptor.settings
    return replace(adaptor, api_key=bool(option.api_key), settings=settings)


def adaptor_error(adaptor: Adaptor, turn: int) -> ErrorKey | None:
    """The error the adaptor answers turn ``turn`` with, or None when it asks the model.

    No apiKey means the default adaptor has nothing to call and answers null; null is reported as
    ``llmUnavailable``; a thrown ``Err`` keeps its own key (akan.llm.adaptor-throw-shows-provider-reason,
    akan.llm.err-travels-as-key-and-values).
    """
    if not adaptor.api_key:
        return ErrorKey(UNAVAILABLE_KEY)
    if turn not in adaptor.fails:
        return None
    thrown = adaptor.fails[turn]
    return ErrorKey(UNAVAILABLE_KEY) if thrown is None else ErrorKey(thrown.key, dict(thrown.values))


def resolve(error: ErrorKey, dictionary: Mapping[str, str]) -> str:
    """fetchRunner's lookup: the key's text with ``{name}`` replaced by its value.

    akan.llm.fetch-runner-resolves-error-key. A key with no entry is shown as the key itself (the
    documents leave that case open).
    """
    text = {**BASE_DICTIONARY, **dictionary}.get(error.key, error.key)
    return re.sub(
        r"\{(\w+)\}", lambda m: str(error.values.get(m.group(1), m.group(0))), text
    )


def provider_settings(adaptor: Adaptor) -> dict[str, str]:
    """Where the turn goes: the adaptor holding the role, with ``setLlm``'s settings.

    akan.llm.apply-adaptor-swaps-provider, akan.llm.settings-belong-to-role: the settings are the role's,
    so they reach a swapped-in adaptor just as they would the default one.
    """
    is_default = adaptor.name == DEFAULT_PROVIDER["name"]
    chosen = dict(DEFAULT_PROVIDER) if is_default else {"name": adaptor.name}
    settings = adaptor.settings
    given = {} if settings is None else {
        key: value for key, value in (("model", settings.model), ("host", settings.host)) if value is not None
    }
    return {**chosen, **given}
