"""The chat response guard: who spoke last, and may the chat turn be handed back to the user?

Every rule of spec/llmz/chat-guard.yaml that decides *speaker state* lives here, as pure functions over a
small vocabulary: the last speaker is ``user``, ``assistant``, ``none`` (nobody has spoken in this
session) or ``unknown`` (restored from a snapshot that predates tracking). Only two things move it: a
user message entering a turn, and assistant speech that was actually delivered. The execution loop
calls these functions; it never decides speaker questions itself.
"""

from __future__ import annotations

from typing import Final, Literal

Speaker = Literal["user", "assistant", "none", "unknown"]
DeliveryStatus = Literal["delivered", "failed", "unhandled"]

SPEAKERS: tuple[Speaker, ...] = ("user", "assistant", "none", "unknown")


def is_blank(text: str | None) -> bool:
    """Empty or whitespace-only text never counts as anything said (llmz.chat-guard.whitespace-not-speech)."""
    return text is None or text.strip() == ""


def speaker_after_input(current: Speaker, role: str, content: object) -> Speaker:
    """The last speaker once a turn claims one input message.

    A user message hands the floor to the user (llmz.chat-guard.user-message-resets); events and summaries
    are data, not speech (llmz.chat-guard.events-not-speech). Assistant history supplied as input counts as
    the assistant having spoken when it has visible text.
    """
    if role == "user" and isinstance(content, str | list):  # text or native multipart
        return "user"
    if role == "assistant" and isinstance(content, str) and not is_blank(content):
        return "assistant"
    return current


def speaker_after_delivery(current: Speaker, status: DeliveryStatus, content_is_blank: bool) -> Speaker:
    """Only a delivery a handler acknowledged, with visible content, is speech.

    Rules: llmz.chat-guard.delivery-counts, llmz.chat-guard.failed-delivery-not-speech,
    llmz.chat-guard.whitespace-not-speech, llmz.chat-guard.unhandled-text-not-speech.
    """
    if status == "delivered" and not content_is_blank:
        return "assistant"
    return current


def may_listen(last_speaker: Speaker, require_chat_response: bool) -> bool:
    """Whether exit("listen") (or a blank final answer) may complete the chat turn.

    Rules: llmz.chat-guard.listen-requires-reply (only after the assistant spoke last),
    llmz.chat-guard.opt-out (``requireChatResponse: false`` switches the check off), and
    llmz.chat-guard.legacy-snapshot-unknown (an unknown speaker is not the assistant, so it needs a reply).
    """
    if not require_chat_response:
        return True
    return last_speaker == "assistant"


def guard_applies(mode: str, exit_name: str) -> bool:
    """The guard only protects the chat ``listen`` completion (llmz.chat-guard.custom-exits-unaffected,
    llmz.chat-guard.worker-unaffected)."""
    return mode == "chat" and exit_name == "listen"


def restored_speaker(saved: object) -> Speaker:
    """The last speaker after ``Session.fromJSON``: the saved value when the snapshot tracked deliveries
    (llmz.chat-guard.across-saved-sessions), otherwise unknown (llmz.chat-guard.legacy-snapshot-unknown)."""
    for speaker in SPEAKERS:
        if saved == speaker:
            return speaker
    return "unknown"


SKIP_SENDS_AFTER_FAILED_DELIVERY: Final = True
"""Once a delivery of the iteration failed, later sends of that iteration are skipped while earlier
acknowledged ones stay delivered (llmz.errors.delivery-failed)."""
