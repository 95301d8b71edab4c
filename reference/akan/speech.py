"""The chat's speech policy, and the thin shell that feeds a ``VoiceEngine`` by it.

The engine only listens and speaks; every decision is the chat's (akan.speech.voice-engine-contract).
Whether to speak at all depends on how the ask arrived: only a voiced ask is answered aloud, and the same
holds for a question card the loop stopped on (akan.speech.read-aloud-only-after-voice-ask,
akan.speech.parked-card-read-aloud). What is spoken is the text with its markdown taken out
(akan.speech.markdown-stripped), handed over one sentence at a time (akan.speech.sentence-at-a-time) so that
the next press of the microphone, or Stop, can cut it short between or during sentences
(akan.speech.barge-in). The engine's ``listen`` is a subscription (akan.speech.listen-is-subscription): the
chat hands it handlers and takes what was heard from them, and what ``listen`` returns is only the handle
that ends the listening, never a promise of the transcript. None of this reaches the wire
(akan.speech.no-wire-field-for-voice): the voice flag lives beside the composer, never in a message.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from reference.akan.model import Voice
from reference.clock import VirtualClock

_MARKDOWN = [
    (re.compile(r"```[^\n]*\n?(.*?)```", re.S), r"\1"),       # fenced code: keep the code
    (re.compile(r"!?\[([^\]]*)\]\([^)]*\)"), r"\1"),           # links and images: keep the label
    (re.compile(r"^\s{0,3}#{1,6}\s+", re.M), ""),              # heading markers
    (re.compile(r"^\s{0,3}>\s?", re.M), ""),                   # quote markers
    (re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+", re.M), ""),       # list bullets and numbers
    (re.compile(r"(\*\*|__)(.+?)\1", re.S), r"\2"),            # strong
    (re.compile(r"(?<![\w*])([*_])(?!\s)(.+?)(?<!\s)\1(?![\w*])", re.S), r"\2"),  # emphasis
    (re.compile(r"~~(.+?)~~", re.S), r"\1"),                   # strike-through
    (re.compile(r"`([^`]*)`"), r"\1"),                         # inline code
]
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")

Emit = Callable[..., Any]
"""Where the speaker reports what it hands the engine (the session's event sink)."""
Handlers = Mapping[str, Callable[..., None]]
"""What the chat hands ``listen``: callbacks by name (the documents leave the names open)."""


class PressEngine:
    """The voice engine's listening side for one press of the microphone, scripted with what it hears.

    A subscription engine: ``listen`` returns at once with the function that ends the listening, and the
    engine then reports each result through the result handler it was given and ends with the end handler.
    ``names`` are those two handlers' names as the chat defines them (an engine speaks its chat's
    contract); ``observed`` is told the names of the callbacks each ``listen`` call was handed.
    """

    def __init__(
        self, heard: Sequence[str], observed: Callable[[list[str]], None], names: tuple[str, str]
    ) -> None:
        self.heard, self.observed = list(heard), observed
        self.on_result, self.on_end = names
        self.handlers: dict[str, Callable[..., None]] = {}
        self.cancelled = False

    def listen(self, handlers: Handlers) -> Callable[[], None]:
        self.observed([name for name, value in handlers.items() if callable(value)])
        self.handlers = dict(handlers)
        return self.cancel

    def cancel(self) -> None:
        self.cancelled = True

    def report(self) -> None:
        """Recognition happens after ``listen`` has returned: each result, then the end."""
        for text in self.heard:
            if not self.cancelled and self.on_result in self.handlers:
                self.handlers[self.on_result](text)
        if not self.cancelled and self.on_end in self.handlers:
            self.handlers[self.on_end]()


@dataclass(frozen=True)
class SpeechPolicy:
    """Every speech decision the chat makes; the engine only listens and speaks.

    ``cut_off_by`` are the inputs that stop speech in progress (akan.speech.barge-in).
    """

    cut_off_by: frozenset[str] = frozenset({"mic", "stop"})
    subscribes: bool = True
    """akan.speech.listen-is-subscription: ``listen`` is handed handlers and reports through them (False:
    it is called bare and what it returns is awaited as the transcript, the ``listen(): Promise`` shape)."""
    handler_names: tuple[str, str] = ("onResult", "onEnd")
    """The result and end callbacks the chat hands ``listen`` (akan.speech.listen-is-subscription
    #open_question: the documents give no names)."""

    def engine(self, heard: Sequence[str], observed: Callable[[list[str]], None]) -> PressEngine:
        """The engine's listening side for one press, speaking this chat's handler names."""
        return PressEngine(heard, observed, self.handler_names)

    def hear(self, engine: PressEngine) -> list[str]:
        """What one press of the microphone hears, taken from the engine as its contract says.

        akan.speech.listen-is-subscription: the chat subscribes with its handlers and collects each result
        they are given; what ``listen`` returns is the handle that would end the listening, not a result.
        """
        heard: list[str] = []
        if not self.subscribes:
            returned: object = engine.listen({})
            engine.report()
            return [returned] if isinstance(returned, str) else []
        on_result, on_end = self.handler_names
        engine.listen({on_result: heard.append, on_end: lambda: None})
        engine.report()
        return heard

    def has_microphone(self, voice: Voice | None) -> bool:
        """akan.speech.unavailable-renders-no-mic: no engine, or one not available, draws no microphone."""
        return voice is not None and voice.available

    def reads_aloud(self, voiced: bool) -> bool:
        """akan.speech.read-aloud-only-after-voice-ask, akan.speech.parked-card-read-aloud: a typed ask
        never turns the speakers on."""
        return voiced

    def press(self, heard: Sequence[str]) -> tuple[str, bool]:
        """What one press of the microphone leaves: the draft, and whether it is sent at once.

        akan.speech.press-to-talk-into-composer: the first utterance heard lands in the composer, unsent,
        so the user can correct it.
        """
        return (heard[0] if heard else ""), False

    def strip_markdown(self, text: str) -> str:
        """akan.speech.markdown-stripped: ``**bold**`` is spoken as ``bold``; markup is never voiced."""
        for pattern, replacement in _MARKDOWN:
            text = pattern.sub(replacement, text)
        return text

    def sentences(self, text: str) -> list[str]:
        """akan.speech.sentence-at-a-time: what one ``speak`` call gets, markdown already gone.

        The documents do not say how text is split; the reference ends a sentence at ., ! or ? followed
        by white space, and at each line break.
        """
        plain = self.strip_markdown(text)
        parts = [p for line in plain.splitlines() for p in _SENTENCE_END.split(line)]
        return [" ".join(part.split()) for part in parts if part.strip()]


class Speaker:
    """The engine's speaking side on the virtual clock: one sentence at a time, cancellable."""

    def __init__(self, voice: Voice, clock: VirtualClock, emit: Emit, policy: SpeechPolicy) -> None:
        self.voice, self.clock, self.emit, self.policy = voice, clock, emit, policy
        self.queue: list[str] = []
        self.busy_until = 0

    def say(self, text: str) -> None:
        """Queue a reply (or a card) for reading; the first sentence goes to the engine at once."""
        if not self.speaking():
            self.busy_until = self.clock.now_ms()
        self.queue.extend(self.policy.sentences(text))
        self.tick()

    def tick(self) -> None:
        """Hand over every sentence whose turn has come by now."""
        while self.queue and self.clock.now_ms() >= self.busy_until:
            self.emit("speak", sentence=self.queue.pop(0))
            self.busy_until += self.voice.sentence_ms

    def speaking(self) -> bool:
        return bool(self.queue) or self.clock.now_ms() < self.busy_until

    def cancel(self, by: str) -> None:
        """akan.speech.barge-in: the sentence being spoken stops and the rest are never handed over."""
        if by not in self.policy.cut_off_by:
            return
        if self.speaking():
            self.emit("speech_cancelled", by=by, unspoken=len(self.queue))
        self.queue, self.busy_until = [], 0
