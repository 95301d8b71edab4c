"""The chat response guard's pure policy (reference.llmz.guard), rule by rule."""

from __future__ import annotations

import pytest

from reference.llmz import guard


def test_listen_requires_the_assistant_to_have_spoken_last() -> None:
    assert guard.may_listen("assistant", require_chat_response=True)
    for speaker in ("user", "none", "unknown"):
        assert not guard.may_listen(speaker, require_chat_response=True), speaker


def test_opting_out_allows_listening_after_anyone() -> None:
    for speaker in guard.SPEAKERS:
        assert guard.may_listen(speaker, require_chat_response=False)


@pytest.mark.parametrize(
    ("mode", "exit_name", "applies"),
    [
        ("chat", "listen", True),
        ("chat", "escalate", False),
        ("worker", "listen", False),
        ("worker", "done", False),
    ],
)
def test_guard_only_protects_the_chat_listen_exit(mode: str, exit_name: str, applies: bool) -> None:
    assert guard.guard_applies(mode, exit_name) is applies


def test_only_acknowledged_visible_deliveries_are_speech() -> None:
    assert guard.speaker_after_delivery("user", "delivered", content_is_blank=False) == "assistant"
    assert guard.speaker_after_delivery("user", "failed", content_is_blank=False) == "user"
    assert guard.speaker_after_delivery("user", "unhandled", content_is_blank=False) == "user"
    assert guard.speaker_after_delivery("user", "delivered", content_is_blank=True) == "user"


def test_user_messages_reset_and_events_or_summaries_do_not() -> None:
    assert guard.speaker_after_input("assistant", "user", "hi") == "user"
    assert guard.speaker_after_input("assistant", "event", None) == "assistant"
    assert guard.speaker_after_input("assistant", "summary", "earlier") == "assistant"
    assert guard.speaker_after_input("user", "assistant", "   ") == "user"


@pytest.mark.parametrize("text", ["", " ", "\n\t ", None])
def test_blank_text(text: str | None) -> None:
    assert guard.is_blank(text)


def test_visible_text_is_not_blank() -> None:
    assert not guard.is_blank(" ok ")


def test_restored_speaker_keeps_tracked_values_and_marks_the_rest_unknown() -> None:
    for speaker in guard.SPEAKERS:
        assert guard.restored_speaker(speaker) == speaker
    assert guard.restored_speaker(None) == "unknown"
    assert guard.restored_speaker("robot") == "unknown"
