"""Model providers for the reference runtimes: every model is a provider object, none needs a network.

Any object with ``calls`` and ``complete(request, *, purpose) -> ModelResponse`` is a ``ModelProvider``;
every runtime accepts any of them.
"""

from reference.providers.function import FunctionProvider
from reference.providers.model import ModelResponse, ProviderError, ToolCall, Usage
from reference.providers.openai_compat import OpenAICompatibleProvider
from reference.providers.protocol import ModelProvider
from reference.providers.scripted import ProviderFailure, ScriptedProvider, ScriptExhausted

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
