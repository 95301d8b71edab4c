"""Plays a llmz scenario against the reference runtime and returns its record.

One ``Session`` is driven through the scenario's steps; every step's observable effects go into one
record (vocabulary: spec/protocol/records/llmz.md). Step failures that llmz reports to the caller
(an invalid append, a session that cannot be restored) are recorded as ``error`` events and the scenario
continues, so scenarios can check what happens next.
"""

from __future__ import annotations

import json
from typing import Any

from conformance.players.common import ProviderFactory, scripted_provider
from conformance.scenario.llmz import (
    AppendStep,
    CompactionSpec,
    CompactStep,
    ExecuteStep,
    MemorySpec,
    SaveAndRestoreStep,
    Setup,
    SummarizeStep,
)
from conformance.scenario.model import LlmzCase
from reference.clock import VirtualClock
from reference.llmz import config as config_module
from reference.llmz import memory, standalone
from reference.llmz.errors import LlmzError
from reference.llmz.execute import Runtime, execute
from reference.llmz.iteration import IterationContext
from reference.llmz.memory import Memory
from reference.llmz.session import Session
from reference.record import Recorder

UNKNOWN_FORMAT_VERSION = 999_999
"""What ``save_and_restore(unknown_version)`` writes: a format version no runtime knows."""

#: Capability flags this reference declares for llmz (scenarios may `require` them).
CAPABILITIES: tuple[str, ...] = ()


def compaction_controls(spec: CompactionSpec | bool) -> dict[str, Any] | None:
    """The session's compaction controls in llmz's own spelling, or None when disabled."""
    if spec is False or spec is True:
        return None if spec is False else compaction_controls(CompactionSpec())
    controls: dict[str, Any] = {
        "triggerRatio": spec.trigger_ratio,
        "targetRatio": spec.target_ratio,
        "keepRecentIterations": spec.keep_recent_iterations,
        "maxSummaryTokens": spec.max_summary_tokens,
    }
    if spec.model is not None:
        controls["model"] = spec.model
    return controls


def initial_memory(spec: MemorySpec) -> Memory:
    """``new Session({ variables, maxBytes })`` (llmz.memory.session-options, llmz.memory.default-limit)."""
    variables = {name: memory.encode_plain(value) for name, value in spec.variables.items()}
    limit = spec.max_bytes if spec.max_bytes is not None else memory.DEFAULT_MAX_BYTES
    return Memory(variables=variables, max_bytes=limit)


class Player:
    def __init__(self, scenario: LlmzCase, provider: ProviderFactory = scripted_provider) -> None:
        self.setup: Setup = scenario.setup
        self.recorder = Recorder()
        self.provider = provider(scenario.script, self.recorder)
        self.clock = VirtualClock()
        self.session = Session(
            compaction=compaction_controls(self.setup.compaction), memory=initial_memory(self.setup.memory)
        )
        self.call_counts: dict[str, int] = {}
        self.executions = 0

    def append(self, step: AppendStep) -> None:
        items = [m.model_dump(exclude_none=True) for m in step.messages]
        try:
            self.session.append(items)
        except LlmzError as error:
            self.recorder.emit("error", step="append", **error.as_record())

    def execute(self, step: ExecuteStep) -> None:
        self.executions += 1
        ctx = IterationContext(
            config=config_module.resolve(self.setup, step),
            session=self.session,
            recorder=self.recorder,
            clock=self.clock,
            call_counts=self.call_counts,
            execution=self.executions,
        )
        execute(ctx, Runtime(self.provider, list(self.setup.models)))

    def save_and_restore(self, step: SaveAndRestoreStep) -> None:
        state = json.loads(json.dumps(self.session.to_json()))
        if step.drop_delivery_tracking:
            state.pop("delivery", None)
        if step.unknown_version:
            state["version"] = UNKNOWN_FORMAT_VERSION
        try:
            self.session = Session.from_json(state)
        except LlmzError as error:
            self.recorder.emit("error", step="save_and_restore", **error.as_record())

    def summarize_or_compact(self, step: SummarizeStep | CompactStep) -> None:
        runtime = Runtime(self.provider, list(self.setup.models))
        try:
            if isinstance(step, CompactStep):
                standalone.compact(self.session, runtime, self.recorder, step.keep_recent_iterations)
            else:
                standalone.summarize(self.session, runtime, self.recorder)
        except LlmzError as error:
            self.recorder.emit("error", step=step.op, **error.as_record())

    def final(self) -> dict[str, Any]:
        return {
            "status": self.session.status,
            "last_speaker": self.session.last_speaker,
            "transcript": self.session.transcript,
            "messages": self.session.messages,
            "pending": len(self.session.pending),
            "variables": sorted(self.session.memory.variables),
        }


def play(scenario: LlmzCase, provider: ProviderFactory = scripted_provider) -> dict[str, Any]:
    from conformance.players import CannotExpress  # the players import this module; avoid a cycle

    player = Player(scenario, provider)
    for step in scenario.steps:
        if isinstance(step, AppendStep):
            player.append(step)
        elif isinstance(step, ExecuteStep):
            player.execute(step)
        elif isinstance(step, SaveAndRestoreStep):
            player.save_and_restore(step)
        elif isinstance(step, SummarizeStep | CompactStep):
            player.summarize_or_compact(step)
        else:
            raise CannotExpress(f"the llmz reference does not implement the {step.op!r} step")
    player.recorder.final = player.final()
    return player.recorder.to_dict()
