"""The chat's speech policy (reference.akan.speech): when to speak, what, and how it is cut short."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from reference.akan import speech
from reference.akan.model import Voice
from reference.clock import VirtualClock
from reference.record import Recorder

POLICY = speech.SpeechPolicy()


def test_only_a_voiced_ask_is_read_aloud() -> None:
    # akan.speech.read-aloud-only-after-voice-ask
    assert POLICY.reads_aloud(True) and not POLICY.reads_aloud(False)


def test_bold_is_pronounced_as_the_word() -> None:
    # akan.speech.markdown-stripped
    assert POLICY.strip_markdown("**bold**") == "bold"
    assert POLICY.strip_markdown("# Title\n- [docs](https://x.y) and `code`") == "Title\ndocs and code"


def test_snake_case_and_arithmetic_are_not_taken_for_emphasis() -> None:
    assert POLICY.strip_markdown("set max_turns_bound to 2 * 3 * 4") == "set max_turns_bound to 2 * 3 * 4"


@given(st.lists(st.sampled_from(["Yes.", "No!", "Why?", "**Bold** move.", "_Quiet_ please."]), min_size=1))
def test_each_sentence_is_one_speak_call(parts: list[str]) -> None:
    # akan.speech.sentence-at-a-time
    spoken = POLICY.sentences(" ".join(parts))
    assert len(spoken) == len(parts)
    assert all("*" not in s and "_" not in s for s in spoken)


def _speaker(ms: int = 1000) -> tuple[speech.Speaker, VirtualClock, Recorder]:
    clock, recorder = VirtualClock(), Recorder()
    return speech.Speaker(Voice(sentence_ms=ms), clock, recorder.emit, POLICY), clock, recorder


def test_sentences_follow_one_another_on_the_clock() -> None:
    speaker, clock, recorder = _speaker()
    speaker.say("One. Two. Three.")
    assert [e["sentence"] for e in recorder.events] == ["One."]
    clock.advance(1000)
    speaker.tick()
    assert [e["sentence"] for e in recorder.events] == ["One.", "Two."]


def test_cancel_drops_the_unspoken_rest_and_is_silent_when_idle() -> None:
    # akan.speech.barge-in
    speaker, clock, recorder = _speaker()
    speaker.cancel("stop")
    assert recorder.events == []
    speaker.say("One. Two. Three.")
    speaker.cancel("mic")
    clock.advance(10_000)
    speaker.tick()
    assert recorder.events[-1] == {"type": "speech_cancelled", "by": "mic", "unspoken": 2}
    assert sum(e["type"] == "speak" for e in recorder.events) == 1


def _press(policy: speech.SpeechPolicy, heard: list[str]) -> tuple[list[str], list[list[str]]]:
    calls: list[list[str]] = []
    return policy.hear(policy.engine(heard, calls.append)), calls


def test_listen_is_a_subscription_the_chat_hears_through_its_handlers() -> None:
    # akan.speech.listen-is-subscription: the engine returns a handle, then reports through the handlers.
    heard, calls = _press(POLICY, ["show invoices", "and receipts"])
    assert heard == ["show invoices", "and receipts"]
    assert calls == [["onResult", "onEnd"]]


def test_a_chat_awaiting_listen_as_a_promise_hears_nothing_from_a_subscription_engine() -> None:
    heard, calls = _press(speech.SpeechPolicy(subscribes=False), ["show invoices"])
    assert heard == [] and calls == [[]]
    assert POLICY.press(heard) == ("", False)


def test_an_engine_reports_through_the_chat_s_own_handler_names_and_stops_when_cancelled() -> None:
    policy = speech.SpeechPolicy(handler_names=("onTranscript", "onDone"))
    assert _press(policy, ["hello"]) == (["hello"], [["onTranscript", "onDone"]])
    got: list[str] = []
    engine = POLICY.engine(["one", "two"], lambda names: None)

    def first_only(text: str) -> None:
        got.append(text)
        cancel()

    cancel = engine.listen({"onResult": first_only})
    engine.report()
    assert got == ["one"]
