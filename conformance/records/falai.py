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
    """A message sent this turn. ``kind`` is a string: our documents name only ``verbatim`` (a ``say``), so
    the kinds of talk and idle messages are the implementation's (``falai.idle.key#open_question``)."""

    kind: str
    text: str
    key: str


class Outcome(Open):
    """An outcome line; ``runId`` names the run for the lines about one, ``kind``/``key`` the idle line.

    ``code`` is a string, not a closed set: the idle line's code is not given
    (``falai.idle.outcome-kind#open_question``), and a line the documents place nowhere in particular may
    appear here or in ``skipped`` (``falai.mention.say-answers#open_question``)."""

    code: str
    runId: str = optional()
    kind: str = optional()
    key: str = optional()


class Skipped(Open):
    """A flow that did not start; ``code`` is a string for the same reason as an outcome's."""

    flowId: str
    code: str


class Wake(Open):
    """A wake to enqueue; ``replaces`` may be absent or null on a flow's first silence wake
    (``falai.silence.replaces#open_question``)."""

    key: str
    at: int
    replaces: str | None = None


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
