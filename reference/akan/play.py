"""Plays an akan scenario against the reference chat session and returns its record."""

from __future__ import annotations

from typing import Any

from conformance.scenario.akan import AttachStep, NoteStep, PersistStep, SendStep, filler
from conformance.scenario.model import AkanScenario
from reference.akan.session import ChatSession
from reference.providers.scripted import ScriptedProvider
from reference.record import Recorder

#: Capability flags this reference declares for akan (scenarios may `require` them).
CAPABILITIES: tuple[str, ...] = ("akan.compaction", "akan.attachments", "akan.local-notes")


def play(scenario: AkanScenario) -> dict[str, Any]:
    recorder = Recorder()
    session = ChatSession(scenario.setup, ScriptedProvider(scenario.script, recorder), recorder)
    for step in scenario.steps:
        if isinstance(step, AttachStep):
            for file in step.files:
                session.attach(file)
        elif isinstance(step, SendStep):
            session.send(step.text + filler(step.filler_chars))
        elif isinstance(step, NoteStep):
            session.note(step.text)
        elif isinstance(step, PersistStep):
            session.persist()
    recorder.final = session.final()
    return recorder.to_dict()
