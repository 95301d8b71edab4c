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

Every decision is read from the session's ``AkanPolicies`` (``reference.akan.policies``); every event goes
to its ``Recorder`` and to each observer.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from reference.akan import ceilings
from reference.akan.attachments import Attachment, accepts_of, read_file
from reference.akan.builtins import BUILTIN_NAMES
from reference.akan.commands import Command, fill
from reference.akan.composer import ChatUi, Key
from reference.akan.model import (
    Adaptor,
    ChatPanel,
    Compaction,
    File,
    Message,
    Page,
    PageTool,
    Prompt,
    Reader,
    Relay,
    Voice,
)
from reference.akan.page import LivePage
from reference.akan.placement import under
from reference.akan.policies import DEFAULT_POLICIES, AkanPolicies
from reference.akan.results import ChatState, Status, TurnResult
from reference.akan.speech import Speaker
from reference.akan.wire import estimate_tokens, json_text
from reference.clock import VirtualClock
from reference.providers.model import ModelResponse
from reference.providers.protocol import ModelProvider
from reference.providers.scripted import ProviderFailure
from reference.record import Recorder

Observer = Callable[[str, dict[str, Any]], None]
"""Told of every event the session reports: its type and its fields."""


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


class ChatSession:
    """One chat on one page, driven the way a user drives it: attach, send, answer, stop, reload.

    ``page`` is what the page renders and publishes; ``provider`` is any model (scripted, HTTP, a Python
    function). The keyword arguments are the chat's and the app's options: ``compaction`` (``compact``),
    ``adaptor`` (the LLM adaptor and ``setLlm``), ``reader`` (the app's attachment reader), ``prompts``
    (``prompt()`` commands), ``relay`` (``runAgentTurn``'s guard; None: served and open to this caller),
    ``dictionary`` (the browser's entries for error keys), ``voice`` (a voice engine), ``max_turns`` and
    ``stored`` (the transcript web storage holds when the page opens). ``observe`` names the extra
    observations to report as events: ``settle`` (each ``ScreenSettle.wait()`` and each tool run's start
    and return, in order) and ``listen`` (each call of the voice engine's ``listen``).
    """

    def __init__(
        self,
        page: Page,
        provider: ModelProvider,
        *,
        compaction: Compaction | None = None,
        adaptor: Adaptor | None = None,
        reader: Reader | None = None,
        prompts: Sequence[Prompt] = (),
        relay: Relay | None = None,
        dictionary: Mapping[str, str] | None = None,
        voice: Voice | None = None,
        max_turns: int | None = None,
        stored: Sequence[Message] = (),
        panel: ChatPanel | None = None,
        policies: AkanPolicies = DEFAULT_POLICIES,
        recorder: Recorder | None = None,
        observers: Sequence[Observer] = (),
        observe: Collection[str] = (),
    ) -> None:
        self.provider = provider
        self.observe = frozenset(observe)
        self.policies = policies
        self.recorder = recorder if recorder is not None else Recorder()
        self.observers = list(observers)
        compaction = compaction or Compaction()
        adaptor = policies.role_option(adaptor or Adaptor())
        self.adaptor, self.reader, self.prompts = adaptor, reader, list(prompts)
        self.relay, self.dictionary, self.voice = relay, dict(dictionary or {}), voice
        self.max_turns_option = max_turns
        self.at = policies.default_at_tokens if compaction.at is None else compaction.at
        self.keep = policies.default_keep if compaction.keep is None else compaction.keep
        self.accepts = accepts_of(adaptor)
        self.transcript: list[Message] = []
        self.composer: list[tuple[ceilings.Candidate, Attachment]] = []
        self.is_running = False
        self.is_compacting = False
        self.held_at: int | None = None
        self.clock = VirtualClock()
        self.page = LivePage(page, policies)
        if "settle" in self.observe:
            self.page.on_wait = lambda phase: self._emit("settle", phase=phase)
        #: Declarations of the mounted components (akan.surface.declaration-is-the-surface).
        in_view = policies.placement.in_view
        statements = [t for t in page.tools if in_view(t.zone, page.zone)]
        self.declarations, errors = policies.declarations.render([], statements, first=True)
        #: The declaration statements the mounted components run on every render.
        self.statements = list(self.declarations)
        for text in errors:  # akan.tool.exec-is-the-only-hook
            self._emit("console", level="error", text=text)
        for name, count in policies.declarations.clashes(self.declarations).items():
            self._emit("tool_clash", name=name, registrations=count)
        notices = [*policies.declarations.withdrawal_notices(self.declarations),
                   *(policies.forms.misspelled(page.form) if page.form is not None else [])]
        # akan.tool.undescribable-arg-console-not-throw, akan.form.post-set-misspelling-logged
        for text in notices:
            self._emit("console", level="warn", text=text)
        self.waiting: Waiting | None = None
        self.stored: list[Message] = [dict(message) for message in stored]
        self._minted_ids = 0
        self._turns = 0
        self._reply: str | None = None
        #: The composer's text and whether it came from the microphone (akan.speech.no-wire-field-for-voice:
        #: this flag stays here and never reaches a message).
        self.draft, self.draft_voiced, self.turn_voiced = "", False, False
        self.speaker = Speaker(voice, self.clock, self._emit, policies.speech) if voice else None
        #: The panel and its composer, when the scenario draws them (``panel``).
        self.ui = None if panel is None else ChatUi(
            panel, policies.composer, policies.panel, send=lambda text: self._send(text, False),
            commands=self.commands, transcript=lambda: self.transcript, emit=self._emit,
        )

    def _emit(self, type: str, **fields: Any) -> None:
        event = self.recorder.emit(type, **fields)
        for observer in self.observers:
            observer(type, {key: value for key, value in event.items() if key != "type"})

    def _outcome(self, since: int) -> TurnResult:
        """The typed summary of what happened since event ``since``."""
        events = tuple(self.recorder.events[since:])
        kinds = {str(event["type"]) for event in events}
        status: Status
        if "input_refused" in kinds:
            status = "refused"
        elif "turn_failed" in kinds:
            status = "failed"
        elif self.waiting is not None:
            status = "waiting"
        elif "turn_limit" in kinds:
            status = "limit"
        elif self._reply is not None:
            status = "answered"
        elif "turn_stopped" in kinds:
            status = "stopped"
        else:
            status = "done"
        return TurnResult(
            status=status,
            reply=self._reply,
            question=self.waiting.question if self.waiting is not None else None,
            tool_calls=tuple(str(e["name"]) for e in events if e["type"] == "tool_call"),
            events=events,
        )

    def _begin(self) -> int:
        self._reply = None
        return len(self.recorder.events)

    # -- the composer -------------------------------------------------------------------------------

    def attach(self, file: File) -> ceilings.Admission:
        """The paperclip: admit or refuse one file against what the message already carries."""
        candidate = ceilings.Candidate(file.name, file.byte_size)
        admission = self.policies.ceilings.admit([c for c, _ in self.composer], candidate)
        if not admission.accepted:
            self._emit("attachment_refused", name=file.name, reason=admission.reason, text=admission.text)
            return admission
        attachment = read_file(file, self.reader)
        if attachment["kind"] == "file" and self.policies.unclaimed_file == "refused":
            text = f"{file.name} cannot be read here, so it was not attached."
            self._emit("attachment_refused", name=file.name, reason="unreadable", text=text)
            return ceilings.Admission(False, "unreadable", text)
        self.composer.append((candidate, attachment))
        self._emit("attachment_added", name=file.name, kind=attachment["kind"], size=file.byte_size)
        return admission

    def send(self, text: str, *, voiced: bool = False) -> TurnResult:
        """Enter in the composer: a slash command, the answer to a question card, or a new message.

        ``voiced`` says the text came from the microphone; it decides only whether the answer is read aloud.

        akan.slash.new-and-copy-dispatch-first: ``/new`` and ``/copy`` are looked at before anything else,
        so a running turn cannot refuse them and a question card cannot take them as the user's answer.
        """
        since = self._begin()
        self._send(text, voiced)
        self._autosave()
        return self._outcome(since)

    def _send(self, text: str, voiced: bool) -> None:
        command = self.policies.commands.parse(text)
        if command is not None and self._dispatch_first(command):
            return
        if self.waiting is not None and self.waiting.question is not None:
            self.turn_voiced = voiced
            self._answer_question(text)
            return
        if self.is_running:
            self._emit("input_refused", text=text, reason="turn-running")
            return
        if command is not None and self._command(command):
            return
        message = self.policies.user_message(text, voiced)
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
        if self.policies.report_lands_as == "note":
            self.note(message)
        else:
            self._fail_turn(None, message)

    def stop(self) -> TurnResult:
        """The Stop button: a paused turn ends now; its unanswered calls stay for sanitize to answer.

        It also cuts off speech in progress (akan.speech.barge-in).
        """
        since = self._begin()
        if self.speaker is not None:
            self.speaker.cancel("stop")
        if self.is_running:
            self._abort()
        return self._outcome(since)

    # -- the microphone -----------------------------------------------------------------------------

    def microphone(self) -> bool:
        """akan.speech.unavailable-renders-no-mic: whether the composer draws a microphone."""
        return self.policies.speech.has_microphone(self.voice)

    def mic(self, heard: Sequence[str]) -> str:
        """One press: speech stops, and what was heard lands in the composer; returns the draft.

        akan.speech.press-to-talk-into-composer: one utterance per press; the user corrects, then sends.
        """
        if not self.microphone():
            self._emit("input_refused", text=heard[0], reason="no-microphone")
            return self.draft
        assert self.speaker is not None
        self.speaker.cancel("mic")
        speech = self.policies.speech
        draft, send_now = speech.press(speech.hear(speech.engine(heard, self._observe_listen)))
        self.draft, self.draft_voiced = draft, True
        self._emit("draft", text=self.draft, voiced=True)
        if send_now:
            self.send_draft(None)
        return self.draft

    def _observe_listen(self, handlers: list[str]) -> None:
        """With ``observe`` holding ``listen``: the chat called the engine's listen with these callbacks."""
        if "listen" in self.observe:
            self._emit("listen", handlers=handlers)

    def send_draft(self, edit: str | None = None) -> TurnResult:
        """Enter on the composer's text; a corrected voice draft still counts as a voiced ask."""
        text, voiced = (self.draft if edit is None else edit), self.draft_voiced
        self.draft, self.draft_voiced = "", False
        return self.send(text, voiced=voiced)

    def click(self, name: str, arguments: Mapping[str, Any] | None = None) -> None:
        """The person presses the control wired to the callable ``st.tool(name)`` returned.

        akan.tool.declaration-returns-shared-callable: the callable is the declaration's own handler, so
        the person's press runs the body the agent's call runs, with the same effect on the page.
        """
        tool = next((t for t in self.declarations if t.name == name), None)
        if tool is None or not self.policies.click_runs_handler:
            return
        tool.run(dict(arguments or {}))
        if tool.html_after is not None:
            self.page.pending_html = tool.html_after

    def render(self) -> None:
        """The mounted components render again (a state change elsewhere): each declaration statement they
        hold runs once more. A clash this makes is warned about as one found at mount is."""
        declarations = self.policies.declarations
        before = declarations.clashes(self.declarations)
        self.declarations, _ = declarations.render(self.declarations, self.statements, first=False)
        for name, count in declarations.clashes(self.declarations).items():
            if before.get(name) != count:
                self._emit("tool_clash", name=name, registrations=count)

    def unmount(
        self, tools: Sequence[str] = (), state: Sequence[str] = (), guides: Sequence[str] = ()
    ) -> None:
        """Components unmount: the tools they declared, the keys they read and the guides they rendered leave.

        akan.guide.is-a-rendered-component: a guide is a component, so it goes when it stops rendering.
        """
        self.declarations, self.page.state = self.policies.placement.unmount(
            self.declarations, self.page.state, tools, state
        )
        self.statements, _ = self.policies.placement.unmount(self.statements, {}, tools, ())
        if self.policies.guides_follow_render:
            self.page.rendered_guides = [g for g in self.page.rendered_guides if g.text not in guides]

    def advance(self, ms: int) -> None:
        """Let ``ms`` milliseconds of virtual time pass (speech in progress moves on)."""
        self.clock.advance(ms)
        if self.speaker is not None:
            self.speaker.tick()

    def _read_aloud(self, text: str) -> None:
        """akan.speech.read-aloud-only-after-voice-ask, akan.speech.parked-card-read-aloud."""
        if self.speaker is not None and self.policies.speech.reads_aloud(self.turn_voiced):
            self.speaker.say(text)

    # -- storage ------------------------------------------------------------------------------------

    def persist(self, newest: int | None = None) -> list[Message]:
        """Save to web storage; a store capped to its newest messages is sanitized as it is cut.

        akan.sanitize.runs-on-capped-store. Returns what was stored.
        """
        policies = self.policies
        kept = (
            list(self.transcript) if newest is None
            else policies.cap_store(self.transcript, newest, policies.stopped_result)
        )
        self.stored = [policies.persisted(m) for m in kept]
        self._emit("persisted", transcript=self.stored)
        return self.stored

    def _storage(self) -> str | None:
        """With a panel, where its ``persist`` prop keeps the transcript (None: nowhere)."""
        return None if self.ui is None else self.policies.panel.storage(self.ui.panel)

    def _autosave(self) -> None:
        """A chat with ``persist`` keeps web storage up to date with its transcript after every step."""
        if self._storage() is not None:
            self.stored = [self.policies.persisted(m) for m in self.transcript]

    def reload(self) -> list[Message]:
        """A page reload: the running turn and the composer are gone; the saved transcript comes back.

        akan.sanitize.runs-on-restore: a save taken between a call and its result can carry on. With a
        panel, its ``persist`` prop decides whether anything was kept (akan.mount.persist-default-off).
        """
        kept = self.stored if self.ui is None or self._storage() is not None else []
        return self._restore(kept)

    def reopen(self) -> list[Message]:
        """The tab is closed and the app opened in a new one: only localStorage survived
        (akan.mount.persist-storage-choice). Needs a panel."""
        self._ui()
        return self._restore(self.stored if self._storage() == "local" else [])

    def unmount_chat(self) -> None:
        """The chat component unmounts (needs a panel): a session it made ends with it, so no turn goes on
        driving a screen nobody sees; a provided session carries on (akan.mount.own-session-ends-on-
        unmount, akan.mount.provided-session-outlives-chat)."""
        ends = self.policies.panel.ends_on_unmount(self._ui().panel)
        if ends and self.is_running:
            self._abort()
        self._emit("chat_unmounted", session_ended=ends)

    def _restore(self, kept: list[Message]) -> list[Message]:
        self.waiting, self.composer, self.held_at = None, [], None
        if self.is_running or self.is_compacting:
            self._status(running=False, compacting=False)
        self.transcript = self.policies.restore(kept, self.policies.stopped_result)
        self._emit("restored", transcript=self.transcript)
        return self.transcript

    # -- slash commands -----------------------------------------------------------------------------

    def _dispatch_first(self, command: Command) -> bool:
        table = self.policies.commands
        name = table.builtin(command.name)
        return name in table.dispatch_first and self._builtin_command(name)

    def _command(self, command: Command) -> bool:
        """A built-in wins a name an app prompt shares (akan.slash.builtin-wins-collision)."""
        table = self.policies.commands
        if table.winner == "prompt" and self._prompt(command):
            return True
        name = table.builtin(command.name)
        if name is not None and self._builtin_command(name):
            return True
        return table.winner == "builtin" and self._prompt(command)

    def _builtin_command(self, name: str) -> bool:
        table, policies = self.policies.commands, self.policies
        if name == "new":
            self._new()
        elif name == "copy":
            self._copy()
        elif name == "compact":
            if policies.command_compaction_runs:
                self._status(running=True)
            try:
                self._compact(keep=policies.command_keep, trigger="command")
            finally:
                if policies.command_compaction_runs:
                    self._status(running=False)
        elif name == "retry":
            self._retry()
        elif name == "help":
            self.note(table.help_note(self.commands()))
        elif name == "tools":
            self.note(table.tools_note(list(policies.declarations.published(self.declarations))))
        else:
            return False
        return True

    def _new(self) -> None:
        """akan.slash.new-aborts-then-waits: the turn is ended before the transcript is emptied."""
        if self.is_running and self.policies.new_aborts:
            self._abort()
        self.transcript, self.held_at = [], None

    def _copy(self) -> None:
        """akan.slash.copy-includes-route-and-time; locals stay out (akan.local.withheld-from-wire)."""
        at = iso_time(self.clock.now_ms())
        messages = self.policies.on_wire(self.transcript)
        self._emit("export", **self.policies.export(self.page.route, at, messages))

    def commands(self) -> list[str]:
        """The ``/`` menu."""
        return self.policies.commands.menu([prompt.name for prompt in self.prompts])

    def command_descriptions(self) -> dict[str, str]:
        """The description the ``/`` menu shows beside each listed prompt that has one."""
        listed, table = set(self.commands()), self.policies.commands
        described = {f"/{p.name}": table.description(p) for p in self.prompts}
        return {name: text for name, text in described.items() if name in listed and text is not None}

    def _prompt(self, command: Command) -> bool:
        """An app's ``prompt()`` command, called with the positional arguments typed after its name.

        akan.slash.positional-whitespace-args-with-quotes: argument N fills parameter N.
        """
        prompt = next((p for p in self.prompts if p.name == command.name), None)
        if prompt is None:
            return False
        self._emit("prompt_called", name=prompt.name, args=list(command.args))
        if not prompt.allowed:
            # akan.slash.prompt-guards-at-call-time: the GET's guard answers, not the menu.
            self._emit("prompt_denied", name=prompt.name, status=403)
            self.note(f"/{prompt.name} is not available to you here.")
            return True
        for item in prompt.messages:
            text = fill(item.text, prompt.params, command.args)
            self.transcript.append(self.policies.prompt_message(text, item.images))
        self._run()
        return True

    def _retry(self) -> None:
        """Replay the newest message the user wrote; what came before it stays and is not re-sent."""
        kept = self.policies.retry(self.transcript)
        if kept is None:
            if self.policies.nothing_to_retry is not None:
                self.note(self.policies.nothing_to_retry)
            return
        self.transcript = kept
        self._run()

    # -- the loop -----------------------------------------------------------------------------------

    def _status(self, *, running: bool | None = None, compacting: bool | None = None) -> None:
        if compacting and not self.policies.shows_compacting:
            compacting = None
        self.is_running = self.is_running if running is None else running
        self.is_compacting = self.is_compacting if compacting is None else compacting
        self._emit("status", running=self.is_running, compacting=self.is_compacting)

    def _run(self) -> None:
        self._status(running=True)
        self._loop()

    def _loop(self) -> None:
        """Post until the model answers without calls; a paused call leaves the turn running.

        akan.builtin.max-turns-bound: at ``maxTurns`` requests the loop ends, tool results in place.
        """
        limit = self.policies.max_turns(self.max_turns_option)
        try:
            for posted in range(limit + 1):
                if posted == limit:
                    self._emit("turn_limit", max_turns=limit)
                    break
                entry = self._post_turn()
                if entry is None or not self._answer(entry):
                    break
        finally:
            if self.waiting is None:
                self._status(running=False)

    def _abort(self) -> None:
        """End the running turn now. Unanswered calls are left as they are (see the module docstring)."""
        if self.waiting is not None:
            running = self._tool(self.waiting.calls[0]["name"])
            if running is not None and self.waiting.question is None:
                self._left_running(running)
            self.transcript.extend(self.policies.stop_answers(self.waiting.calls, self.waiting.question))
        answered = {m.get("tool_call_id") for m in self.transcript if m["role"] == "tool"}
        calls = [c["id"] for c in self.waiting.calls if c["id"] not in answered] if self.waiting else []
        self.waiting = None
        self._emit("turn_stopped", calls=calls)
        self._status(running=False)

    def _left_running(self, tool: PageTool) -> None:
        """What becomes of the tool a stopped turn was waiting on.

        akan.builtin.abort-signal-via-agent-abort: Stop hands the body the abort signal (``AgentAbort
        .current``) and cancels nothing. A body that honours the signal cleans up, so its work never lands;
        one that ignores it runs on, and the change its work makes lands on the page.
        """
        signalled = self.policies.abort_reaches_tools
        if self.policies.stop_cancels_tools or (signalled and tool.on_abort == "honour"):
            return
        if tool.html_after is not None:
            self.page.pending_html = tool.html_after

    def _estimate(self, transcript: list[Message]) -> int:
        return estimate_tokens(self.policies.on_wire(transcript), self.policies.chars_per_token)

    def _post_turn(self) -> ModelResponse | None:
        """Post one request, compacting first when past the threshold (akan.compaction.before-the-turn).

        akan.sanitize.runs-on-request-assembly: the turn's own request is built from a sound transcript.
        """
        policies, page = self.policies, self.page
        page.settle()  # the model's reply takes far longer than any change a tool left in flight
        self.transcript = policies.sanitize_request(self.transcript, policies.stopped_result)
        if policies.should_compact(self._estimate(self.transcript), self.at, self.held_at):
            self._compact(keep=self.keep, trigger="auto")
        messages = policies.on_wire(self.transcript)
        actions = [{"name": name, "description": "", "parameters": {"type": "object", "properties": {}}}
                   for name in page.model.store_actions] if policies.publishes_store_actions else []
        tools = policies.builtins.offered(
            [*policies.declarations.page_entries(self._mounted()), *page.form_tools(), *page.ui_tools(),
             *page.local_tools(), *actions, *policies.declarations.store_tools(page.model.stores)]
        )
        to_model = policies.model_text
        return self._relay_turn({
            "messages": messages,
            "tools": [{**t, "description": to_model(t["description"], self.dictionary)} for t in tools],
            "screen": page.model.screen,
            "context": page.context(),
            "guides": [to_model(text, self.dictionary) for text in page.guides()],
            "provider": policies.provider_settings(self.adaptor),
            "provider_messages": [
                policies.provider_message(policies.explained(m), self.accepts, policies.can_read)
                for m in messages
            ],
        })

    def _relay_turn(self, request: dict[str, Any]) -> ModelResponse | None:
        """One post to ``runAgentTurn``: its guard, the adaptor, then the model (``reference.akan.relay``).

        The model is asked (a ``model_request``) only when the guard admits the caller and the adaptor has
        a model to ask; an error comes back as a key and values and is resolved here, as fetchRunner does.
        """
        self._turns += 1
        relay = self.policies.relay
        accept = relay.accept_header(self.relay)
        post = {"turn": self._turns, "accept": accept, "path": relay.response_path(accept)}
        admission = relay.admit(self.relay)
        if admission.outcome != "relayed":
            refused = {"refused_by": admission.refused_by} if admission.refused_by else {}
            self._emit("relay", **post, outcome=admission.outcome, **refused)
            self._fail_turn(403 if refused else 404, f"the relay answered {admission.outcome}")
            return None
        error = self.policies.adaptor_error(self.adaptor, self._turns)
        if error is not None:
            self._emit("relay", **post, outcome="error", error=error.wire())
            self._fail_turn(None, self.policies.resolve_error(error, self.dictionary), key=error.key)
            return None
        try:
            entry = relay.exchange(
                request,
                lambda posted: self.provider.complete(posted, purpose="turn"),
                lambda name, arguments: self._run_tool(self._tool(name), name, arguments),
            )
        except ProviderFailure as failure:
            self._emit("relay", **post, outcome="failed", status=failure.status)
            self._fail_turn(failure.status, str(failure))
            return None
        self._emit(
            "relay", **post, outcome="relayed", tool_calls=[call.name for call in entry.tool_calls],
            deltas=relay.deltas(entry, str(post["path"]), self.adaptor.on_delta),
        )
        return entry

    def _fail_turn(self, status: int | None, message: str, key: str | None = None) -> None:
        """akan.transcript.error-folded-into-text: the failed turn stays in the transcript, saying so."""
        self.transcript.append({"role": "assistant", "content": "", "error": message})
        self._emit("turn_failed", status=status, message=message, **({"key": key} if key else {}))

    def _answer(self, entry: ModelResponse) -> bool:
        """Append the model's answer; run its tool calls. True when the loop must post again."""
        if not entry.tool_calls:
            self.transcript.append({"role": "assistant", "content": entry.text})
            self._reply = entry.text
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
            self._emit("tool_call", **call_info)
            tool = self._tool(call_info["name"])
            if tool is not None and (tool.asks is not None or not tool.settles):
                self.waiting = Waiting(calls[index:], tool.asks)
                if tool.asks is not None:
                    self._emit("question", id=call_info["id"], text=tool.asks)
                    self._read_aloud(tool.asks)
                return False
            content = self._run_tool(tool, call_info["name"], call_info["arguments"], call_info["id"])
            self._result(call_info, content)
        return True

    def _result(self, call_info: dict[str, Any], content: str) -> None:
        self.transcript.append({"role": "tool", "tool_call_id": call_info["id"], "content": content})
        self._emit("tool_result", id=call_info["id"], name=call_info["name"], content=content)

    def _answer_question(self, text: str) -> None:
        """The question card took the composer: the text answers the waiting call and the turn resumes."""
        assert self.waiting is not None
        calls, self.waiting = self.waiting.calls, None
        self._result(calls[0], json_text({"answer": text}))
        if self._run_calls(calls[1:]):
            self._loop()

    def _mounted(self) -> list[PageTool]:
        """The declarations mounted on the page as the turn starts.

        akan.builtin.catalogue-snapshot-per-turn: a tool whose page a navigation mounts is offered from the
        turn after the navigation, and one whose page was left is gone by then.
        """
        route = self.page.route if self.policies.catalogue_follows_route else self.page.model.route
        return [tool for tool in self.declarations if tool.route is None or under(route, tool.route)]

    def _tool(self, name: str) -> PageTool | None:
        """Only published declarations can be called by the model."""
        return self.policies.declarations.published(self._mounted()).get(name)

    def _run_tool(
        self, tool: PageTool | None, name: str, arguments: dict[str, Any], call_id: str | None = None
    ) -> str:
        """Whoever answers ``name`` first, in ``Builtins.call_order`` (a page tool shadows a built-in of its
        name: akan.builtin.hook-tool-shadows-builtin); then the session's own wait for the screen."""
        page = self.page
        runners: dict[str, Callable[[], str | None]] = {
            "page": lambda: None if tool is None else self._page_tool(tool, arguments),
            "form": lambda: page.run_form_tool(name, arguments),
            "ui": lambda: self._ui_tool(name, arguments),
            "local": lambda: page.run_local_tool(name, arguments),
            "builtin": lambda: page.run_builtin(name, arguments) if name in BUILTIN_NAMES else None,
        }
        self._trace_run(call_id, name, "start")
        for who in self.policies.builtins.call_order:
            result = runners[who]()
            if result is not None:
                self._trace_run(call_id, name, "return")
                query = who == "builtin" and name in self.policies.builtins.queries
                if self.policies.settles_after_tools and not query:
                    # akan.builtin.settle-after-non-query-tools: a change the tool's work started lands
                    # before the answer (``Builtins.queries`` are the built-ins not waited for).
                    page.wait_for_screen()
                return result
        self._trace_run(call_id, name, "return")
        return json_text({"error": f"no tool named {name} is published on this screen"})

    def _trace_run(self, call_id: str | None, name: str, phase: str) -> None:
        """With ``observe`` holding ``settle``: a tool's run starts, or hands back its value (before the
        session's own wait and the result it then posts)."""
        if "settle" in self.observe:
            self._emit("tool_run", id=call_id, name=name, phase=phase)

    def _ui_tool(self, name: str, arguments: dict[str, Any]) -> str | None:
        """An ``akanjs/ui`` component's tool; a dialog it dismissed is reported as it happened."""
        result = self.page.run_ui_tool(name, arguments)
        for outcome in self.page.dismissals:
            self._emit("dialog_dismissed", **outcome)
        self.page.dismissals.clear()
        return result

    def _page_tool(self, tool: PageTool, arguments: dict[str, Any]) -> str:
        """A page tool's result text; akan.tool.enum-of-refuses-off-values: the body never runs."""
        refused = self.policies.declarations.call_refusal(tool, arguments)
        if refused is not None:
            return json_text({"error": refused})
        result = tool.run(arguments)
        if tool.html_after is not None:
            self.page.pending_html = tool.html_after
        return result if isinstance(result, str) else json_text(result)

    # -- compaction ---------------------------------------------------------------------------------

    def compact(self) -> TurnResult:
        """``/compact``: summarize the whole conversation now (akan.compaction.command-keeps-nothing)."""
        return self.send("/compact")

    def _compact(self, *, keep: int, trigger: str) -> None:
        policies = self.policies
        before = self._estimate(self.transcript)
        cut = policies.cut([cut_role(m) for m in self.transcript], keep)
        if cut is None:
            self._emit("compaction", trigger=trigger, outcome="nothing-to-summarize")
            return
        summarized = policies.on_wire(self.transcript[:cut])
        self._status(compacting=True)
        try:
            bounds = (policies.digest_max_chars, policies.digest_message_chars)
            entry = self.provider.complete(policies.summary_request(summarized, *bounds), purpose="summary")
        except ProviderFailure as failure:
            # akan.compaction.failure.leaves-transcript: nothing changes and no hold is set.
            self._emit("compaction", trigger=trigger, outcome="failed", status=failure.status)
            return
        finally:
            self._status(compacting=False)
        kept = self.transcript[cut:]
        self.transcript = [{"role": "user", "content": entry.text, "summary": True}, *kept]
        after = self._estimate(self.transcript)
        self.held_at = policies.hold_after(before, after)
        self._emit(
            "compaction", trigger=trigger, outcome="summarized", summarized=len(summarized),
            kept=len(policies.on_wire(kept)), estimate_before=before, estimate_after=after,
        )

    # -- reading the page and the chat ---------------------------------------------------------------

    def type(self, text: str, caret_line: int | None = None) -> None:
        """The user types into the composer (needs ``panel``)."""
        self._ui().type(text, caret_line)

    def press(self, key: Key) -> TurnResult:
        """A key press in the composer, or the launcher shortcut (needs ``panel``)."""
        since = self._begin()
        self._ui().press(key)
        self._autosave()
        return self._outcome(since)

    def viewport(self, width: int | None = None, keyboard: int | None = None) -> None:
        """The viewport's width or the on-screen keyboard's height changes (needs ``panel``)."""
        self._ui().viewport(width, keyboard)

    def _ui(self) -> ChatUi:
        if self.ui is None:
            raise ValueError("this chat was opened without a panel; pass panel=ChatPanel(...)")
        return self.ui

    def open_row(self, call_id: str) -> dict[str, Any] | None:
        """The user opens a settled tool row in the transcript: what the row shows (None: no such row).

        akan.transcript.tool-row-shows-own-tokens, akan.transcript.tool-row-opens-result.
        """
        rows = self.policies.transcript_view.tool_rows(self.transcript, self._estimate)
        row = next((row for row in rows if row["id"] == call_id), None)
        if row is None:
            self._emit("input_refused", text=call_id, reason="no-settled-row")
        else:
            self._emit("tool_row", **row)
        return row

    def read_screen(self, section: str | None = None) -> str:
        """What the ``readScreen`` built-in would answer the model right now."""
        return self.page.read_screen(section)

    def state(self) -> ChatState:
        """The chat as the user sees it now."""
        view = self.policies.transcript_view
        return ChatState(
            transcript=tuple(self.transcript),
            tokens=view.tokens(self.transcript, self._estimate),
            composer=tuple(attachment["name"] for _, attachment in self.composer),
            is_running=self.is_running,
            is_compacting=self.is_compacting,
            route=self.page.route,
            commands=tuple(self.commands()),
            command_descriptions=self.command_descriptions() if any(p.desc for p in self.prompts) else None,
            form=self.page.form_values if self.page.model.form is not None else None,
            page_state={name: self.policies.state.page_view(entry) for name, entry in self.page.state.items()}
            if self.page.model.state else None,
            draft=self.draft if self.voice is not None else None,
            microphone=self.microphone() if self.voice is not None else None,
            panel=self.ui.render() if self.ui is not None else None,
        )
