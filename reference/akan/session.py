"""``ChatSession``: the headless in-page chat, a thin stateful shell around the akan policies.

Theory of operation. The transcript is the model's history plus local messages. Sending a message appends
it and runs the client-side loop: before every model request (the relay is stateless, so each request is
its own turn) the estimate of what is about to be posted is checked against ``compact.at`` and, past it,
the history is summarized first (``reference.akan.compaction`` decides, ``reference.akan.cut`` cuts).
A model answer with tool calls runs the page's tools and loops; an answer without them ends the turn.
Files wait in the composer from the moment the paperclip admits them (``reference.akan.ceilings``) until
the message carrying them is sent.
"""

from __future__ import annotations

from typing import Any

from conformance.scenario.akan import File, Setup, filler
from conformance.scenario.common import ScriptEntry
from reference.akan import ceilings, compaction
from reference.akan.attachments import Attachment, accepts_of, persisted, provider_message, read_file
from reference.akan.cut import choose_cut
from reference.akan.wire import Message, estimate_tokens, json_text, on_wire
from reference.providers.scripted import ProviderFailure, ScriptedProvider
from reference.record import Recorder

#: A loop that keeps calling tools ends here; a script normally runs out long before.
MAX_ROUNDS = 100


def cut_role(message: Message) -> str:
    return "summary" if message.get("summary") else str(message["role"])


class ChatSession:
    def __init__(self, setup: Setup, provider: ScriptedProvider, recorder: Recorder) -> None:
        self.setup = setup
        self.provider = provider
        self.recorder = recorder
        self.settings = compaction.settings(setup.compact.at, setup.compact.keep)
        self.accepts = accepts_of(setup.provider)
        self.transcript: list[Message] = []
        self.composer: list[tuple[ceilings.Candidate, Attachment]] = []
        self.is_running = False
        self.is_compacting = False
        self.held_at: int | None = None
        self._minted_ids = 0

    # -- the composer -------------------------------------------------------------------------------

    def attach(self, file: File) -> None:
        """The paperclip: admit or refuse one file against what the message already carries."""
        candidate = ceilings.Candidate(file.name, file.byte_size)
        admission = ceilings.admit([c for c, _ in self.composer], candidate)
        if not admission.accepted:
            self.recorder.emit(
                "attachment_refused", name=file.name, reason=admission.reason, text=admission.text
            )
            return
        attachment = read_file(file, self.setup.reader)
        self.composer.append((candidate, attachment))
        self.recorder.emit("attachment_added", name=file.name, kind=attachment["kind"], size=file.byte_size)

    def send(self, text: str) -> None:
        """Enter in the composer: a built-in slash command, or a message that starts a turn."""
        if text.startswith("/") and self._command(text):
            return
        message: Message = {"role": "user", "content": text}
        if self.composer:
            message["attachments"] = [attachment for _, attachment in self.composer]
            self.composer = []
        self.transcript.append(message)
        self._run()

    def note(self, text: str) -> None:
        """``session.note``: shown in the transcript, never posted (akan.local.withheld-from-wire)."""
        self.transcript.append({"role": "local", "content": text})

    def persist(self) -> None:
        self.recorder.emit("persisted", transcript=[persisted(m) for m in self.transcript])

    # -- slash commands -----------------------------------------------------------------------------

    def _command(self, text: str) -> bool:
        name = text.split()[0][1:]
        if name == "compact":
            self._compact(keep=0, trigger="command")
        elif name == "copy":
            self.recorder.emit("export", messages=on_wire(self.transcript))
        elif name == "retry":
            self._retry()
        elif name in ("new", "clear"):
            self.transcript, self.held_at = [], None
        elif name == "help":
            self.note("Commands: /new (/clear), /retry, /compact, /copy, /help, /tools.")
        elif name == "tools":
            names = ", ".join(t.name for t in self.setup.tools) or "none"
            self.note(f"Tools on this screen: {names}.")
        else:
            return self._prompt(name)
        return True

    def _prompt(self, name: str) -> bool:
        """An app's ``prompt()`` command; built-ins were matched first, so they win a shared name.

        akan.attachments.msg-image-same-shape: each ``Msg.image`` becomes an image attachment of the message,
        read exactly as a file from the paperclip would be, never placeholder text.
        """
        prompt = next((p for p in self.setup.prompts if p.name == name), None)
        if prompt is None:
            return False
        for item in prompt.messages:
            message: Message = {"role": "user", "content": item.text}
            if item.images:
                message["attachments"] = [read_file(image, None) for image in item.images]
            self.transcript.append(message)
        self._run()
        return True

    def _retry(self) -> None:
        """akan.compaction.retry-steps-over-summary: replay the newest message the user wrote."""
        for index in range(len(self.transcript) - 1, -1, -1):
            message = self.transcript[index]
            if message["role"] == "user" and not message.get("summary"):
                self.transcript = self.transcript[: index + 1]
                self._run()
                return
        self.note("There is no message of yours left to retry.")

    # -- the loop -----------------------------------------------------------------------------------

    def _status(self, *, running: bool | None = None, compacting: bool | None = None) -> None:
        self.is_running = self.is_running if running is None else running
        self.is_compacting = self.is_compacting if compacting is None else compacting
        self.recorder.emit("status", running=self.is_running, compacting=self.is_compacting)

    def _run(self) -> None:
        self._status(running=True)
        try:
            for _ in range(MAX_ROUNDS):
                entry = self._post_turn()
                if entry is None or not self._answer(entry):
                    break
        finally:
            self._status(running=False)

    def _post_turn(self) -> ScriptEntry | None:
        """Post one request, compacting first when past the threshold (akan.compaction.before-the-turn)."""
        estimate = estimate_tokens(on_wire(self.transcript))
        if compaction.should_compact(estimate, self.settings.at, self.held_at):
            self._compact(keep=self.settings.keep, trigger="auto")
        messages = on_wire(self.transcript)
        request: dict[str, Any] = {
            "messages": messages,
            "tools": [{"name": t.name, "description": t.description} for t in self.setup.tools],
            "screen": self.setup.screen,
            "provider_messages": [provider_message(m, self.accepts) for m in messages],
        }
        try:
            return self.provider.complete(request, purpose="turn")
        except ProviderFailure as failure:
            self.recorder.emit("turn_failed", status=failure.status, message=str(failure))
            return None

    def _answer(self, entry: ScriptEntry) -> bool:
        """Append the model's answer; run its tool calls. True when the loop must post again."""
        if not entry.tool_calls:
            self.transcript.append({"role": "assistant", "content": entry.text})
            return False
        calls: list[dict[str, Any]] = []
        for call in entry.tool_calls:
            self._minted_ids += 1
            calls.append({"id": call.id or f"call_{self._minted_ids}", "name": call.name,
                          "arguments": call.arguments or {}})
        self.transcript.append({"role": "assistant", "content": entry.text, "tool_calls": calls})
        for call_info in calls:
            self.recorder.emit("tool_call", **call_info)
            content = self._run_tool(call_info["name"])
            self.transcript.append({"role": "tool", "tool_call_id": call_info["id"], "content": content})
            self.recorder.emit("tool_result", id=call_info["id"], name=call_info["name"], content=content)
        return True

    def _run_tool(self, name: str) -> str:
        for tool in self.setup.tools:
            if tool.name == name:
                return filler(tool.filler_chars) if tool.filler_chars else json_text(tool.returns)
        return json_text({"error": f"no tool named {name} is published on this screen"})

    # -- compaction ---------------------------------------------------------------------------------

    def _compact(self, *, keep: int, trigger: str) -> None:
        before = estimate_tokens(on_wire(self.transcript))
        cut = choose_cut([cut_role(m) for m in self.transcript], keep)
        if cut is None:
            self.recorder.emit("compaction", trigger=trigger, outcome="nothing-to-summarize")
            return
        summarized = on_wire(self.transcript[:cut])
        self._status(compacting=True)
        try:
            entry = self.provider.complete(compaction.summary_request(summarized), purpose="summary")
        except ProviderFailure as failure:
            # akan.compaction.failure.leaves-transcript: nothing changes and no hold is set.
            self.recorder.emit("compaction", trigger=trigger, outcome="failed", status=failure.status)
            return
        finally:
            self._status(compacting=False)
        kept = self.transcript[cut:]
        self.transcript = [{"role": "user", "content": entry.text, "summary": True}, *kept]
        after = estimate_tokens(on_wire(self.transcript))
        self.held_at = compaction.hold_after(before, after)
        self.recorder.emit(
            "compaction", trigger=trigger, outcome="summarized", summarized=len(summarized),
            kept=len(on_wire(kept)), estimate_before=before, estimate_after=after,
        )

    # -- the record ---------------------------------------------------------------------------------

    def final(self) -> dict[str, Any]:
        return {
            "transcript": self.transcript,
            "tokens": estimate_tokens(on_wire(self.transcript)),
            "composer": [attachment["name"] for _, attachment in self.composer],
            "is_running": self.is_running,
            "is_compacting": self.is_compacting,
        }
