"""Permitted variants of the akan reference: allowed choices every akan scenario must accept.

Each one is the reference choosing differently where the guideline leaves the choice open (a rule's
``open_question``, a wording it does not give, a shape it does not fix). A scenario that rejects one of
these pins the reference, not the guideline.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from reference.akan import attachments
from reference.akan.attachments import CanRead
from reference.akan.builtins import BUILTIN_NAMES, BUILTIN_TOOLS, Builtins
from reference.akan.ceilings import Candidate, Ceilings
from reference.akan.commands import CommandTable
from reference.akan.cut import choose_cut
from reference.akan.declarations import Declarations
from reference.akan.html_tree import Element
from reference.akan.model import Accepts, File, Guide, Message, PageTool
from reference.akan.placement import Placement
from reference.akan.policies import AkanPolicies
from reference.akan.sanitize import STOPPED_RESULT, sanitize
from reference.akan.screen import Line, ScreenReader
from reference.akan.speech import SpeechPolicy
from reference.akan.wire import json_text, on_wire
from variants import Permitted, PolicyChange, Record
from variants.records import EXTRA, extra_event_and_final_fields


def _change(**fields: Any) -> PolicyChange:
    """A policy change replacing ``fields`` of ``AkanPolicies``."""

    def apply(policies: AkanPolicies) -> AkanPolicies:
        return replace(policies, **fields)

    return apply


# -- attachments ------------------------------------------------------------------------------------------


class _SameNameSameFile(Ceilings):
    """The other reading of "the same file": a file of an attached file's name is that file, whatever its
    size or content (akan.attachments.duplicate-refused#open_question)."""

    def same_file(self, a: Candidate, b: Candidate) -> bool:
        return a.name == b.name


# -- compaction -------------------------------------------------------------------------------------------


def _summary_with_header(message: Message, accepts: Accepts, readable: CanRead) -> Message:
    """A provider mapping that frames the summary as a system message opening with a header line."""
    mapped = attachments.provider_message(message, accepts, readable)
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
    found = choose_cut(folded, keep)
    return None if found is None else (index_of[found] if found < len(index_of) else len(roles))


def _latest_user_cut(roles: Sequence[str], keep: int) -> int | None:
    """Among several user messages in the kept tail, the cut lands on the newest one."""
    first = choose_cut(roles, keep)
    if first is None or keep == 0 or roles[first] != "user":
        return first
    users = [i for i in range(first, len(roles)) if roles[i] == "user"]
    return users[-1]


def _cut_moves_within_keep(roles: Sequence[str], keep: int) -> int | None:
    """With no more than ``keep`` wire messages, a user message among them still draws the cut onto it."""
    found = choose_cut(roles, keep)
    wire = [index for index, role in enumerate(roles) if role != "local"]
    if found is not None or keep == 0 or len(wire) > keep:
        return found
    users = [index for index in wire if roles[index] == "user"]
    above = [roles[index] for index in wire if users and index < users[0]]
    return users[0] if above and above != ["summary"] else None


def _inclusive_threshold(estimate: int, at: int, held_at: int | None) -> bool:
    """An estimate equal to ``compact.at`` already counts as past it."""
    if at == 0 or estimate < at:
        return False
    return held_at is None or estimate > held_at + at


def _wire_with_ids(transcript: list[Message]) -> list[Message]:
    """Every posted message also carries an id and a creation time: a bigger JSON shape to estimate."""
    return [
        {**message, "id": f"msg_{index:06d}", "createdAt": "2026-01-05T12:00:00.000Z"}
        for index, message in enumerate(on_wire(transcript), start=1)
    ]


# -- Stop and sanitize --------------------------------------------------------------------------------------


def _answer_running_call(calls: list[dict[str, Any]], question: str | None) -> list[Message]:
    """Stop lands the race at once: the call that was running gets its own answer, in other words."""
    if question is not None or not calls:
        return []
    return [
        {
            "role": "tool",
            "tool_call_id": calls[0]["id"],
            "content": json_text({"aborted": True, "note": "Cancelled by the user while it ran."}),
        }
    ]


# -- readScreen -------------------------------------------------------------------------------------------

_MARKED = re.compile(r"\[(button|input|select|textarea|checkbox|radio)([^\]:]*): ([^\]]*)\] \(disabled\)")


class _DisabledFirst(ScreenReader):
    """The marker sits inside the control's token, before its label: ``[button (disabled): Refund]``."""

    def read(self, root: Element, section: str | None) -> str:
        return _MARKED.sub(r"[\1 (disabled)\2: \3]", super().read(root, section))


class _LimitBodyOnly(ScreenReader):
    """The 8000 characters bound the page text; the list of headings below the cut comes on top."""

    def limit(self, lines: list[Line]) -> str:
        cap = self.max_chars
        text = "\n".join(line.text for line in lines)
        if len(text) <= cap:
            return text
        body, kept = "", 0
        for index, line in enumerate(lines):
            candidate = (body + "\n" if index else "") + line.text
            if len(candidate) > cap:
                break
            body, kept = candidate, index + 1
        below = [line.heading for line in lines[kept:] if line.level is not None]
        return (body or lines[0].text[:cap]) + "\n\nNot shown (ask for one by name): " + ", ".join(below)


# -- tools and refusals -----------------------------------------------------------------------------------

_EXTRA_BUILTIN = {
    "name": "listSections",
    "description": "List the named sections on the screen.",
    "parameters": {"type": "object", "properties": {}, "required": []},
}


class _ZonePrefixed(Declarations):
    """A tool mounted in a zone is published under its zone's name as a prefix: ``billing.payInvoice``."""

    def page_entries(self, tools: Sequence[PageTool]) -> list[dict[str, Any]]:
        return [
            {**self.declared(tool), "name": f"{tool.zone}.{name}"} if tool.zone else self.declared(tool)
            for name, tool in self.published(tools).items()
        ]


class _ZoneSeesWholePage(Placement):
    """A zone's agent is offered every tool and key on the page, its own zone's and everything else's; its
    guides still follow the cascade (ancestors and its own, never a sibling's), which the guideline fixes."""

    def in_view(self, placed_in: str | None, agent_zone: str | None) -> bool:
        return True

    def guides(self, all_guides: Sequence[Guide], route: str, agent_zone: str | None) -> list[str]:
        return Placement().guides(all_guides, route, agent_zone)


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


class _GoBackStays(Builtins):
    """``goBack`` at the first page of the session answers where the page is instead of an error."""

    def go_back(self, history: Sequence[str]) -> tuple[list[str], dict[str, Any]]:
        if len(history) < 2:
            return list(history), {"route": history[-1], "note": "already at the first page of this session"}
        return super().go_back(history)


def _persist_with_mime(message: Message) -> Message:
    """Saving keeps each attachment's name and MIME type; the bytes and the text are still dropped."""
    if not message.get("attachments"):
        return dict(message)
    return {
        **message,
        "attachments": [
            {"name": a["name"], **({"mime": a["mime"]} if "mime" in a else {})}
            for a in message["attachments"]
        ],
    }


class _NotesReworded(CommandTable):
    """``/help`` and ``/tools`` write their local notes in other words."""

    def help_note(self, commands: Sequence[str]) -> str:
        return "You can type: " + " ".join(commands)

    def tools_note(self, names: Sequence[str]) -> str:
        return "This screen offers " + str(len(names)) + " tools of its own."


def _prompt_images_unnamed(text: str, images: Sequence[File]) -> Message:
    """A prompt's ``Msg.image`` has no file name, so its attachment is named by position (``image-1``)."""
    message = attachments.prompt_message(text, images)
    for index, attachment in enumerate(message.get("attachments", []), start=1):
        attachment["name"] = f"image-{index}"
    return message


def _copy_confirms_with_a_note(record: Record) -> Record:
    """``/copy`` confirms itself with a local note (a command output: "Slash Commands And The Transcript").

    A note changes nothing on the wire, so the reference's record is rewritten: when the chat's last
    act was a ``/copy`` (no request after the last export), its note ends the final transcript."""
    events = record.get("events", [])
    exports = [index for index, event in enumerate(events) if event.get("type") == "export"]
    transcript = record.get("final", {}).get("transcript")
    if not exports or not isinstance(transcript, list):
        return record
    if any(event.get("type") == "model_request" for event in events[exports[-1] :]):
        return record
    changed = copy.deepcopy(record)
    changed["final"]["transcript"].append({"role": "local", "content": "Conversation copied."})
    return changed


def _every_save_sanitized(record: Record) -> Record:
    """The store sanitizes every save, capped or not: no stored transcript ever holds an unanswered call.

    Restoring sanitizes again and sanitize changes nothing it already repaired, so only the ``persisted``
    events differ from the reference's record."""
    changed = copy.deepcopy(record)
    for event in changed.get("events", []):
        if event.get("type") == "persisted" and isinstance(event.get("transcript"), list):
            event["transcript"] = sanitize(event["transcript"], STOPPED_RESULT)
    return changed


def _extra_fields_on_items(record: Record) -> Record:
    """Every object listed directly under an event or the final state carries one field more: each message
    of a request, a transcript, an export or a save, each tool declaration, each provider message.

    The guideline fixes what such an item says (a role, a text, a name), never that it says nothing else,
    so no expectation may pin one whole (the record protocol's extra-fields freedom, one level down)."""
    changed = copy.deepcopy(record)
    holders = [*changed.get("events", []), changed.get("final", {})]
    for holder in holders:
        for value in holder.values() if isinstance(holder, dict) else ():
            for item in value if isinstance(value, list) else ():
                if isinstance(item, dict):
                    item[EXTRA] = "added by a permitted variant"
    return changed


def _max_turns_one_more(configured: int | None) -> int:
    """``maxTurns`` counts rounds of tool calls: the request after the last round still goes out."""
    return (configured or 100) + 1


PERMITTED: list[Permitted] = [
    Permitted(
        name="akan-listen-other-handler-names",
        system="akan",
        exercises=("akan.speech.listen-is-subscription#open_question",),
        description="the chat names the callbacks it hands listen onTranscript and onDone",
        policies=_change(speech=SpeechPolicy(handler_names=("onTranscript", "onDone"))),
    ),
    Permitted(
        name="akan-no-wait-after-builtins",
        system="akan",
        exercises=("akan.builtin.settle-after-non-query-tools#open_question",
                   "akan.builtin.navigate-awaits-screen-settle"),
        description="every built-in counts as a query, so the session waits for the screen only after the "
        "page's own tools (navigate still waits inside its run)",
        policies=_change(builtins=Builtins(queries=BUILTIN_NAMES)),
    ),
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
        policies=_change(provider_message=_summary_with_header),
    ),
    Permitted(
        name="akan-duplicate-by-name",
        system="akan",
        exercises=("akan.attachments.duplicate-refused#open_question",),
        description="a second file of an attached file's name is refused as the same file, whatever its size",
        policies=_change(ceilings=_SameNameSameFile()),
    ),
    Permitted(
        name="akan-empty-retry-silent",
        system="akan",
        exercises=("akan.slash.six-builtins#open_question",),
        description="a /retry with no message of the user's to replay writes nothing at all",
        policies=_change(nothing_to_retry=None),
    ),
    Permitted(
        name="akan-persist-keeps-mime",
        system="akan",
        exercises=("akan.attachments.persist-names-only",),
        description="a saved attachment keeps its MIME type beside its name; its content is still dropped",
        policies=_change(persisted=_persist_with_mime),
    ),
    Permitted(
        name="akan-disabled-marker-inside-token",
        system="akan",
        exercises=("akan.builtin.read-screen-compact-text", "akan.form.read-screen-marks-disabled"),
        description="readScreen writes the marker inside the control's token: [button (disabled): Refund]",
        policies=_change(screen=_DisabledFirst()),
    ),
    Permitted(
        name="akan-running-call-answered-otherwise",
        system="akan",
        exercises=(
            "akan.sanitize.stopped-calls-answered-not-erased#open_question",
            "akan.builtin.stop-races-running-tool",
        ),
        description="Stop answers the call that was running at once, in words without 'stopped'",
        policies=_change(stop_answers=_answer_running_call),
    ),
    Permitted(
        name="akan-keep-counts-tool-batches",
        system="akan",
        exercises=("akan.compaction.summary-replaces-history#open_question",),
        description="keep counts one tool message per batch of results rather than each result",
        policies=_change(cut=_tool_batches_as_one),
    ),
    Permitted(
        name="akan-cut-on-newest-user",
        system="akan",
        exercises=("akan.compaction.cut.prefers-user#open_question",),
        description="with several user messages in the kept tail the cut lands on the newest one",
        policies=_change(cut=_latest_user_cut),
    ),
    Permitted(
        name="akan-cut-moves-within-keep",
        system="akan",
        exercises=("akan.compaction.summary-replaces-history#open_question",),
        description="with no more than keep wire messages, a later user message still draws the cut onto it",
        policies=_change(cut=_cut_moves_within_keep),
    ),
    Permitted(
        name="akan-threshold-inclusive",
        system="akan",
        exercises=("akan.compaction.threshold.past#open_question",),
        description="an estimate equal to compact.at already counts as past it",
        policies=_change(should_compact=_inclusive_threshold),
    ),
    Permitted(
        name="akan-default-24576",
        system="akan",
        exercises=("akan.compaction.threshold.default#open_question",),
        description="the default threshold '24k' is read as 24 x 1024 = 24,576 estimated tokens",
        policies=_change(default_at_tokens=24_576),
    ),
    Permitted(
        name="akan-message-ids-on-wire",
        system="akan",
        exercises=("akan.compaction.estimate.four-chars-per-token#open_question",),
        description="every posted message carries an id and a timestamp, so the JSON estimated is larger",
        policies=_change(on_wire=_wire_with_ids),
    ),
    Permitted(
        name="akan-smaller-digest",
        system="akan",
        exercises=("akan.compaction.summarizer.bounded-digest#open_question",),
        description="the summarizer's digest is bounded at 4000 characters, 300 per message",
        policies=_change(digest_max_chars=4000, digest_message_chars=300),
    ),
    Permitted(
        name="akan-compact-command-inside-running",
        system="akan",
        exercises=("akan.compaction.is-compacting#open_question",),
        description="/compact raises isRunning as well as isCompacting while its summary is written",
        policies=_change(command_compaction_runs=True),
    ),
    Permitted(
        name="akan-read-limit-excludes-heading-list",
        system="akan",
        exercises=("akan.readscreen.character-limit#open_question",),
        description="the 8000 characters bound the page text; the list of headings below the cut is extra",
        policies=_change(screen=_LimitBodyOnly()),
    ),
    Permitted(
        name="akan-extra-builtin-tool",
        system="akan",
        exercises=("akan.builtin.five-on-every-surface",),
        description="the chat offers a sixth built-in tool (listSections) beside the five documented ones",
        policies=_change(builtins=Builtins(tools=(*BUILTIN_TOOLS, _EXTRA_BUILTIN))),
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
        policies=_change(builtins=_GoBackStays()),
    ),
    Permitted(
        name="akan-command-notes-reworded",
        system="akan",
        exercises=("akan.local.withheld-from-wire", "protocol:wording"),
        description="/help and /tools answer with local notes worded differently",
        policies=_change(commands=_NotesReworded()),
    ),
    Permitted(
        name="akan-zone-tools-scope-prefixed",
        system="akan",
        exercises=("akan.zone.inner-declarations-join-zone#open_question",),
        description="a tool mounted in a zone is published under a zone-prefixed name (billing.payInvoice)",
        policies=_change(declarations=_ZonePrefixed()),
    ),
    Permitted(
        name="akan-zone-agent-sees-whole-page",
        system="akan",
        exercises=("akan.zone.inner-declarations-join-zone#open_question",),
        description="a zone's agent is also offered the tools and keys mounted outside its zone",
        policies=_change(placement=_ZoneSeesWholePage()),
    ),
    Permitted(
        name="akan-max-turns-counts-tool-rounds",
        system="akan",
        exercises=("akan.builtin.max-turns-bound#open_question",),
        description="maxTurns bounds rounds of tool calls, so one more request goes out after the last round",
        policies=_change(max_turns=_max_turns_one_more),
    ),
    Permitted(
        name="akan-prompt-image-named-by-position",
        system="akan",
        exercises=("akan.attachments.msg-image-same-shape",),
        description="a prompt's Msg.image (which has no file name) is attached as image-1, image-2, ...",
        policies=_change(prompt_message=_prompt_images_unnamed),
    ),
    Permitted(
        name="akan-copy-confirms-with-a-note",
        system="akan",
        exercises=("akan.local.withheld-from-wire",),
        description="/copy confirms itself with a local note in the transcript",
        transform=_copy_confirms_with_a_note,
    ),
    Permitted(
        name="akan-every-save-sanitized",
        system="akan",
        exercises=("akan.sanitize.runs-on-restore", "akan.sanitize.runs-on-capped-store"),
        description="the store sanitizes every save, not only a capped one",
        transform=_every_save_sanitized,
    ),
    Permitted(
        name="akan-unclaimed-file-refused",
        system="akan",
        exercises=("akan.attachments.builtin-read#open_question",),
        description="a file neither image nor text that no reader claims is refused at the paperclip",
        policies=_change(unclaimed_file="refused"),
    ),
    Permitted(
        name="akan-extra-fields-on-listed-items",
        system="akan",
        exercises=("protocol:extra-fields",),
        description="every object listed directly under an event or the final state has a field more",
        transform=_extra_fields_on_items,
    ),
]
