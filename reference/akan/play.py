"""Plays an akan scenario against the reference chat session and returns its record."""

from __future__ import annotations

from typing import Any

from conformance.players.common import ProviderFactory, scripted_provider
from conformance.scenario.akan import (
    AdvanceStep,
    AttachStep,
    MicStep,
    NoteStep,
    PersistStep,
    ReloadStep,
    ReportStep,
    SendDraftStep,
    SendStep,
    Step,
    StopStep,
    UnmountStep,
    filler,
)
from conformance.scenario.model import AkanCase
from reference.akan.session import ChatSession
from reference.clock import parse_duration_ms
from reference.providers.scripted import ScriptExhausted
from reference.record import Recorder

#: Capability flags this reference declares for akan (scenarios may `require` them).
CAPABILITIES: tuple[str, ...] = (
    "akan.compaction", "akan.attachments", "akan.local-notes", "akan.stop", "akan.storage", "akan.commands",
    "akan.relay", "akan.voice",
)


def play(scenario: AkanCase, provider: ProviderFactory = scripted_provider) -> dict[str, Any]:
    """Run the steps in order; the record is returned even when the script runs out.

    A model call beyond the script ends the run with a ``script_exhausted`` event rather than an exception,
    so the expectations are still judged and a failure names the rule whose behaviour made the extra call.
    """
    recorder = Recorder()
    session = ChatSession(scenario.setup, provider(scenario.script, recorder), recorder)
    try:
        for step in scenario.steps:
            _step(session, step)
    except ScriptExhausted as exhausted:
        recorder.emit("script_exhausted", call=exhausted.call, message=str(exhausted))
    recorder.final = session.final()
    return recorder.to_dict()


def _step(session: ChatSession, step: Step) -> None:
    if isinstance(step, AttachStep):
        for file in step.files:
            session.attach(file)
    elif isinstance(step, SendStep):
        session.send(step.text + filler(step.filler_chars))
    elif isinstance(step, NoteStep):
        session.note(step.text)
    elif isinstance(step, ReportStep):
        session.report(step.message)
    elif isinstance(step, PersistStep):
        session.persist(step.cap)
    elif isinstance(step, ReloadStep):
        session.reload()
    elif isinstance(step, StopStep):
        session.stop()
    elif isinstance(step, UnmountStep):
        session.unmount(step.tools, step.state)
    elif isinstance(step, MicStep):
        session.mic(step.heard)
    elif isinstance(step, SendDraftStep):
        session.send_draft(step.edit)
    elif isinstance(step, AdvanceStep):
        session.advance(parse_duration_ms(step.by))
