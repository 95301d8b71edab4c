"""Permitted variants of the akan reference: allowed choices every akan scenario must accept.

Each one is the reference choosing differently where the guideline leaves the choice open (a rule's
``open_question``, a wording it does not give, a shape it does not fix). A scenario that rejects one of
these pins the reference, not the guideline.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any
from unittest import mock

from conformance.scenario.akan import Accepts
from reference.akan import attachments, builtins, compaction, cut, read_screen, wire
from reference.akan.declarations import declared, published
from reference.akan.page import Page
from reference.akan.session import ChatSession
from reference.akan.wire import Message, json_text
from variants import Permitted, Record
from variants.records import extra_event_and_final_fields

_SESSION = "reference.akan.session"


# -- compaction -------------------------------------------------------------------------------------------

_provider_message = attachments.provider_message


def _summary_with_header(message: Message, accepts: Accepts) -> Message:
    """A provider mapping that frames the summary as a system message opening with a header line."""
    mapped = _provider_message(message, accepts)
    if message.get("summary"):
        mapped["content"] = "Summary of the earlier conversation:\n" + str(mapped["content"])
    return mapped


def _tool_batches_as_one(roles: Sequence[str], keep: int) -> int | None:
    """``keep`` counts a run of tool results as one message (one tool message per batch of calls)."""
    folded: list[str] = []
    index_of: list[int] = []
    for index, role in enumerate(roles):
        if role == "tool" and folded and folded[-1] == "tool":
            continue
        folded.append(role)
        index_of.append(index)
    found = cut.choose_cut(folded, keep)
    return None if found is None else (index_of[found] if found < len(index_of) else len(roles))


_real_choose_cut = cut.choose_cut


def _latest_user_cut(roles: Sequence[str], keep: int) -> int | None:
    """Among several user messages in the kept tail, the cut lands on the newest one."""
    first = _real_choose_cut(roles, keep)
    if first is None or keep == 0 or roles[first] != "user":
        return first
    users = [i for i in range(first, len(roles)) if roles[i] == "user"]
    return users[-1]


def _inclusive_threshold(estimate: int, at: int, held_at: int | None) -> bool:
    """An estimate equal to ``compact.at`` already counts as past it."""
    if at == 0 or estimate < at:
        return False
    return held_at is None or estimate > held_at + at


_real_on_wire = wire.on_wire


def _wire_with_ids(transcript: list[Message]) -> list[Message]:
    """Every posted message also carries an id and a creation time: a bigger JSON shape to estimate."""
    return [
        {**message, "id": f"msg_{index:06d}", "createdAt": "2026-01-05T12:00:00.000Z"}
        for index, message in enumerate(_real_on_wire(transcript), start=1)
    ]


def _compact_inside_running(self: ChatSession, command: Any) -> bool:
    """``/compact`` raises ``isRunning`` too while its summary is written."""
    name = command.name
    if name != "compact":
        return _real_command(self, command)
    self._status(running=True)
    try:
        self._compact(keep=0, trigger="command")
    finally:
        self._status(running=False)
    return True


_real_command = ChatSession._command


# -- Stop and sanitize --------------------------------------------------------------------------------------

_real_abort = ChatSession._abort


def _abort_answers_running_call(self: ChatSession) -> None:
    """Stop lands the race at once: the call that was running gets its own answer, in other words."""
    if self.waiting is not None and self.waiting.question is None and self.waiting.calls:
        running = self.waiting.calls[0]
        self.transcript.append({
            "role": "tool", "tool_call_id": running["id"],
            "content": json_text({"aborted": True, "note": "Cancelled by the user while it ran."}),
        })
    _real_abort(self)


# -- readScreen -------------------------------------------------------------------------------------------

_real_read_screen = read_screen.read_screen
_MARKED = re.compile(r"\[(button|input|select|textarea|checkbox|radio)([^\]:]*): ([^\]]*)\] \(disabled\)")


def _disabled_first(root: Any, section: str | None) -> str:
    """The marker sits inside the control's token, before its label: ``[button (disabled): Refund]``."""
    return _MARKED.sub(r"[\1 (disabled)\2: \3]", _real_read_screen(root, section))


_real_limit = read_screen.limit


def _limit_body_only(lines: list[read_screen.Line], max_chars: int | None = None) -> str:
    """The 8000 characters bound the page text; the list of headings below the cut comes on top."""
    cap = read_screen.MAX_CHARS if max_chars is None else max_chars
    text = "\n".join(line.text for line in lines)
    if len(text) <= cap:
        return text
    body, kept, below = "", 0, []
    for index, line in enumerate(lines):
        candidate = (body + "\n" if index else "") + line.text
        if len(candidate) > cap:
            break
        body, kept = candidate, index + 1
    below = [line.heading for line in lines[kept:] if line.level is not None]
    return (body or lines[0].text[:cap]) + "\n\nNot shown (ask for one by name): " + ", ".join(below)


# -- tools and refusals -----------------------------------------------------------------------------------

_EXTRA_BUILTIN = {
    "name": "listSections", "description": "List the named sections on the screen.",
    "parameters": {"type": "object", "properties": {}, "required": []},
}


def _zone_prefixed(tools: Sequence[Any]) -> list[dict[str, Any]]:
    """A tool mounted in a zone is published under its zone's name as a prefix: ``billing.payInvoice``."""
    return [
        {**declared(tool), "name": f"{tool.zone}.{name}"} if tool.zone else declared(tool)
        for name, tool in published(tools).items()
    ]


def _reworded_refusals(record: Record) -> Record:
    """Tool refusals say so in other words: no ``error`` key, a ``refused`` note instead."""
    changed = copy.deepcopy(record)

    def reword(text: Any) -> Any:
        if not isinstance(text, str) or not text.startswith("{"):
            return text
        try:
            value = json.loads(text)
        except ValueError:
            return text
        if not isinstance(value, dict) or "error" not in value or value.get("error") == "stopped":
            return text
        rest = {k: v for k, v in value.items() if k != "error"}
        return json_text({"refused": f"Not possible: {value['error']}", **rest})

    for event in changed.get("events", []):
        if event.get("type") == "tool_result":
            event["content"] = reword(event.get("content"))
        for message in event.get("messages") or []:
            if isinstance(message, dict) and message.get("role") == "tool":
                message["content"] = reword(message.get("content"))
        for message in event.get("transcript") or []:
            if isinstance(message, dict) and message.get("role") == "tool":
                message["content"] = reword(message.get("content"))
    for message in changed.get("final", {}).get("transcript") or []:
        if message.get("role") == "tool":
            message["content"] = reword(message.get("content"))
    return changed


def _go_back_stays(self: Any, name: str, arguments: dict[str, Any]) -> str:
    """``goBack`` at the first page of the session answers where the page is instead of an error."""
    answer = _real_run_builtin(self, name, arguments)
    if name == "goBack" and '"error"' in answer:
        return json_text({"route": self.route, "note": "already at the first page of this session"})
    return answer


_real_run_builtin: Callable[..., str] = Page.run_builtin


def _persist_with_mime(message: Message) -> Message:
    """Saving keeps each attachment's name and MIME type; the bytes and the text are still dropped."""
    if not message.get("attachments"):
        return dict(message)
    return {**message, "attachments": [
        {"name": a["name"], **({"mime": a["mime"]} if "mime" in a else {})} for a in message["attachments"]
    ]}


def _help_reworded(self: ChatSession, command: Any) -> bool:
    """``/help`` and ``/tools`` write their local notes in other words."""
    if command.name == "help":
        self.note("You can type: " + " ".join(self.commands()))
        return True
    if command.name == "tools":
        self.note("This screen offers " + str(len(self.declarations)) + " tools of its own.")
        return True
    return _real_command(self, command)


def _max_turns_one_more(self: ChatSession) -> int:
    """``maxTurns`` counts rounds of tool calls: the request after the last round still goes out."""
    return (self.setup.max_turns or 100) + 1


def _patch(target: str, new: object) -> Callable[[], AbstractContextManager[object]]:
    return lambda: mock.patch(target, new)


PERMITTED: list[Permitted] = [
    Permitted(
        name="akan-extra-record-fields",
        system="akan",
        exercises=("protocol:extra-fields",),
        description="every event and the final state carry a field the record vocabulary does not list",
        transform=extra_event_and_final_fields,
    ),
    Permitted(
        name="akan-summary-header-line",
        system="akan",
        exercises=("akan.compaction.summary-as-system-for-provider",),
        description="the provider's system message opens with a header line before the summary text",
        patch=_patch(f"{_SESSION}.provider_message", _summary_with_header),
    ),
    Permitted(
        name="akan-persist-keeps-mime",
        system="akan",
        exercises=("akan.attachments.persist-names-only",),
        description="a saved attachment keeps its MIME type beside its name; its content is still dropped",
        patch=_patch(f"{_SESSION}.persisted", _persist_with_mime),
    ),
    Permitted(
        name="akan-disabled-marker-inside-token",
        system="akan",
        exercises=("akan.builtin.read-screen-compact-text", "akan.form.read-screen-marks-disabled"),
        description="readScreen writes the marker inside the control's token: [button (disabled): Refund]",
        patch=_patch("reference.akan.page.read_screen", _disabled_first),
    ),
    Permitted(
        name="akan-running-call-answered-otherwise",
        system="akan",
        exercises=("akan.sanitize.stopped-calls-answered-not-erased#open_question",
                   "akan.builtin.stop-races-running-tool"),
        description="Stop answers the call that was running at once, in words without 'stopped'",
        patch=_patch(f"{_SESSION}.ChatSession._abort", _abort_answers_running_call),
    ),
    Permitted(
        name="akan-keep-counts-tool-batches",
        system="akan",
        exercises=("akan.compaction.summary-replaces-history#open_question",),
        description="keep counts one tool message per batch of results rather than each result",
        patch=_patch(f"{_SESSION}.choose_cut", _tool_batches_as_one),
    ),
    Permitted(
        name="akan-cut-on-newest-user",
        system="akan",
        exercises=("akan.compaction.cut.prefers-user#open_question",),
        description="with several user messages in the kept tail the cut lands on the newest one",
        patch=_patch(f"{_SESSION}.choose_cut", _latest_user_cut),
    ),
    Permitted(
        name="akan-threshold-inclusive",
        system="akan",
        exercises=("akan.compaction.threshold.past#open_question",),
        description="an estimate equal to compact.at already counts as past it",
        patch=lambda: mock.patch.object(compaction, "should_compact", _inclusive_threshold),
    ),
    Permitted(
        name="akan-default-24576",
        system="akan",
        exercises=("akan.compaction.threshold.default#open_question",),
        description="the default threshold '24k' is read as 24 x 1024 = 24,576 estimated tokens",
        patch=lambda: mock.patch.object(compaction, "DEFAULT_AT_TOKENS", 24_576),
    ),
    Permitted(
        name="akan-message-ids-on-wire",
        system="akan",
        exercises=("akan.compaction.estimate.four-chars-per-token#open_question",),
        description="every posted message carries an id and a timestamp, so the JSON estimated is larger",
        patch=_patch(f"{_SESSION}.on_wire", _wire_with_ids),
    ),
    Permitted(
        name="akan-smaller-digest",
        system="akan",
        exercises=("akan.compaction.summarizer.bounded-digest#open_question",),
        description="the summarizer's digest is bounded at 4000 characters, 300 per message",
        patch=lambda: mock.patch.multiple(compaction, DIGEST_MAX_CHARS=4000, DIGEST_MESSAGE_CHARS=300),
    ),
    Permitted(
        name="akan-compact-command-inside-running",
        system="akan",
        exercises=("akan.compaction.is-compacting#open_question",),
        description="/compact raises isRunning as well as isCompacting while its summary is written",
        patch=_patch(f"{_SESSION}.ChatSession._command", _compact_inside_running),
    ),
    Permitted(
        name="akan-read-limit-excludes-heading-list",
        system="akan",
        exercises=("akan.readscreen.character-limit#open_question",),
        description="the 8000 characters bound the page text; the list of headings below the cut is extra",
        patch=_patch("reference.akan.read_screen.limit", _limit_body_only),
    ),
    Permitted(
        name="akan-extra-builtin-tool",
        system="akan",
        exercises=("akan.builtin.five-on-every-surface",),
        description="the chat offers a sixth built-in tool (listSections) beside the five documented ones",
        patch=lambda: mock.patch.object(builtins, "BUILTIN_TOOLS", (*builtins.BUILTIN_TOOLS, _EXTRA_BUILTIN)),
    ),
    Permitted(
        name="akan-refusals-reworded",
        system="akan",
        exercises=("protocol:wording",),
        description="tool refusals carry their reason under 'refused' in other words, never the word 'error'",
        transform=_reworded_refusals,
    ),
    Permitted(
        name="akan-go-back-at-start-stays",
        system="akan",
        exercises=("akan.builtin.go-back-session-history-everywhere#open_question",),
        description="goBack at the session's first page answers where the page is instead of an error",
        patch=_patch("reference.akan.page.Page.run_builtin", _go_back_stays),
    ),
    Permitted(
        name="akan-command-notes-reworded",
        system="akan",
        exercises=("akan.local.withheld-from-wire", "protocol:wording"),
        description="/help and /tools answer with local notes worded differently",
        patch=_patch(f"{_SESSION}.ChatSession._command", _help_reworded),
    ),
    Permitted(
        name="akan-zone-tools-scope-prefixed",
        system="akan",
        exercises=("akan.zone.inner-declarations-join-zone#open_question",),
        description="a tool mounted in a zone is published under a zone-prefixed name (billing.payInvoice)",
        patch=_patch(f"{_SESSION}.page_entries", _zone_prefixed),
    ),
    Permitted(
        name="akan-max-turns-counts-tool-rounds",
        system="akan",
        exercises=("akan.builtin.max-turns-bound#open_question",),
        description="maxTurns bounds rounds of tool calls, so one more request goes out after the last round",
        patch=_patch(f"{_SESSION}.ChatSession.max_turns", _max_turns_one_more),
    ),
]
