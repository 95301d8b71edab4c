"""``Transcript.sanitize``: every tool call on the wire has its result, every result has its call.

Theory of operation. Providers refuse a conversation in which an assistant message's ``tool_calls`` are
not each followed by a ``tool`` message answering them, and they refuse it on every later turn too, so one
hole would end the chat. Holes are made in several places (Stop between a call and its result, a save
taken mid-turn, a stored transcript capped so that its window opens between a call and its results), and
rather than patch each, one pure function repairs any transcript and runs wherever one is put together:
the turn's own request, a restore from storage, a capped store (akan.sanitize.single-function).

A call's results are the ``tool`` messages in the run that directly follows its assistant message (local
messages in that run are transparent: they never reach the wire). Within that run:

* a result answering one of the calls is kept, the first one only for each call;
* a ``tool`` message answering none of them, or found anywhere else, is an orphan and is dropped -- the
  documents leave open what to do with it (akan.sanitize.runs-on-capped-store), and a result without its
  call is refused by providers just like a call without its result;
* each call left without a result is *answered*, never erased (akan.sanitize.stopped-calls-answered-not-
  erased), after the run's existing messages, in call order: a model told a call was stopped asks again,
  while one shown no call at all carries on as if it had the result.
"""

from __future__ import annotations

from typing import Any

from reference.akan.model import Message
from reference.akan.wire import json_text

#: akan.sanitize.stopped-calls-answered-not-erased: the wording is ours (the documents give none); what
#: every implementation must share is that the result says the call was stopped.
STOPPED_RESULT = json_text(
    {"error": "stopped", "message": "The user pressed Stop before this call returned; it may not have run."}
)


def stopped_result(call_id: str, content: str = STOPPED_RESULT) -> Message:
    """The synthetic answer to a call that never produced a result."""
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def _call_ids(message: Message) -> list[str]:
    if message.get("role") != "assistant":
        return []
    return [str(call["id"]) for call in message.get("tool_calls") or []]


def _answer_block(calls: list[str], block: list[Message], stopped: str) -> list[Message]:
    """The run after an assistant message, cleaned: matching results once, locals kept, gaps answered."""
    answered: set[str] = set()
    kept: list[Message] = []
    for message in block:
        if message.get("role") == "tool":
            call_id = str(message.get("tool_call_id"))
            if call_id not in calls or call_id in answered:
                continue
            answered.add(call_id)
        kept.append(message)
    unanswered = [call_id for call_id in dict.fromkeys(calls) if call_id not in answered]
    missing = [stopped_result(call_id, stopped) for call_id in unanswered]
    return kept + missing


def sanitize(transcript: list[Message], stopped: str = STOPPED_RESULT) -> list[Message]:
    """The transcript with every hole repaired; a sound transcript comes back equal to what went in.

    ``stopped`` is the content of the answer given to a call left without a result.

    akan.sanitize.single-function, akan.sanitize.no-unanswered-tool-calls-on-wire,
    akan.sanitize.stopped-calls-answered-not-erased.
    """
    out: list[Message] = []
    index = 0
    while index < len(transcript):
        message = transcript[index]
        index += 1
        if message.get("role") == "tool":
            continue  # an orphan: no assistant message directly before its run called it
        out.append(message)
        calls = _call_ids(message)
        if not calls:
            continue
        end = index
        while end < len(transcript) and transcript[end].get("role") in ("tool", "local"):
            end += 1
        out.extend(_answer_block(calls, transcript[index:end], stopped))
        index = end
    return out


def window(transcript: list[Message], newest: int) -> list[Message]:
    """The newest ``newest`` messages of a transcript, as a capped store keeps them."""
    if newest < 0:
        raise ValueError(f"a store cap counts messages and cannot be negative (got {newest})")
    return transcript[max(0, len(transcript) - newest) :] if newest else []


def cap(transcript: list[Message], newest: int, stopped: str = STOPPED_RESULT) -> list[Message]:
    """A stored transcript cut down to its newest ``newest`` messages, then sanitized.

    akan.sanitize.runs-on-capped-store: the window can open between a call and its results, leaving
    results whose call fell outside it; sanitizing drops those so the store never holds an orphan.
    """
    return sanitize(window(transcript, newest), stopped)


def left_for_sanitize(calls: list[dict[str, Any]], question: str | None) -> list[Message]:
    """What Stop writes for the calls it cuts off: nothing.

    akan.sanitize.single-function: the hole Stop leaves is answered by ``sanitize`` wherever a transcript
    is assembled next, not where it is made (the documents leave open how a running call is answered).
    """
    return []
