"""The falai record vocabulary as models: one per event type, discriminated by ``type``, and the final state.

The prose is ``spec/protocol/records/falai.md``; the generated JSON Schema is
``spec/protocol/records/falai.schema.json``. A ``model_request`` is the suite's neutral request shape, one
model per ``purpose`` (a second discriminator inside the first). Keys the documents leave to the
implementation (a talk message's ``key``, a ``wait`` wake key) are typed as strings and nothing more.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from conformance.records.common import ModelResponse, Open, optional


class Candidate(Open):
    flowId: str
    name: str
    description: str | None
    phrases: list[str]


class Mention(Open):
    flowId: str
    name: str
    phrases: list[str]
    extract: list[str]


class UnderstandRequest(Open):
    """The one call of a message turn that scores flows, judges mentions and extracts fields."""

    type: Literal["model_request"]
    call: int
    purpose: Literal["understand"]
    message: str
    candidates: list[Candidate]
    mentions: list[Mention]
    fields: list[str]
    instructions: str | None


class TalkRequest(Open):
    """A talk step asking the model for the message to send."""

    type: Literal["model_request"]
    call: int
    purpose: Literal["talk"]
    persona: str
    runId: str
    flowId: str
    stepId: str
    prompt: str | None
    collect: list[str]
    asks: list[str]
    newMessage: bool


class IdleRequest(Open):
    """The idle speaker's call; ``instructions`` are the idle options' list, as the agent was given it."""

    type: Literal["model_request"]
    call: int
    purpose: Literal["idle"]
    persona: str
    message: str
    prompt: str | None
    tools: list[str]
    instructions: list[str]


ModelRequest = Annotated[UnderstandRequest | TalkRequest | IdleRequest, Field(discriminator="purpose")]


class MessageInput(Open):
    kind: Literal["message"]
    id: str


class EventInput(Open):
    kind: Literal["event"]
    event: str
    key: str


class StartInput(Open):
    kind: Literal["start"]
    flow: str
    key: str


class WakeInput(Open):
    kind: Literal["wake"]
    key: str


TurnInput = Annotated[MessageInput | EventInput | StartInput | WakeInput, Field(discriminator="kind")]


class Started(Open):
    flowId: str
    runId: str


class Ended(Open):
    runId: str
    flowId: str
    reason: Literal["completed", "replaced", "premise-changed", "customer-replied"]


class Sent(Open):
    kind: Literal["verbatim", "talk", "idle"]
    text: str
    key: str


class Outcome(Open):
    """An outcome line; ``runId`` names the run for the lines about one, ``kind``/``key`` the idle line."""

    code: Literal[
        "duplicate-input",
        "another-reply",
        "silence-broken",
        "awaiting-trigger",
        "premise-changed",
        "customer-replied",
        "idle",
    ]
    runId: str = optional()
    kind: Literal["idle"] = optional()
    key: str = optional()


class Skipped(Open):
    flowId: str
    code: Literal["already-claimed", "already-running", "cooldown", "flow-gone"]


class Wake(Open):
    key: str
    at: int
    replaces: str = optional()


class Turn(Open):
    """One ``agent.turn(...)`` and its documented result."""

    type: Literal["turn"]
    step: int
    input: TurnInput
    started: list[Started]
    ended: list[Ended]
    messages: list[Sent]
    outcomes: list[Outcome]
    skipped: list[Skipped]
    schedule: list[Wake]
    llmCalls: int
    changed: bool


class Action(Open):
    type: Literal["action"]
    name: str
    runId: str
    params: dict[str, Any]
    known: bool


class Error(Open):
    type: Literal["error"]
    step: int
    message: str


Event = Annotated[ModelRequest | ModelResponse | Turn | Action | Error, Field(discriminator="type")]


class Run(Open):
    runId: str
    flowId: str
    status: Literal["active", "suspended", "parked", "waiting", "ended"]
    step: str | None


class CustomerEntry(Open):
    role: Literal["customer"]
    text: str
    id: str


class AssistantEntry(Open):
    role: Literal["assistant"]
    text: str
    key: str


class Session(Open):
    floor: str | None
    runs: list[Run]
    claims: list[str]
    data: dict[str, Any]
    history: list[Annotated[CustomerEntry | AssistantEntry, Field(discriminator="role")]]
    lastAssistantAt: int | None


class Final(Open):
    now: int
    session: Session


class FalaiRecord(Open):
    events: list[Event]
    final: Final
