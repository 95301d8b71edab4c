"""The Akan record vocabulary as models: one per event type, discriminated by ``type``, and the final state.

The prose is ``spec/protocol/records/akan.md``; the generated JSON Schema is
``spec/protocol/records/akan.schema.json``. Events whose fields depend on an outcome (``relay``,
``compaction``) or a purpose (``model_request``) are one model per case, under a second discriminator. A
message's fields are typed but never closed: keeping more than the documents ask (an attachment's MIME type
after persisting, say) is allowed, and built-in tool results are plain text whose wording is the
implementation's own.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from conformance.records.common import ModelResponse, Open, optional


class Attachment(Open):
    """A file sent with a user message; after persisting, possibly only its ``name``."""

    name: str
    kind: Literal["image", "text", "document", "file"] = optional()
    mime: str = optional()
    size: int = optional()
    text: str = optional()
    data: str = optional()


class WireToolCall(Open):
    id: str
    name: str
    arguments: dict[str, Any]


class Message(Open):
    """One message of the conversation (posted, exported, persisted, restored or kept in the transcript).

    ``content`` is optional: a transcript read back from web storage keeps what storage held, and the
    ``invalid-input`` scenarios store an assistant message without content on purpose (the reference then
    restores and posts it as read; the documents do not say what a chat must do with one)."""

    role: Literal["user", "assistant", "tool", "local", "system"]
    content: str = optional()
    attachments: list[Attachment] = optional()
    summary: bool = optional()
    tool_calls: list[WireToolCall] = optional()
    error: str = optional()
    tool_call_id: str = optional()


class ToolDeclaration(Open):
    name: str
    description: str
    parameters: dict[str, Any]


class Context(Open):
    route: str
    scopes: list[str]
    keys: list[str]


class Provider(Open):
    name: str
    model: str = optional()
    host: str = optional()


class ProviderMessage(Open):
    """A message as the adaptor hands it to its provider; ``content`` is text or a list of typed parts."""

    role: Literal["system", "user", "assistant", "tool"]
    content: str | list[dict[str, Any]] = optional()


class TurnRequest(Open):
    type: Literal["model_request"]
    call: int
    purpose: Literal["turn"]
    messages: list[Message]
    tools: list[ToolDeclaration]
    screen: str
    context: Context
    guides: list[str]
    provider: Provider
    provider_messages: list[ProviderMessage]


class SummaryRequest(Open):
    """Writing a compaction summary: a system instruction and one user message holding the digest."""

    type: Literal["model_request"]
    call: int
    purpose: Literal["summary"]
    messages: list[Message]


ModelRequest = Annotated[TurnRequest | SummaryRequest, Field(discriminator="purpose")]


class ToolCall(Open):
    type: Literal["tool_call"]
    id: str
    name: str
    arguments: dict[str, Any]


class ToolResult(Open):
    type: Literal["tool_result"]
    id: str
    name: str
    content: str


class TurnLimit(Open):
    type: Literal["turn_limit"]
    max_turns: int


class TurnFailed(Open):
    type: Literal["turn_failed"]
    status: int | None
    message: str
    key: str = optional()


class RelayAbsent(Open):
    type: Literal["relay"]
    outcome: Literal["absent"]
    turn: int
    accept: str
    path: Literal["sse", "json"]


class RelayRefused(Open):
    type: Literal["relay"]
    outcome: Literal["refused"]
    turn: int
    accept: str
    path: Literal["sse", "json"]
    refused_by: str


class TravellingError(Open):
    """The adaptor's error as it travels: a dictionary key and its values, unresolved."""

    key: str
    values: dict[str, Any]


class RelayError(Open):
    type: Literal["relay"]
    outcome: Literal["error"]
    turn: int
    accept: str
    path: Literal["sse", "json"]
    error: TravellingError


class RelayFailed(Open):
    type: Literal["relay"]
    outcome: Literal["failed"]
    turn: int
    accept: str
    path: Literal["sse", "json"]
    status: int


class RelayRelayed(Open):
    type: Literal["relay"]
    outcome: Literal["relayed"]
    turn: int
    accept: str
    path: Literal["sse", "json"]
    tool_calls: list[str]
    deltas: list[str]


Relay = Annotated[
    RelayAbsent | RelayRefused | RelayError | RelayFailed | RelayRelayed, Field(discriminator="outcome")
]


class Draft(Open):
    type: Literal["draft"]
    text: str
    voiced: bool


class Speak(Open):
    type: Literal["speak"]
    sentence: str


class SpeechCancelled(Open):
    type: Literal["speech_cancelled"]
    by: Literal["mic", "stop"]
    unspoken: int


class Listen(Open):
    """With ``setup.observe: [listen]``: the chat called the voice engine's ``listen``."""

    type: Literal["listen"]
    handlers: list[str]


class Settle(Open):
    """With ``setup.observe: [settle]``: a ``ScreenSettle.wait()`` started or resolved."""

    type: Literal["settle"]
    phase: Literal["start", "end"]


class ToolRun(Open):
    """With ``setup.observe: [settle]``: a tool's run started, or returned its value to the session."""

    type: Literal["tool_run"]
    id: str | None
    name: str
    phase: Literal["start", "return"]


class Question(Open):
    type: Literal["question"]
    id: str
    text: str


class TurnStopped(Open):
    type: Literal["turn_stopped"]
    calls: list[str]


class InputRefused(Open):
    type: Literal["input_refused"]
    text: str
    reason: Literal["turn-running", "no-microphone", "no-settled-row"]


class PromptCalled(Open):
    type: Literal["prompt_called"]
    name: str
    args: list[str]


class PromptDenied(Open):
    type: Literal["prompt_denied"]
    name: str
    status: int


class ToolClash(Open):
    type: Literal["tool_clash"]
    name: str
    registrations: int


class Console(Open):
    """A message the chat's code wrote to the browser console while mounting (a warning, never a throw)."""

    type: Literal["console"]
    level: Literal["warn", "error"]
    text: str


class Restored(Open):
    type: Literal["restored"]
    transcript: list[Message]


class CompactionSummarized(Open):
    type: Literal["compaction"]
    outcome: Literal["summarized"]
    trigger: Literal["auto", "command"]
    summarized: int
    kept: int
    estimate_before: int
    estimate_after: int


class CompactionFailed(Open):
    type: Literal["compaction"]
    outcome: Literal["failed"]
    trigger: Literal["auto", "command"]
    status: int


class CompactionNothing(Open):
    type: Literal["compaction"]
    outcome: Literal["nothing-to-summarize"]
    trigger: Literal["auto", "command"]


Compaction = Annotated[
    CompactionSummarized | CompactionFailed | CompactionNothing, Field(discriminator="outcome")
]


class Status(Open):
    type: Literal["status"]
    running: bool
    compacting: bool


class AttachmentAdded(Open):
    type: Literal["attachment_added"]
    name: str
    kind: Literal["image", "text", "document", "file"]
    size: int


class AttachmentRefused(Open):
    type: Literal["attachment_refused"]
    name: str
    reason: Literal["duplicate", "file-too-large", "too-many-files", "message-too-large"]
    text: str


class Export(Open):
    type: Literal["export"]
    route: str
    at: str
    messages: list[Message]


class Persisted(Open):
    type: Literal["persisted"]
    transcript: list[Message]


class ToolRow(Open):
    """A settled tool row the user opened: its own token estimate and the result the model was handed."""

    type: Literal["tool_row"]
    id: str
    name: str
    tokens: int
    result: str


class ComposerMenu(Open):
    rows: list[str]
    highlighted: str


class ComposerEvent(Open):
    """After a `type` or `key` step: the composer as drawn (and, for a key, what it did)."""

    type: Literal["composer"]
    key: str | None
    text: str
    caret_line: int
    rows: int
    scrolls: bool
    menu: ComposerMenu | None
    panel_open: bool
    picked: str = optional("Enter on the open `/` menu: the command row it chose.")
    captured: bool = optional("Cmd+L / Ctrl+L: whether the chat took the key from the browser.")


class OpenChange(Open):
    type: Literal["open_change"]
    open: bool
    controlled: bool


class Viewport(Open):
    type: Literal["viewport"]
    width: int
    keyboard: int
    layout: Literal["full-screen", "card"]
    lift: int


class DialogDismissed(Open):
    type: Literal["dialog_dismissed"]
    namespace: str
    confirm_asked: bool
    on_cancel_ran: bool
    closed: bool


class ChatUnmounted(Open):
    type: Literal["chat_unmounted"]
    session_ended: bool


class ScriptExhausted(Open):
    type: Literal["script_exhausted"]
    call: int
    message: str


Event = Annotated[
    ModelRequest
    | ModelResponse
    | ToolCall
    | ToolResult
    | TurnLimit
    | TurnFailed
    | Relay
    | Draft
    | Speak
    | SpeechCancelled
    | Listen
    | Settle
    | ToolRun
    | Question
    | TurnStopped
    | InputRefused
    | PromptCalled
    | PromptDenied
    | ToolClash
    | Console
    | Restored
    | Compaction
    | Status
    | AttachmentAdded
    | AttachmentRefused
    | Export
    | Persisted
    | ToolRow
    | ComposerEvent
    | OpenChange
    | Viewport
    | ChatUnmounted
    | DialogDismissed
    | ScriptExhausted,
    Field(discriminator="type"),
]


class LauncherView(Open):
    drawn: bool
    classes: list[str]


class PartView(Open):
    drawn_by: str
    wraps: str | None


class PartsView(Open):
    """Who draws each of the eight slots."""

    AgentLauncher: PartView
    AgentBubble: PartView
    AgentComposer: PartView
    AgentApproval: PartView
    AgentQuestion: PartView
    AgentMenu: PartView
    AgentMarkdown: PartView
    AgentCode: PartView


class CodeBlockView(Open):
    slot: str
    language: str | None
    code: str


class PanelView(Open):
    open: bool
    launcher: LauncherView
    classes: list[str]
    header: list[str]
    empty_state: str | None
    parts: PartsView
    duties: list[str]
    code_blocks: list[CodeBlockView]
    layout: Literal["full-screen", "card"]
    lift: int


class Final(Open):
    transcript: list[Message]
    tokens: int
    composer: list[str]
    is_running: bool
    is_compacting: bool
    route: str
    commands: list[str]
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
    final: Final
