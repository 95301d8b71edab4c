"""The falai record vocabulary as models: one per event type, discriminated by ``type``, and the final state.

The prose is ``spec/protocol/records/falai.md``; the generated JSON Schema is
``spec/protocol/records/falai.schema.json``. A ``model_request`` is the suite's neutral request shape, one
model per ``purpose`` (a second open union inside the first). Keys the documents leave to the
implementation (a talk message's ``key``, a ``wait`` wake key) are typed as strings and nothing more. No
field is required: the guide's ``turn`` result and session are what an adapter maps from, and a runtime
without one of the reference's fields (``floor``) leaves it out.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from conformance.records.common import ModelResponse, Open, open_set, open_union, optional


class Candidate(Open):
    flowId: str = optional()
    name: str = optional()
    description: str | None = None
    phrases: list[str] = optional()


class Mention(Open):
    flowId: str = optional()
    name: str = optional()
    phrases: list[str] = optional()
    extract: list[str] = optional()


class UnderstandRequest(Open):
    """The one call of a message turn that scores flows, judges mentions and extracts fields."""

    type: Literal["model_request"]
    call: int = optional()
    purpose: Literal["understand"]
    message: str = optional()
    candidates: list[Candidate] = optional()
    mentions: list[Mention] = optional()
    fields: list[str] = optional()
    instructions: str | None = None


class TalkRequest(Open):
    """A talk step asking the model for the message to send."""

    type: Literal["model_request"]
    call: int = optional()
    purpose: Literal["talk"]
    persona: str = optional()
    runId: str = optional()
    flowId: str = optional()
    stepId: str = optional()
    prompt: str | None = None
    collect: list[str] = optional()
    asks: list[str] = optional()
    newMessage: bool = optional()


class IdleRequest(Open):
    """The idle speaker's call; ``instructions`` are the idle options' list, as the agent was given it."""

    type: Literal["model_request"]
    call: int = optional()
    purpose: Literal["idle"]
    persona: str = optional()
    message: str = optional()
    prompt: str | None = None
    tools: list[str] = optional()
    instructions: list[str] = optional()


ModelRequest = Annotated[
    Any,
    open_union(
        "purpose",
        {"understand": UnderstandRequest, "talk": TalkRequest, "idle": IdleRequest},
        "a model request",
        within=("type", "model_request"),
    ),
]


class MessageInput(Open):
    kind: Literal["message"]
    id: str = optional()


class EventInput(Open):
    kind: Literal["event"]
    event: str = optional()
    key: str = optional()


class StartInput(Open):
    kind: Literal["start"]
    flow: str = optional()
    key: str = optional()


class WakeInput(Open):
    kind: Literal["wake"]
    key: str = optional()


TurnInput = Annotated[
    Any,
    open_union(
        "kind",
        {"message": MessageInput, "event": EventInput, "start": StartInput, "wake": WakeInput},
        "an input",
    ),
]


class Started(Open):
    flowId: str = optional()
    runId: str = optional()


class Ended(Open):
    runId: str = optional()
    flowId: str = optional()
    reason: str = open_set("completed", "replaced", "premise-changed", "customer-replied")
    """An open set: the guide names these end reasons; a runtime's own (``flow``, ``reset``, ``failed``)
    validate and are listed in the report as undocumented."""


class Sent(Open):
    """A message sent this turn. ``kind`` is a string: our documents name only ``verbatim`` (a ``say``), so
    the kinds of talk and idle messages are the implementation's (``falai.idle.key#open_question``)."""

    kind: str = open_set("verbatim")
    text: str = optional()
    key: str = optional()


class Outcome(Open):
    """An outcome line; ``runId`` names the run for the lines about one, ``kind``/``key`` the idle line.

    ``code`` is a string, not a closed set: the idle line's code is not given
    (``falai.idle.outcome-kind#open_question``), and a line the documents place nowhere in particular may
    appear here or in ``skipped`` (``falai.mention.say-answers#open_question``)."""

    code: str = open_set(
        "duplicate-input",
        "another-reply",
        "silence-broken",
        "awaiting-trigger",
        "premise-changed",
        "customer-replied",
        "idle",
    )
    runId: str = optional()
    kind: str = optional()
    key: str = optional()


class Skipped(Open):
    """A flow that did not start; ``code`` is a string for the same reason as an outcome's."""

    flowId: str = optional()
    code: str = open_set("already-claimed", "already-running", "cooldown", "flow-gone")


class Wake(Open):
    """A wake to enqueue; ``replaces`` may be absent or null on a flow's first silence wake
    (``falai.silence.replaces#open_question``)."""

    key: str = optional()
    at: int | str = optional(
        "When to fire: virtual ms, or an ISO 8601 time (the guide fixes the time, not its JSON form)."
    )
    replaces: str | None = None


class Turn(Open):
    """One ``agent.turn(...)`` and its documented result."""

    type: Literal["turn"]
    step: int = optional()
    input: TurnInput = optional()
    started: list[Started] = optional()
    ended: list[Ended] = optional()
    messages: list[Sent] = optional()
    outcomes: list[Outcome] = optional()
    skipped: list[Skipped] = optional()
    schedule: list[Wake] = optional()
    llmCalls: int = optional()
    changed: bool = optional()


class Action(Open):
    type: Literal["action"]
    name: str = optional()
    runId: str = optional()
    params: dict[str, Any] = optional()
    known: bool = optional()


class Error(Open):
    type: Literal["error"]
    step: int = optional()
    message: str = optional()


Event = Annotated[
    Any,
    open_union(
        "type",
        {
            "model_request": ModelRequest,
            "model_response": ModelResponse,
            "turn": Turn,
            "action": Action,
            "error": Error,
        },
    ),
]


class Run(Open):
    runId: str = optional()
    flowId: str = optional()
    status: str = open_set("active", "suspended", "parked", "waiting", "ended")
    step: str | None = None


class CustomerEntry(Open):
    role: Literal["customer"]
    text: str = optional()
    id: str = optional()


class AssistantEntry(Open):
    role: Literal["assistant"]
    text: str = optional()
    key: str = optional()


HistoryEntry = Annotated[
    Any, open_union("role", {"customer": CustomerEntry, "assistant": AssistantEntry}, "an entry")
]


class Session(Open):
    floor: str | None = None
    runs: list[Run] = optional()
    claims: list[str] = optional()
    data: dict[str, Any] = optional()
    history: list[HistoryEntry] = optional()
    lastAssistantAt: int | str | None = Field(
        default=None, description="Virtual ms or an ISO 8601 time, like a wake's `at`."
    )


class Final(Open):
    now: int = optional()
    session: Session = optional()


class FalaiRecord(Open):
    events: list[Event]
    final: Final = Field(default_factory=Final)
