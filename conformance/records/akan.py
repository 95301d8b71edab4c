"""The Akan record vocabulary as models: one per event type, discriminated by ``type``, and the final state.

The prose is ``spec/protocol/records/akan.md``; the generated JSON Schema is
``spec/protocol/records/akan.schema.json``. Events whose fields depend on an outcome (``relay``,
``compaction``) or a purpose (``model_request``) are one model per case, under a second open union. A
message's fields are typed but never closed: keeping more than the documents ask (an attachment's MIME type
after persisting, say) is allowed, and built-in tool results are plain text whose wording is the
implementation's own.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from conformance.records.common import ModelResponse, Open, open_set, open_union, optional


class Attachment(Open):
    """A file sent with a user message; after persisting, possibly only its ``name``."""

    name: str = optional()
    kind: str = open_set("image", "text", "document", "file")
    mime: str = optional()
    size: int = optional()
    text: str = optional()
    data: str = optional()


class WireToolCall(Open):
    id: str = optional()
    name: str = optional()
    arguments: dict[str, Any] = optional()


class Message(Open):
    """One message of the conversation (posted, exported, persisted, restored or kept in the transcript).

    ``content`` is optional: a transcript read back from web storage keeps what storage held, and the
    ``invalid-input`` scenarios store an assistant message without content on purpose (the reference then
    restores and posts it as read; the documents do not say what a chat must do with one)."""

    role: str = open_set("user", "assistant", "tool", "local", "system")
    content: str | list[dict[str, Any]] = optional(
        "The message's text: one string, or a list of parts (the guideline fixes the text, not its layout)."
    )
    attachments: list[Attachment] = optional()
    summary: bool = optional()
    tool_calls: list[WireToolCall] = optional()
    error: str = optional()
    tool_call_id: str = optional()


class ToolDeclaration(Open):
    name: str = optional()
    description: str = optional()
    parameters: dict[str, Any] = optional()


class Context(Open):
    route: str = optional()
    scopes: list[str] = optional()
    keys: list[str] = optional()


class Provider(Open):
    name: str = optional()
    model: str = optional()
    host: str = optional()


class ProviderMessage(Open):
    """A message as the adaptor hands it to its provider; ``content`` is text or a list of typed parts."""

    role: str = open_set("system", "user", "assistant", "tool")
    content: str | list[dict[str, Any]] = optional()


class TurnRequest(Open):
    type: Literal["model_request"]
    call: int = optional()
    purpose: Literal["turn"]
    messages: list[Message] = optional()
    tools: list[ToolDeclaration] = optional()
    screen: str = optional()
    context: Context = optional()
    guides: list[str] = optional()
    provider: Provider = optional()
    provider_messages: list[ProviderMessage] = optional()


class SummaryRequest(Open):
    """Writing a compaction summary: a system instruction and one user message holding the digest."""

    type: Literal["model_request"]
    call: int = optional()
    purpose: Literal["summary"]
    messages: list[Message] = optional()


ModelRequest = Annotated[
    Any,
    open_union(
        "purpose",
        {"turn": TurnRequest, "summary": SummaryRequest},
        "a model request",
        within=("type", "model_request"),
    ),
]


class ToolCall(Open):
    type: Literal["tool_call"]
    id: str = optional()
    name: str = optional()
    arguments: dict[str, Any] = optional()


class ToolResult(Open):
    type: Literal["tool_result"]
    id: str = optional()
    name: str = optional()
    content: Any = optional(
        "What the tool returned, as the chat handed it on: raw text or the provider's JSON (either layout)."
    )


class TurnLimit(Open):
    type: Literal["turn_limit"]
    max_turns: int = optional()


class TurnFailed(Open):
    type: Literal["turn_failed"]
    status: int | None = None
    message: str = optional()
    key: str = optional()


class RelayAbsent(Open):
    type: Literal["relay"]
    outcome: Literal["absent"]
    turn: int = optional()
    accept: str = optional()
    path: str = open_set("sse", "json")


class RelayRefused(Open):
    type: Literal["relay"]
    outcome: Literal["refused"]
    turn: int = optional()
    accept: str = optional()
    path: str = open_set("sse", "json")
    refused_by: str = optional()


class TravellingError(Open):
    """The adaptor's error as it travels: a dictionary key and its values, unresolved."""

    key: str = optional()
    values: dict[str, Any] = optional()


class RelayError(Open):
    type: Literal["relay"]
    outcome: Literal["error"]
    turn: int = optional()
    accept: str = optional()
    path: str = open_set("sse", "json")
    error: TravellingError = optional()


class RelayFailed(Open):
    type: Literal["relay"]
    outcome: Literal["failed"]
    turn: int = optional()
    accept: str = optional()
    path: str = open_set("sse", "json")
    status: int = optional()


class RelayRelayed(Open):
    type: Literal["relay"]
    outcome: Literal["relayed"]
    turn: int = optional()
    accept: str = optional()
    path: str = open_set("sse", "json")
    tool_calls: list[str] = optional()
    deltas: list[str] = optional()


Relay = Annotated[
    Any,
    open_union(
        "outcome",
        {
            "absent": RelayAbsent,
            "refused": RelayRefused,
            "error": RelayError,
            "failed": RelayFailed,
            "relayed": RelayRelayed,
        },
        "a relay",
        within=("type", "relay"),
    ),
]


class Draft(Open):
    type: Literal["draft"]
    text: str = optional()
    voiced: bool = optional()


class Speak(Open):
    type: Literal["speak"]
    sentence: str = optional()


class SpeechCancelled(Open):
    type: Literal["speech_cancelled"]
    by: str = open_set("mic", "stop")
    unspoken: int = optional()


class Listen(Open):
    """With ``setup.observe: [listen]``: the chat called the voice engine's ``listen``."""

    type: Literal["listen"]
    handlers: list[str] = optional()


class Settle(Open):
    """With ``setup.observe: [settle]``: a ``ScreenSettle.wait()`` started or resolved."""

    type: Literal["settle"]
    phase: str = open_set("start", "end")


class ToolRun(Open):
    """With ``setup.observe: [settle]``: a tool's run started, or returned its value to the session."""

    type: Literal["tool_run"]
    id: str | None = None
    name: str = optional()
    phase: str = open_set("start", "return")


class Question(Open):
    type: Literal["question"]
    id: str = optional()
    text: str = optional()


class TurnStopped(Open):
    type: Literal["turn_stopped"]
    calls: list[str] = optional(
        "Ids of the calls the stopped turn left unanswered by their tools (a loop may answer them itself)."
    )


class InputRefused(Open):
    type: Literal["input_refused"]
    text: str = optional()
    reason: str = open_set("turn-running", "no-microphone", "no-settled-row")


class PromptCalled(Open):
    type: Literal["prompt_called"]
    name: str = optional()
    args: list[str] = optional()


class PromptDenied(Open):
    type: Literal["prompt_denied"]
    name: str = optional()
    status: int = optional()


class ToolClash(Open):
    type: Literal["tool_clash"]
    name: str = optional()
    registrations: int = optional()


class Console(Open):
    """A message the chat's code wrote to the browser console while mounting (a warning, never a throw)."""

    type: Literal["console"]
    level: str = open_set("warn", "error")
    text: str = optional()


class Restored(Open):
    type: Literal["restored"]
    transcript: list[Message] = optional()


class CompactionSummarized(Open):
    type: Literal["compaction"]
    outcome: Literal["summarized"]
    trigger: str = open_set("auto", "command")
    summarized: int = optional()
    kept: int = optional()
    estimate_before: int = optional()
    estimate_after: int = optional()


class CompactionFailed(Open):
    type: Literal["compaction"]
    outcome: Literal["failed"]
    trigger: str = open_set("auto", "command")
    status: int = optional()


class CompactionNothing(Open):
    type: Literal["compaction"]
    outcome: Literal["nothing-to-summarize"]
    trigger: str = open_set("auto", "command")


Compaction = Annotated[
    Any,
    open_union(
        "outcome",
        {
            "summarized": CompactionSummarized,
            "failed": CompactionFailed,
            "nothing-to-summarize": CompactionNothing,
        },
        "a compaction",
        within=("type", "compaction"),
    ),
]


class Status(Open):
    type: Literal["status"]
    running: bool = optional()
    compacting: bool = optional()


class AttachmentAdded(Open):
    type: Literal["attachment_added"]
    name: str = optional()
    kind: str = open_set("image", "text", "document", "file")
    size: int = optional()


class AttachmentRefused(Open):
    type: Literal["attachment_refused"]
    name: str = optional()
    reason: str = open_set("duplicate", "file-too-large", "too-many-files", "message-too-large")
    text: str = optional()


class Export(Open):
    type: Literal["export"]
    route: str = optional()
    at: str = optional()
    messages: list[Message] = optional()


class Persisted(Open):
    type: Literal["persisted"]
    transcript: list[Message] = optional()


class ToolRow(Open):
    """A settled tool row the user opened: its own token estimate and the result the model was handed."""

    type: Literal["tool_row"]
    id: str = optional()
    name: str = optional()
    tokens: int = optional()
    result: str = optional()


class ComposerMenu(Open):
    rows: list[str] = optional()
    highlighted: str = optional()


class ComposerEvent(Open):
    """After a `type` or `key` step: the composer as drawn (and, for a key, what it did)."""

    type: Literal["composer"]
    key: str | None = None
    text: str = optional()
    caret_line: int = optional()
    rows: int = optional()
    scrolls: bool = optional()
    menu: ComposerMenu | None = None
    panel_open: bool = optional()
    picked: str = optional("Enter on the open `/` menu: the command row it chose.")
    captured: bool = optional("Cmd+L / Ctrl+L: whether the chat took the key from the browser.")


class OpenChange(Open):
    type: Literal["open_change"]
    open: bool = optional()
    controlled: bool = optional()


class Viewport(Open):
    type: Literal["viewport"]
    width: int = optional()
    keyboard: int = optional()
    layout: str = open_set("full-screen", "card")
    lift: int = optional()


class DialogDismissed(Open):
    type: Literal["dialog_dismissed"]
    namespace: str = optional()
    confirm_asked: bool = optional()
    on_cancel_ran: bool = optional()
    closed: bool = optional()


class ChatUnmounted(Open):
    type: Literal["chat_unmounted"]
    session_ended: bool = optional()


class ScriptExhausted(Open):
    type: Literal["script_exhausted"]
    call: int = optional()
    message: str = optional()


Event = Annotated[
    Any,
    open_union(
        "type",
        {
            "model_request": ModelRequest,
            "model_response": ModelResponse,
            "tool_call": ToolCall,
            "tool_result": ToolResult,
            "turn_limit": TurnLimit,
            "turn_failed": TurnFailed,
            "relay": Relay,
            "draft": Draft,
            "speak": Speak,
            "speech_cancelled": SpeechCancelled,
            "listen": Listen,
            "settle": Settle,
            "tool_run": ToolRun,
            "question": Question,
            "turn_stopped": TurnStopped,
            "input_refused": InputRefused,
            "prompt_called": PromptCalled,
            "prompt_denied": PromptDenied,
            "tool_clash": ToolClash,
            "console": Console,
            "restored": Restored,
            "compaction": Compaction,
            "status": Status,
            "attachment_added": AttachmentAdded,
            "attachment_refused": AttachmentRefused,
            "export": Export,
            "persisted": Persisted,
            "tool_row": ToolRow,
            "composer": ComposerEvent,
            "open_change": OpenChange,
            "viewport": Viewport,
            "chat_unmounted": ChatUnmounted,
            "dialog_dismissed": DialogDismissed,
            "script_exhausted": ScriptExhausted,
        },
    ),
]


class LauncherView(Open):
    drawn: bool = optional()
    classes: list[str] = optional()


class PartView(Open):
    drawn_by: str = optional()
    wraps: str | None = None


class PartsView(Open):
    """Who draws each of the eight slots."""

    AgentLauncher: PartView = optional()
    AgentBubble: PartView = optional()
    AgentComposer: PartView = optional()
    AgentApproval: PartView = optional()
    AgentQuestion: PartView = optional()
    AgentMenu: PartView = optional()
    AgentMarkdown: PartView = optional()
    AgentCode: PartView = optional()


class CodeBlockView(Open):
    slot: str = optional()
    language: str | None = None
    code: str = optional()


class PanelView(Open):
    open: bool = optional()
    launcher: LauncherView = optional()
    classes: list[str] = optional()
    header: list[str] = optional()
    empty_state: str | None = None
    parts: PartsView = optional()
    duties: list[str] = optional()
    code_blocks: list[CodeBlockView] = optional()
    layout: str = open_set("full-screen", "card")
    lift: int = optional()


class Final(Open):
    transcript: list[Message] = optional()
    tokens: int = optional()
    composer: list[str] = optional()
    is_running: bool = optional()
    is_compacting: bool = optional()
    route: str = optional()
    commands: list[str] = optional()
    draft: str = optional("Only with setup.voice.")
    microphone: bool = optional("Only with setup.voice.")
    form: dict[str, Any] = optional("Only with setup.form.")
    panel: PanelView = optional("Only with setup.panel.")
    command_descriptions: dict[str, str] = optional(
        "Only when a prompt has a desc: the text the / menu shows beside each prompt command."
    )
    page_state: dict[str, Any] = optional("Only with setup.state: the keys' values as the page holds them.")


class AkanRecord(Open):
    events: list[Event]
    final: Final = Field(default_factory=Final)
