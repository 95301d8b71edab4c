"""The falai reference runtime: ``@falai/agent`` 4.0 triggers, in plain Python, as a library.

Build an :class:`Agent` from :class:`Flow` objects (triggers: :class:`OnMessage`, :class:`OnMention`,
:class:`OnSilence`, :class:`OnEvent`; steps: :class:`Say`, :class:`Talk`, :class:`Do`, :class:`Wait`),
give it any model provider and a :class:`VirtualClock`, and play turns (:class:`Message`, :class:`Event`,
:class:`Start`, :class:`Wake`); each returns a :class:`TurnResult`. See docs/simulator.md.

Where things live (each module does one job):

- ``definitions`` / ``inputs`` / ``results``: the public types (what an agent is, what a turn takes and
  gives back).
- ``routing``: who gets a customer message. A pure function with the two thresholds (40, 15).
- ``repeat``: the claim ledger; may a trigger start a run, and which claim does a start write.
- ``timers``: wake keys (silence, after-start, wait) and business-hours adjustment; pure.
- ``conditions`` / ``templates``: ``if``/``while`` predicates and ``{{input.x}}`` rendering.
- ``session``: the session state, with its record form.
- ``engine``: runs and the floor (start, step, suspend, resume, end).
- ``messages``: a customer message turn in the documented order.
- ``agent``: ``Agent.turn`` for messages, events, host starts and wakes; arms silence wakes.
- ``policies``: every rule decision in one object, so variants are handed in, never patched in.

The records the harness builds from it are specified in ``spec/protocol/records/falai.md``.
"""

from reference.clock import VirtualClock
from reference.falai.agent import Agent
from reference.falai.conditions import Condition, Scope, Where
from reference.falai.definitions import (
    Action,
    BusinessHours,
    Cooldown,
    Do,
    Duration,
    Field,
    Flow,
    Idle,
    OnEvent,
    OnMention,
    OnMessage,
    OnSilence,
    Repeat,
    Say,
    Step,
    Talk,
    Trigger,
    Wait,
    WorkingHours,
)
from reference.falai.engine import Observer
from reference.falai.inputs import Event, HostClaims, Message, Start, TurnInput, Wake
from reference.falai.policies import DEFAULT_POLICIES, Policies
from reference.falai.results import Ended, Outcome, Said, Scheduled, Skipped, Started, TurnResult
from reference.falai.session import Run, Session

__all__ = [
    "DEFAULT_POLICIES",
    "Action",
    "Agent",
    "BusinessHours",
    "Condition",
    "Cooldown",
    "Do",
    "Duration",
    "Ended",
    "Event",
    "Field",
    "Flow",
    "HostClaims",
    "Idle",
    "Message",
    "Observer",
    "OnEvent",
    "OnMention",
    "OnMessage",
    "OnSilence",
    "Outcome",
    "Policies",
    "Repeat",
    "Run",
    "Said",
    "Say",
    "Scheduled",
    "Scope",
    "Session",
    "Skipped",
    "Start",
    "Started",
    "Step",
    "Talk",
    "Trigger",
    "TurnInput",
    "TurnResult",
    "VirtualClock",
    "Wait",
    "Wake",
    "Where",
    "WorkingHours",
]
