"""``ChatSession``: the headless in-page chat, a thin stateful shell around the akan policies.

Theory of operation. The transcript is the model's history plus local messages. Sending a message appends
it and runs the client-side loop: before every model request (the relay is stateless, so each request is
its own turn) the estimate of what is about to be posted is checked against ``compact.at`` and, past it,
the history is summarized first (``reference.akan.compaction`` decides, ``reference.akan.cut`` cuts).
A model answer with tool calls runs the page's tools and loops; an answer without them ends the turn.
A call runs the page's own declaration of that name first (``reference.akan.declarations``), then a form
control's tool, then an ``akanjs/ui`` component's, then a built-in (``reference.akan.page``), so a page
tool shadows a built-in of its name. The tool list is taken afresh for every request.
Files wait in the composer from the moment the paperclip admits them (``reference.akan.ceilings``) until
the message carrying them is sent.

A turn can pause on a call: a tool that never settles, or one that opens a question card. The session then
stays running with the unanswered calls in ``waiting`` until the user answers the card (the next message
becomes the call's result and the loop carries on), presses Stop, types ``/new`` or reloads the page. Stop
leaves the calls unanswered in the transcript: ``reference.akan.sanitize`` answers them wherever a
transcript is assembled -- the next request, a restore, a capped store -- rather than where the hole is
made (akan.sanitize.single-function).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from conformance.scenario.akan import File, PageTool, Setup, filler
from conformance.scenario.invalid import raw
from reference.akan import builtins, ceilings, compaction, llm, placement, relay, speech
from reference.akan.attachments import Attachment, accepts_of, persisted, provider_message, read_file
from reference.akan.commands import Command, builtin, fill, menu, parse
from reference.akan.cut import choose_cut
from reference.akan.declarations import call_refusal, clashes, page_entries, published
from reference.akan.explain import explained
from reference.akan.page import Page
from reference.akan.sanitize import cap, sanitize
from reference.akan.wire import Message, estimate_tokens, json_text, on_wire
from reference.clock import VirtualClock
from reference.providers.model import ModelResponse
from reference.providers.protocol import ModelProvider
from reference.providers.scripted import ProviderFailure
from reference.record import Recorder

#: akan.builtin.max-turns-bound: the reference's maxTurns when the scenario sets none (the documents give
#: no default); a script normally runs out long before.
DEFAULT_MAX_TURNS = 100
#: akan.llm.default-provider-deepseek: where the chat talks when no adaptor is applied.
DEFAULT_PROVIDER = {"name": "deepseek", "model": "deepseek-v4-flash", "host": "https://api.deepseek.com"}


def cut_role(message: Message) -> str:
    return "summary" if message.get("summary") else str(message["role"])


def iso_time(ms: int) -> str:
    """A time as JavaScript's ``Date.toISOString`` writes it (UTC, milliseconds, trailing Z)."""
    moment = datetime.fromtimestamp(ms // 1000, UTC)
    return f"{moment:%Y-%m-%dT%H:%M:%S}.{ms % 1000:03d}Z"


@dataclass
class Waiting:
    """A paused turn: ``calls`` from the one it waits on onwards have no result yet."""

    calls: list[dict[str, Any]]
    question: str | None = None


def stored_at_open(setup: Setup) -> list[Message]:
    """What web storage holds when the page opens, exactly as written: a transcript written invalid on
    purpose (a result before its call) is stored as it is, for the restore to deal with."""
    stored: list[Message] = []
    for item in raw(setup.stored) or []:
        message = item.model_dump(exclude_none=True) if hasattr(item, "model_dump") else dict(item)
        stored.append({key: value for key, value in message.items() if value is not None})
    return stored


class ChatSession:
    def __init__(self, setup: Setup, provider: ModelProvider, recorder: Recorder) -> None:
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
        self.clock = VirtualClock()
        self.page = Page(setup)
        #: Declarations of the mounted components (akan.surface.declaration-is-the-surface).
        self.declarations = [t for t in setup.tools if placement.in_view(t.zone, setup.zone)]
        for name, count in clashes(self.declarations).items():
            self.recorder.emit("tool_clash", name=name, registrations=count)
        self.waiting: Waiting | None = None
        self.stored: list[Message] = stored_at_open(setup)
        self._minted_ids = 0
        self._turns = 0
        #: The composer's text and whether it came from the microphone (akan.speech.no-wire-field-for-voice:
        #: this flag stays here and never reaches a message).
        self.draft, self.draft_voiced, self.turn_voiced = "", False, False
        self.speaker = speech.Speaker(setup.voice, self.clock, recorder) if setup.voice else None

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

    def send(self, text: str, *, voiced: bool = False) -> None:
        """Enter in the composer: a slash command, the answer to a question card, or a new message.

        ``voiced`` says the text came from the microphone; it decides only whether the answer is read aloud.

        akan.slash.new-and-copy-dispatch-first: ``/new`` and ``/copy`` are looked at before anything else,
        so a running turn cannot refuse them and a question card cannot take them as the user's answer.
        """
        command = parse(text)
        if command is not None and self._dispatch_first(command):
            return
        if self.waiting is not None and self.waiting.question is not None:
            self.turn_voiced = voiced
            self._answer_question(text)
            return
        if self.is_running:
            self.recorder.emit("input_refused", text=text, reason="turn-running")
            return
        if command is not None and self._command(command):
            return
        message: Message = {"role": "user", "content": text}
        if self.composer:
            message["attachments"] = [attachment for _, attachment in self.composer]
            self.composer = []
        self.transcript.append(message)
        self.turn_voiced = voiced
        self._run()

    def note(self, text: str) -> None:
        """``session.note``: shown in the transcript, never posted (akan.local.withheld-from-wire)."""
        self.transcript.append({"role": "local", "content": text})

    def report(self, message: str) -> None:
        """``session.report``: a host-side failure lands where a failed turn does, never as a local note.

        akan.slash.note-and-report: only ``note`` writes ``local`` messages. Whether a report reaches the
        model is open in the documents; the reference keeps it in the transcript like a failed turn.
        """
        self._fail_turn(None, message)

    def stop(self) -> None:
        """The Stop button: a paused turn ends now; its unanswered calls stay for sanitize to answer.

        It also cuts off speech in progress (akan.speech.barge-in).
        """
        if self.speaker is not None:
            self.speaker.cancel("stop")
        if self.is_running:
            self._abort()

    # -- the microphone -----------------------------------------------------------------------------

    def microphone(self) -> bool:
        """akan.speech.unavailable-renders-no-mic: no engine, or one not available, draws no microphone."""
        return self.setup.voice is not None and self.setup.voice.available

    def mic(self, heard: list[str]) -> None:
        """One press: speech stops, and the first utterance heard lands in the composer, unsent.

        akan.speech.press-to-talk-into-composer: one utterance per press; the user corrects, then sends.
        """
        if not self.microphone():
            self.recorder.emit("input_refused", text=heard[0], reason="no-microphone")
            return
        assert self.speaker is not None
        self.speaker.cancel("mic")
        self.draft, self.draft_voiced = heard[0], True
        self.recorder.emit("draft", text=self.draft, voiced=True)

    def send_draft(self, edit: str | None) -> None:
        """Enter on the composer's text; a corrected voice draft still counts as a voiced ask."""
        text, voiced = (self.draft if edit is None else edit), self.draft_voiced
        self.draft, self.draft_voiced = "", False
        self.send(text, voiced=voiced)

    def unmount(self, tools: list[str], state: list[str]) -> None:
        """Components unmount: the tools they declared and the keys they read leave the surface."""
        self.declarations = [tool for tool in self.declarations if tool.name not in tools]
        self.page.unmount_readers(state)

    def advance(self, ms: int) -> None:
        self.clock.advance(ms)
        if self.speaker is not None:
            self.speaker.tick()

    def _read_aloud(self, text: str) -> None:
        """akan.speech.read-aloud-only-after-voice-ask, akan.speech.parked-card-read-aloud."""
        if self.speaker is not None and speech.reads_aloud(self.turn_voiced):
            self.speaker.say(text)

    # -- storage ------------------------------------------------------------------------------------

    def persist(self, newest: int | None = None) -> None:
        """Save to web storage; a store capped to its newest messages is sanitized as it is cut.

        akan.sanitize.runs-on-capped-store.
        """
        kept = list(self.transcript) if newest is None else cap(self.transcript, newest)
        self.stored = [persisted(m) for m in kept]
        self.recorder.emit("persisted", transcript=self.stored)

    def reload(self) -> None:
        """A page reload: the running turn and the composer are gone; the saved transcript comes back."""
        self.waiting, self.composer, self.held_at = None, [], None
        if self.is_running or self.is_compacting:
            self._status(running=False, compacting=False)
        self.transcript = self._restore(self.stored)
        self.recorder.emit("restored", transcript=self.transcript)

    def _restore(self, stored: list[Message]) -> list[Message]:
        """akan.sanitize.runs-on-restore: a save taken between a call and its result can carry on."""
        return sanitize(stored)

    # -- slash commands -----------------------------------------------------------------------------

    def _dispatch_first(self, command: Command) -> bool:
        name = builtin(command.name)
        if name == "new":
            self._new()
        elif name == "copy":
            self._copy()
        else:
            return False
        return True

    def _new(self) -> None:
        """akan.slash.new-aborts-then-waits: the turn is ended before the transcript is emptied."""
        if self.is_running:
            self._abort()
        self.transcript, self.held_at = [], None

    def _copy(self) -> None:
        """akan.slash.copy-includes-route-and-time; locals stay out (akan.local.withheld-from-wire)."""
        at = iso_time(self.clock.now_ms())
        self.recorder.emit("export", route=self.page.route, at=at, messages=on_wire(self.transcript))

    def _command(self, command: Command) -> bool:
        """Built-ins are matched first: they win a shared name (akan.slash.builtin-wins-collision)."""
        name = builtin(command.name)
        if name == "compact":
            self._compact(keep=0, trigger="command")
        elif name == "retry":
            self._retry()
        elif name == "help":
            self.note("Commands: " + ", ".join(self.commands()).replace("/new", "/new (/clear)") + ".")
        elif name == "tools":
            names = ", ".join(published(self.declarations)) or "none"
            self.note(f"Tools on this screen: {names}.")
        else:
            return self._prompt(command)
        return True

    def commands(self) -> list[str]:
        return menu([prompt.name for prompt in self.setup.prompts])

    def _prompt(self, command: Command) -> bool:
        """An app's ``prompt()`` command, called with the positional arguments typed after its name.

        akan.slash.positional-whitespace-args-with-quotes: argument N fills parameter N.
        akan.attachments.msg-image-same-shape: each ``Msg.image`` becomes an image attachment of the message,
        read exactly as a file from the paperclip would be, never placeholder text.
        """
        prompt = next((p for p in self.setup.prompts if p.name == command.name), None)
        if prompt is None:
            return False
        self.recorder.emit("prompt_called", name=prompt.name, args=list(command.args))
        if not prompt.allowed:
            # akan.slash.prompt-guards-at-call-time: the GET's guard answers, not the menu.
            self.recorder.emit("prompt_denied", name=prompt.name, status=403)
            self.note(f"/{prompt.name} is not available to you here.")
            return True
        for item in prompt.messages:
            message: Message = {"role": "user", "content": fill(item.text, prompt.params, command.args)}
            if item.images:
                message["attachments"] = [read_file(image, None) for image in item.images]
            self.transcript.append(message)
        self._run()
        return True

    def _retry(self) -> None:
        """Replay the newest message the user wrote; what came before it stays and is not re-sent.

        akan.slash.retry-replays-trailing-user-message, akan.compaction.retry-steps-over-summary.
        """
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
        self._loop()

    def _loop(self) -> None:
        """Post until the model answers without calls; a paused call leaves the turn running.

        akan.builtin.max-turns-bound: at ``maxTurns`` requests the loop ends, tool results in place.
        """
        limit = self.max_turns()
        try:
            for posted in range(limit + 1):
                if posted == limit:
                    self.recorder.emit("turn_limit", max_turns=limit)
                    break
                entry = self._post_turn()
                if entry is None or not self._answer(entry):
                    break
        finally:
            if self.waiting is None:
                self._status(running=False)

    def max_turns(self) -> int:
        return self.setup.max_turns or DEFAULT_MAX_TURNS

    def _abort(self) -> None:
        """End the running turn now. Unanswered calls are left as they are (see the module docstring)."""
        answered = {m.get("tool_call_id") for m in self.transcript if m["role"] == "tool"}
        calls = [c["id"] for c in self.waiting.calls if c["id"] not in answered] if self.waiting else []
        self.waiting = None
        self.recorder.emit("turn_stopped", calls=calls)
        self._status(running=False)

    def _sanitize_request(self) -> None:
        """akan.sanitize.runs-on-request-assembly: the turn's own request is built from a sound transcript."""
        self.transcript = sanitize(self.transcript)

    def _post_turn(self) -> ModelResponse | None:
        """Post one request, compacting first when past the threshold (akan.compaction.before-the-turn)."""
        self._sanitize_request()
        estimate = estimate_tokens(on_wire(self.transcript))
        if compaction.should_compact(estimate, self.settings.at, self.held_at):
            self._compact(keep=self.settings.keep, trigger="auto")
        messages = on_wire(self.transcript)
        return self._relay_turn({
            "messages": messages,
            "tools": builtins.offered(
                [*page_entries(self.declarations), *self.page.form_tools(), *self.page.ui_tools(),
                 *self.page.local_tools()]
            ),
            "screen": self.setup.screen,
            "context": self.page.context(),
            "guides": self.page.guides(),
            "provider": self._provider(),
            "provider_messages": [provider_message(explained(m), self.accepts) for m in messages],
        })

    def _relay_turn(self, request: dict[str, Any]) -> ModelResponse | None:
        """One post to ``runAgentTurn``: its guard, the adaptor, then the model (``reference.akan.relay``).

        The model is asked (a ``model_request``) only when the guard admits the caller and the adaptor has
        a model to ask; an error comes back as a key and values and is resolved here, as fetchRunner does.
        """
        self._turns += 1
        accept = relay.accept_header(self.setup.relay)
        post = {"turn": self._turns, "accept": accept, "path": relay.response_path(accept)}
        admission = relay.admit(self.setup.relay)
        if admission.outcome != "relayed":
            refused = {"refused_by": admission.refused_by} if admission.refused_by else {}
            self.recorder.emit("relay", **post, outcome=admission.outcome, **refused)
            self._fail_turn(403 if refused else 404, f"the relay answered {admission.outcome}")
            return None
        error = llm.adaptor_error(self.setup.provider, self._turns)
        if error is not None:
            self.recorder.emit("relay", **post, outcome="error", error=error.wire())
            self._fail_turn(None, llm.resolve(error, self.setup.dictionary), key=error.key)
            return None
        try:
            entry = relay.forwarded(self.provider.complete(request, purpose="turn"))
        except ProviderFailure as failure:
            self.recorder.emit("relay", **post, outcome="failed", status=failure.status)
            self._fail_turn(failure.status, str(failure))
            return None
        self.recorder.emit(
            "relay", **post, outcome="relayed", tool_calls=[call.name for call in entry.tool_calls],
            deltas=relay.deltas(entry, str(post["path"]), self.setup.provider.on_delta),
        )
        return entry

    def _fail_turn(self, status: int | None, message: str, key: str | None = None) -> None:
        """akan.transcript.error-folded-into-text: the failed turn stays in the transcript, saying so."""
        self.transcript.append({"role": "assistant", "content": "", "error": message})
        self.recorder.emit("turn_failed", status=status, message=message, **({"key": key} if key else {}))

    def _provider(self) -> dict[str, str]:
        """Where the turn goes: the adaptor holding the role, with ``setLlm``'s settings.

        akan.llm.apply-adaptor-swaps-provider, akan.llm.settings-belong-to-role: the settings are the
        role's, so they reach a swapped-in adaptor just as they would the default one.
        """
        provider = self.setup.provider
        is_default = provider.name == DEFAULT_PROVIDER["name"]
        chosen = dict(DEFAULT_PROVIDER) if is_default else {"name": provider.name}
        given = provider.settings.model_dump(exclude_none=True) if provider.settings else {}
        return {**chosen, **given}

    def _answer(self, entry: ModelResponse) -> bool:
        """Append the model's answer; run its tool calls. True when the loop must post again."""
        if not entry.tool_calls:
            self.transcript.append({"role": "assistant", "content": entry.text})
            self._read_aloud(entry.text)
            return False
        calls: list[dict[str, Any]] = []
        for call in entry.tool_calls:
            self._minted_ids += 1
            calls.append({"id": call.id or f"call_{self._minted_ids}", "name": call.name,
                          "arguments": call.arguments or {}})
        self.transcript.append({"role": "assistant", "content": entry.text, "tool_calls": calls})
        return self._run_calls(calls)

    def _run_calls(self, calls: list[dict[str, Any]]) -> bool:
        """Run calls in order; one that waits pauses the turn (False) with it and the rest unanswered."""
        for index, call_info in enumerate(calls):
            self.recorder.emit("tool_call", **call_info)
            tool = self._tool(call_info["name"])
            if tool is not None and (tool.asks is not None or not tool.settles):
                self.waiting = Waiting(calls[index:], tool.asks)
                if tool.asks is not None:
                    self.recorder.emit("question", id=call_info["id"], text=tool.asks)
                    self._read_aloud(tool.asks)
                return False
            self._result(call_info, self._run_tool(tool, call_info["name"], call_info["arguments"]))
        return True

    def _result(self, call_info: dict[str, Any], content: str) -> None:
        self.transcript.append({"role": "tool", "tool_call_id": call_info["id"], "content": content})
        self.recorder.emit("tool_result", id=call_info["id"], name=call_info["name"], content=content)

    def _answer_question(self, text: str) -> None:
        """The question card took the composer: the text answers the waiting call and the turn resumes."""
        assert self.waiting is not None
        calls, self.waiting = self.waiting.calls, None
        self._result(calls[0], json_text({"answer": text}))
        if self._run_calls(calls[1:]):
            self._loop()

    def _tool(self, name: str) -> PageTool | None:
        """Only published declarations can be called by the model."""
        return published(self.declarations).get(name)

    def _run_tool(self, tool: PageTool | None, name: str, arguments: dict[str, Any]) -> str:
        """Page tools first: one named like a built-in shadows it (akan.builtin.hook-tool-shadows-builtin)."""
        if tool is not None:
            refused = call_refusal(tool, arguments)
            if refused is not None:  # akan.tool.enum-of-refuses-off-values: the body never runs
                return json_text({"error": refused})
            return filler(tool.filler_chars) if tool.filler_chars else json_text(tool.returns)
        for runner in (self.page.run_form_tool, self.page.run_ui_tool, self.page.run_local_tool):
            result = runner(name, arguments)
            if result is not None:
                return result
        if name in builtins.BUILTIN_NAMES:
            return self.page.run_builtin(name, arguments)
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
            "route": self.page.route,
            "commands": self.commands(),
            **({"form": self.page.form_values} if self.setup.form is not None else {}),
            **({"draft": self.draft, "microphone": self.microphone()} if self.setup.voice else {}),
        }
