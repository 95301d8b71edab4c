"""Mutants of the chat's speech policy."""

from __future__ import annotations

from collections.abc import Sequence

from reference.akan.model import Voice
from reference.akan.speech import SpeechPolicy
from variants import Mutant
from variants.mutants.akan.common import mutant


class _SpeaksTypedAsks(SpeechPolicy):
    def reads_aloud(self, voiced: bool) -> bool:
        return True


class _MarkdownSpoken(SpeechPolicy):
    def strip_markdown(self, text: str) -> str:
        return text


class _ReplySpokenWhole(SpeechPolicy):
    def sentences(self, text: str) -> list[str]:
        return [" ".join(self.strip_markdown(text).split())]


class _VoiceSentAtOnce(SpeechPolicy):
    """Sends what was heard at once, every utterance of the press joined, instead of leaving it to edit."""

    def press(self, heard: Sequence[str]) -> tuple[str, bool]:
        draft = " ".join(heard)
        return draft, bool(draft)


class _MicWhenUnavailable(SpeechPolicy):
    def has_microphone(self, voice: Voice | None) -> bool:
        return voice is not None


MUTANTS: list[Mutant] = [
    mutant(
        "akan-speaks-typed-asks",
        ("akan.speech.read-aloud-only-after-voice-ask", "akan.speech.parked-card-read-aloud"),
        "every reply is read aloud, typed asks included",
        speech=_SpeaksTypedAsks(),
    ),
    mutant(
        "akan-markdown-spoken",
        "akan.speech.markdown-stripped",
        "markdown markup is handed to the engine as it is written",
        speech=_MarkdownSpoken(),
    ),
    mutant(
        "akan-reply-spoken-whole",
        "akan.speech.sentence-at-a-time",
        "the whole reply goes to the engine in one speak call",
        speech=_ReplySpokenWhole(),
    ),
    mutant(
        "akan-no-barge-in",
        "akan.speech.barge-in",
        "neither the microphone nor Stop interrupts a reply being read",
        speech=SpeechPolicy(cut_off_by=frozenset()),
    ),
    mutant(
        "akan-voice-sent-at-once",
        "akan.speech.press-to-talk-into-composer",
        "what the microphone heard is sent straight away, every utterance of the press included",
        speech=_VoiceSentAtOnce(),
    ),
    mutant(
        "akan-listen-awaited-as-promise",
        "akan.speech.listen-is-subscription",
        "listen is called with no handlers and what it returns is awaited as the transcript",
        speech=SpeechPolicy(subscribes=False),
    ),
    mutant(
        "akan-mic-when-unavailable",
        "akan.speech.unavailable-renders-no-mic",
        "an engine answering available() false still gets a microphone",
        speech=_MicWhenUnavailable(),
    ),
]
