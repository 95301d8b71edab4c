"""The akan in-page chat as a library: a ``ChatSession`` on a ``Page``, driven the way a user drives it.

Build the page (its tools as Python callables, its screen, store keys, a form, ``akanjs/ui`` components,
guides and zones), hand it to a ``ChatSession`` with any model provider (``reference.providers``: a
script, the OpenAI-compatible HTTP client, or a Python function), then attach files, send messages and
slash commands, answer question cards, press Stop, save and reload. Each action returns a ``TurnResult``;
``state()`` is the chat as the user sees it; every event also goes to the session's recorder and
observers. The chat's decisions (thresholds, ceilings, wording, the command table, ...) are an
``AkanPolicies`` object handed to the session; ``DEFAULT_POLICIES`` is the documented behaviour.

    from reference.akan import ChatSession, Page, PageTool
    from reference.providers import ModelResponse, ScriptedProvider, ToolCall

    page = Page(tools=[PageTool("ping", lambda args: {"pong": True})])
    model = ScriptedProvider([ModelResponse(tool_calls=[ToolCall(name="ping")]), ModelResponse(text="Done.")])
    print(ChatSession(page, model).send("ping the page").reply)
"""

from reference.akan.ceilings import Admission
from reference.akan.model import (
    UNSET,
    Accepts,
    Adaptor,
    Caller,
    Compaction,
    ErrorKey,
    File,
    Form,
    FormControl,
    FormField,
    Guide,
    LlmSettings,
    LocalState,
    Message,
    Page,
    PageTool,
    Prompt,
    PromptMessage,
    Reader,
    ReaderResult,
    RelationOption,
    Relay,
    StateKey,
    ToolArg,
    ToolBody,
    UiComponent,
    Voice,
)
from reference.akan.page import read_screen
from reference.akan.policies import DEFAULT_POLICIES, AkanPolicies
from reference.akan.results import ChatState, Event, TurnResult
from reference.akan.session import ChatSession, Observer

__all__ = [
    "DEFAULT_POLICIES",
    "UNSET",
    "Accepts",
    "Adaptor",
    "Admission",
    "AkanPolicies",
    "Caller",
    "ChatSession",
    "ChatState",
    "Compaction",
    "ErrorKey",
    "Event",
    "File",
    "Form",
    "FormControl",
    "FormField",
    "Guide",
    "LlmSettings",
    "LocalState",
    "Message",
    "Observer",
    "Page",
    "PageTool",
    "Prompt",
    "PromptMessage",
    "Reader",
    "ReaderResult",
    "RelationOption",
    "Relay",
    "StateKey",
    "ToolArg",
    "ToolBody",
    "TurnResult",
    "UiComponent",
    "Voice",
    "read_screen",
]
