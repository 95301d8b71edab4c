"""Mutants of the chat's speech policy."""

from __future__ import annotations

from unittest import mock

from reference.akan import speech
from reference.akan.session import ChatSession
from reference.mutants import Mutant

_mic = ChatSession.mic


def _mic_sends(self: ChatSession, heard: list[str]) -> None:
    """Sends what was heard at once, every utterance of the press joined, instead of leaving it to edit."""
    _mic(self, [" ".join(heard)])
    if self.draft:
        self.send_draft(None)


MUTANTS: list[Mutant] = [
    Mutant(
        "akan-speaks-typed-asks",
        ("akan.speech.read-aloud-only-after-voice-ask", "akan.speech.parked-card-read-aloud"),
        lambda: mock.patch.object(speech, "reads_aloud", lambda voiced: True),
        "every reply is read aloud, typed asks included",
    ),
    Mutant(
        "akan-markdown-spoken",
        ("akan.speech.markdown-stripped",),
        lambda: mock.patch.object(speech, "strip_markdown", lambda text: text),
        "markdown markup is handed to the engine as it is written",
    ),
    Mutant(
        "akan-reply-spoken-whole",
        ("akan.speech.sentence-at-a-time",),
        lambda: mock.patch.object(
            speech, "sentences", lambda text: [" ".join(speech.strip_markdown(text).split())]
        ),
        "the whole reply goes to the engine in one speak call",
    ),
    Mutant(
        "akan-no-barge-in",
        ("akan.speech.barge-in",),
        lambda: mock.patch.object(speech.Speaker, "cancel", lambda self, by: None),
        "neither the microphone nor Stop interrupts a reply being read",
    ),
    Mutant(
        "akan-voice-sent-at-once",
        ("akan.speech.press-to-talk-into-composer",),
        lambda: mock.patch.object(ChatSession, "mic", _mic_sends),
        "what the microphone heard is sent straight away, every utterance of the press included",
    ),
    Mutant(
        "akan-mic-when-unavailable",
        ("akan.speech.unavailable-renders-no-mic",),
        lambda: mock.patch.object(ChatSession, "microphone", lambda self: self.setup.voice is not None),
        "an engine answering available() false still gets a microphone",
    ),
]
