"""Model providers for the reference runtimes: every model is a provider object, none needs a network.

Any object with ``calls`` and ``complete(request, *, purpose) -> ModelResponse`` is a ``ModelProvider``;
every runtime accepts any of them.

``OpenAICompatibleProvider`` is imported on first use (it brings in ``httpx``, which no scripted run needs).
"""

from typing import TYPE_CHECKING, Any

from reference.providers.function import FunctionProvider
from reference.providers.model import ModelResponse, ProviderError, ToolCall, Usage
from reference.providers.protocol import ModelProvider
from reference.providers.scripted import ProviderFailure, ScriptedProvider, ScriptExhausted

if TYPE_CHECKING:
    from reference.providers.openai_compat import OpenAICompatibleProvider


def __getattr__(name: str) -> Any:
    if name == "OpenAICompatibleProvider":
        from reference.providers.openai_compat import OpenAICompatibleProvider

        return OpenAICompatibleProvider
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "FunctionProvider",
    "ModelProvider",
    "ModelResponse",
    "OpenAICompatibleProvider",
    "ProviderError",
    "ProviderFailure",
    "ScriptExhausted",
    "ScriptedProvider",
    "ToolCall",
    "Usage",
]
