"""What an agent is made of, built in Python: flows with their triggers and steps, fields, the idle
speaker and business hours (the options of ``falai().agent({...})``).

A flow is started by its triggers (``on``) or by the host (:class:`reference.falai.inputs.Start`). There
is one trigger class per documented kind: :class:`OnMessage` (an empty phrase list is a catch-all),
:class:`OnMention` (an empty list is a code-only detector), :class:`OnSilence` and :class:`OnEvent`. A
flow's steps run in order: :class:`Say` speaks verbatim, :class:`Talk` speaks with one model call and
may collect fields, :class:`Do` calls an action, :class:`Wait` parks the run. Durations are strings such
as ``'30m'``, ``'24h'``, ``'2d'`` or a number of milliseconds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from reference.clock import parse_duration_ms
from reference.falai.conditions import Condition

Duration = str | int
"""``'30s'``, ``'15m'``, ``'24h'``, ``'2d'``, ``'1w'``, or milliseconds."""


def duration_ms(duration: Duration) -> int:
    """A duration in milliseconds; a bad string raises ValueError naming it."""
    return duration if isinstance(duration, int) else parse_duration_ms(duration)


@dataclass(frozen=True)
class Cooldown:
    """``repeat: { cooldown }``: a trigger may start the flow again once this long has passed."""

    duration: Duration


Repeat = Literal["once", "always"] | Cooldown
"""A trigger's ``repeat``; ``None`` where a trigger takes one means its kind's default."""


# -- triggers -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OnMessage:
    """A customer message the model scores against ``phrases``; no phrases makes the flow a catch-all."""

    phrases: Sequence[str] = ()
    if_: Condition | None = None
    repeat: Repeat | None = None


@dataclass(frozen=True)
class OnMention:
    """A mention the model judges in any message (phrases), or a code-only detector (no phrases).
    ``extract``: the values the model pulls out of the message, which become the run's input."""

    phrases: Sequence[str] = ()
    extract: Mapping[str, Field] = field(default_factory=dict)
    if_: Condition | None = None
    repeat: Repeat | None = None


@dataclass(frozen=True)
class OnSilence:
    """The customer has not answered the assistant's last message for ``after``."""

    after: Duration
    if_: Condition | None = None
    repeat: Repeat | None = None
    business_hours: bool = False


@dataclass(frozen=True)
class OnEvent:
    """A host event named ``name``; its payload is the run's input. ``after`` parks the run first."""

    name: str
    after: Duration | None = None
    if_: Condition | None = None
    repeat: Repeat | None = None
    business_hours: bool = False


Trigger = OnMessage | OnMention | OnSilence | OnEvent


# -- steps ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Say:
    """Speak ``text`` verbatim (``{{input.x}}``, ``{{data.x}}``, ``{{context.x}}`` are filled in)."""

    id: str
    text: str


@dataclass(frozen=True)
class Talk:
    """Speak with one model call; with ``collect``, stop until the customer gave those fields."""

    id: str
    prompt: str | None = None
    collect: Sequence[str] = ()


@dataclass(frozen=True)
class Do:
    """Call the action named ``action`` with ``params`` (templates filled in)."""

    id: str
    action: str
    params: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Wait:
    """Park the run for ``duration``. ``else_``: where a customer message sends it instead (``'end'`` or
    a step id); without it the run simply resumes at its wake."""

    id: str
    duration: Duration
    else_: str | None = None
    business_hours: bool = False


Step = Say | Talk | Do | Wait


@dataclass(frozen=True)
class Flow:
    """A flow: its triggers (none: only the host starts it), its steps, and what its run is tied to.

    ``anchor``: ``'session'`` (the default) or ``'lead'`` (the host's ``lead`` anchor key, if given).
    ``while_``: the premise checked before every step; without it, the trigger's ``if_`` is checked again.
    """

    id: str
    name: str
    steps: Sequence[Step]
    on: Sequence[Trigger] = ()
    description: str | None = None
    anchor: Literal["session", "lead"] = "session"
    while_: Condition | None = None

    def __post_init__(self) -> None:
        if not self.steps:
            raise ValueError(f"flow {self.id!r} has no steps")
        if not self.id or ":" in self.id:
            raise ValueError(f"flow id {self.id!r} must be non-empty and contain no ':'")


# -- the rest of the agent --------------------------------------------------------------------------


@dataclass(frozen=True)
class Field:
    """A data field a talk step can collect; ``ask`` is how the model is told to ask for it."""

    ask: str | None = None
    type: Literal["string", "number", "boolean"] = "string"
    enum: Sequence[str] | None = None


@dataclass(frozen=True)
class Idle:
    """The idle speaker: answers a message nobody else answered (falai.idle.answers)."""

    prompt: str | None = None
    tools: Sequence[str] = ()
    instructions: Sequence[str] = ()


Action = Callable[[dict[str, Any]], Mapping[str, Any] | None]
"""An action: called with the step's rendered params. A result with ``spoke: True`` says the action
itself sent the customer a message (falai.silence.stamp)."""

BusinessHours = Callable[[int], int]
"""The agent's ``businessHours`` function: a time (virtual ms) -> the working time it moves to."""

HOUR_MS = 3_600_000
DAY_MS = 24 * HOUR_MS


@dataclass(frozen=True)
class WorkingHours:
    """A ready-made ``businessHours``: working hours in UTC, every day of the week.

    Times inside working hours are kept; later ones move to the opening hour of the next day, earlier
    ones to the opening hour of the same day.
    """

    open_hour: int
    close_hour: int

    def __post_init__(self) -> None:
        if not 0 <= self.open_hour < self.close_hour <= 24:
            raise ValueError(
                f"working hours need 0 <= open < close <= 24, got {self.open_hour}-{self.close_hour}"
            )

    def __call__(self, at_ms: int) -> int:
        day_start = at_ms - at_ms % DAY_MS
        hour = (at_ms - day_start) / HOUR_MS
        if hour >= self.close_hour:
            return day_start + DAY_MS + self.open_hour * HOUR_MS
        if hour < self.open_hour:
            return day_start + self.open_hour * HOUR_MS
        return at_ms


@dataclass(frozen=True)
class Setup:
    """Everything that defines an agent apart from its model, clock and context (see ``Agent``)."""

    flows: Sequence[Flow]
    name: str = "Assistant"
    session_id: str = "session-1"
    fields: Mapping[str, Field] = field(default_factory=dict)
    actions: Mapping[str, Action] = field(default_factory=dict)
    idle: Literal["silent"] | Idle | None = None
    business_hours: BusinessHours | None = None

    def __post_init__(self) -> None:
        seen: set[str] = set()
        for flow in self.flows:
            if flow.id in seen:
                raise ValueError(f"two flows have id {flow.id!r}")
            seen.add(flow.id)
