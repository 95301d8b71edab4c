"""The falai scenario vocabulary: how a scenario configures an agent and which turns it plays.

``setup`` mirrors the documented ``falai().agent({...})`` options in data form: flows with their ``on``
triggers and steps, actions with canned results, the idle speaker, business hours and the starting
context. A trigger's ``if`` (code in the real API) is written as a declarative :class:`Condition`.

``steps`` are the host's calls over virtual time: ``message``, ``event``, ``start`` and ``wake`` each play
one ``agent.turn(...)``; ``advance`` moves the virtual clock; ``context`` replaces the host context used by
later turns. Field names follow the documented API (``businessHours``, ``if``, ``else``, ``with``), so a
bridge to the real runtime can pass most of them through unchanged.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from conformance.scenario.common import CaseBase, Strict

#: 2026-01-05T12:00:00Z, a Monday at noon (the same epoch as ``reference.clock.DEFAULT_START_MS``).
DEFAULT_CLOCK_START_MS = 1_767_614_400_000

Duration = Annotated[
    str,
    Field(
        pattern=r"^\s*\d+(\.\d+)?\s*(s|m|h|d)\s*$",
        description="e.g. '24h', '2d': the units the trigger API takes, <n>s|m|h|d (no ms, no w).",
    ),
]


class Condition(Strict):
    """A declarative predicate standing in for a code ``if``/``while``.

    ``path`` is dotted and starts at one of the values the predicate may read (``context``, ``data``,
    ``input``); exactly one of ``equals``, ``one_of``, ``contains`` (a list value holds this item) or
    ``exists`` is given.
    """

    path: str = Field(pattern=r"^(context|data|input)(\.[A-Za-z0-9_\-]+)*$")
    equals: Any = None
    one_of: list[Any] | None = None
    contains: Any = None
    exists: bool | None = None

    @model_validator(mode="after")
    def _one_test(self) -> Condition:
        tests = ("equals", "one_of", "contains", "exists")
        given = [name for name in tests if name in self.model_fields_set]
        if len(given) != 1:
            raise ValueError(f"a condition needs exactly one of {', '.join(tests)}; got {given or 'none'}")
        return self


class Cooldown(Strict):
    cooldown: Duration


Repeat = Literal["once", "always"] | Cooldown


class FieldSpec(Strict):
    """A data field (``fields``) or a mention ``extract`` entry."""

    type: Literal["string", "number", "boolean"] | None = Field(
        default=None, description="Omitted: the runtime's default type."
    )
    ask: str | None = Field(default=None, description="The instruction a collect step uses to ask for it.")
    enum: list[str] | None = None


class Trigger(Strict):
    """One entry of a flow's ``on`` list: exactly one of message, mention, silence or event."""

    message: list[str] | None = None
    mention: list[str] | None = None
    silence: Duration | None = None
    event: str | None = None
    if_: Condition | None = Field(default=None, alias="if")
    repeat: Repeat | None = Field(
        default=None, description="Omitted: the kind's default (falai.repeat.defaults)."
    )
    after: Duration | None = Field(
        default=None, description="Event triggers only: park the run this long first."
    )
    extract: dict[str, FieldSpec] | None = Field(default=None, description="Mention triggers only.")
    business_hours: bool = Field(default=False, alias="businessHours")

    @model_validator(mode="after")
    def _one_kind(self) -> Trigger:
        kinds = [k for k in ("message", "mention", "silence", "event") if getattr(self, k) is not None]
        if len(kinds) != 1:
            raise ValueError(
                f"a trigger needs exactly one of message, mention, silence, event; got {kinds or 'none'}"
            )
        if self.after is not None and kinds[0] != "event":
            raise ValueError("after is only allowed on an event trigger")
        if self.extract is not None and kinds[0] != "mention":
            raise ValueError("extract is only allowed on a mention trigger")
        return self

    @property
    def kind(self) -> Literal["message", "mention", "silence", "event"]:
        for kind in ("message", "mention", "silence", "event"):
            if getattr(self, kind) is not None:
                return kind
        raise AssertionError("validated to have one kind")


class FlowStep(Strict):
    """One step of a flow: ``say`` (verbatim), ``prompt``/``collect`` (talk), ``do`` (action) or ``wait``."""

    id: str = Field(min_length=1)
    say: str | None = None
    prompt: str | None = None
    collect: list[str] | None = None
    do: str | None = None
    with_: dict[str, Any] | None = Field(default=None, alias="with")
    wait: Duration | None = None
    else_: str | None = Field(default=None, alias="else", description="'end' or a step id.")
    business_hours: bool = Field(default=False, alias="businessHours")

    @model_validator(mode="after")
    def _one_action(self) -> FlowStep:
        talk = self.prompt is not None or self.collect is not None
        given = [
            n
            for n, on in (
                ("say", self.say is not None),
                ("talk", talk),
                ("do", self.do is not None),
                ("wait", self.wait is not None),
            )
            if on
        ]
        if len(given) != 1:
            raise ValueError(
                f"step {self.id!r} needs exactly one of say, prompt/collect, do, wait; got {given or 'none'}"
            )
        return self


class Flow(Strict):
    id: str = Field(pattern=r"^[A-Za-z0-9_\-]+$")
    name: str
    description: str | None = None
    on: list[Trigger] | None = Field(
        default=None, description="Omitted: started only by the host (falai.start)."
    )
    steps: list[FlowStep] = Field(min_length=1)
    anchor: Literal["session", "lead"] | None = Field(
        default=None, description="Omitted: the runtime's default anchor (falai.live.anchor-default)."
    )
    while_: Condition | None = Field(default=None, alias="while")

    @model_validator(mode="before")
    @classmethod
    def _bare_on(cls, data: Any) -> Any:
        """YAML 1.1 reads an unquoted ``on:`` key as the boolean true; say so instead of a cryptic error."""
        if isinstance(data, dict) and (True in data or "true" in data):
            raise ValueError(
                'write the triggers key as "on" in quotes: YAML reads a bare on: as the boolean true'
            )
        return data


class Action(Strict):
    """A declared action; ``do`` steps record an ``action`` event and get ``returns``."""

    returns: dict[str, Any] = Field(default_factory=lambda: {"ok": True})
    spoke: bool = Field(
        default=False, description="The action result carries spoke: true (falai.silence.stamp)."
    )


class IdleOptions(Strict):
    prompt: str | None = None
    tools: list[str] = Field(default_factory=list)
    instructions: list[str] = Field(default_factory=list)


class BusinessHours(Strict):
    """A declarative ``businessHours`` function: working hours in UTC, every day of the week."""

    open_hour: int = Field(ge=0, le=23)
    close_hour: int = Field(ge=1, le=24)


class Setup(Strict):
    """System configuration for one falai scenario."""

    name: str = "Ana"
    session_id: str = "s1"
    clock_start_ms: int = DEFAULT_CLOCK_START_MS
    fields: dict[str, FieldSpec] = Field(default_factory=dict)
    flows: list[Flow] = Field(default_factory=list)
    actions: dict[str, Action] = Field(default_factory=dict)
    events: list[str] = Field(default_factory=list)
    idle: Literal["silent"] | IdleOptions | None = None
    business_hours: BusinessHours | None = Field(default=None, alias="businessHours")
    context: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _unique_flow_ids(self) -> Setup:
        seen: set[str] = set()
        for flow in self.flows:
            if flow.id in seen:
                raise ValueError(f"two flows have id {flow.id!r}")
            seen.add(flow.id)
        return self


class HostClaims(Strict):
    """``turn({ claims })``: claims the host carries over from the customer's other sessions."""

    held: dict[str, int] = Field(default_factory=dict, description="dedupe key -> claimed at (ms)")
    active: list[str] = Field(default_factory=list, description="'<flowId>:<anchor>' pairs live elsewhere")


class AnchorKey(Strict):
    key: str = Field(min_length=1)


class TurnExtras(Strict):
    claims: HostClaims | None = None
    anchors: dict[str, AnchorKey] | None = Field(
        default=None, description="turn({ anchors }): anchor name -> {key}, e.g. {lead: {key: 'lead:456'}}"
    )


class MessageStep(TurnExtras):
    op: Literal["message"]
    id: str = Field(min_length=1, description="The channel's message id.")
    text: str


class EventStep(TurnExtras):
    op: Literal["event"]
    event: str
    payload: dict[str, Any] = Field(default_factory=dict)
    key: str = Field(min_length=1)
    direction: Literal["customer", "assistant"] | None = Field(
        default=None, description="Stamps the session as if this side just spoke (falai.event.direction)."
    )


class StartStep(TurnExtras):
    op: Literal["start"]
    flow: str
    input: dict[str, Any] = Field(default_factory=dict)
    key: str = Field(min_length=1)


class WakeStep(TurnExtras):
    """``turn({ wake })``. Give ``key`` literally, or ``from_schedule: n`` to fire entry ``n`` of the
    ``schedule`` returned by the most recent turn that returned a non-empty one."""

    op: Literal["wake"]
    key: str | None = None
    from_schedule: int | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _one_source(self) -> WakeStep:
        if (self.key is None) == (self.from_schedule is None):
            raise ValueError("a wake step needs exactly one of key or from_schedule")
        return self


class AdvanceStep(Strict):
    op: Literal["advance"]
    by: Duration


class ContextStep(Strict):
    """Replace the host context passed to every later turn."""

    op: Literal["context"]
    context: dict[str, Any]


Step = Annotated[
    MessageStep | EventStep | StartStep | WakeStep | AdvanceStep | ContextStep, Field(discriminator="op")
]


# What an implementation plays; ``conformance.scenario.model`` adds the answer key.
class FalaiCase(CaseBase):
    system: Literal["falai"]
    setup: Setup = Field(default_factory=Setup)
    steps: list[Step] = Field(min_length=1)
