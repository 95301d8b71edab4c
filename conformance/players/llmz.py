"""Plays a llmz scenario through the reference's public API (``reference.llmz``) and returns its record.

The scenario vocabulary (``conformance.scenario.llmz``) is declarative: a tool "returns" a value, "fails
first" twice, "hangs"; a hook "rejects". Here each of those becomes the Python callable a host would
write, and each step becomes one API call on one ``Session``: ``append``, ``execute``, a JSON round trip
(``to_json`` / ``from_json``), ``summarize`` or ``compact``. The record is what the runtime reports to its
observers, with the model traffic the provider records beside it (vocabulary: spec/protocol/records/llmz.md).
Step failures that llmz reports to the caller (an invalid append, a session that cannot be restored) are
recorded as ``error`` events and the scenario continues, so scenarios can check what happens next.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from conformance.players import CannotExpress, capabilities
from conformance.players.common import ProviderFactory, given, scripted_provider
from conformance.players.llmz_host import (
    HostProbes,
    clones_in_place,
    component_definition,
    metadata_reporter,
)
from conformance.players.llmz_probes import answer as probe_answer
from conformance.scenario.invalid import raw
from conformance.scenario.llmz import (
    CHANGED_TEXT,
    AfterToolHook,
    AppendStep,
    CompactStep,
    ComponentSpec,
    ExecuteOptions,
    ExecuteStep,
    HooksSpec,
    IterationRef,
    LlmzCase,
    ObserverBehaviour,
    OnInspectHook,
    PruneStep,
    RequestMessagesStep,
    SaveAndRestoreStep,
    SchemaEffect,
    SessionProbe,
    Setup,
    SummarizeStep,
    TamperAccessorsStep,
    ToolBehaviour,
    ToolSpec,
)
from conformance.scenario.llmz_host import HOST_PROBE_STEPS, ResultContentsStep
from conformance.scenario.llmz_probes import ProbeStep
from reference.llmz import (
    DEFAULT_POLICIES,
    NEVER_SETTLES,
    Abort,
    AbortSignal,
    Chat,
    Compaction,
    Component,
    Effect,
    Exit,
    Hooks,
    HostObject,
    InspectEvent,
    LlmzError,
    Model,
    Options,
    Policies,
    Property,
    SchemaIssue,
    Session,
    ThinkSignal,
    Tool,
    compact,
    execute,
    prune,
    request_messages,
    summarize,
    truncate,
)
from reference.llmz.api import DEFAULT_MODELS, ExecutionResult
from reference.record import Recorder, snapshot

UNKNOWN_FORMAT_VERSION = 999_999
"""What ``save_and_restore(unknown_version)`` writes: a format version no runtime knows."""

#: Capability flags this reference declares for llmz (scenarios may `require` them).
CAPABILITIES: tuple[str, ...] = capabilities.LLMZ

PolicyChange = Callable[[Policies], Policies]


class HandlerError(Exception):
    """What a scenario's throwing handler or hook raises: an ordinary ``Error`` with the given message."""


def _raise(message: str) -> NoReturn:
    raise HandlerError(message)


#: ``setup.chat.on_delta`` -> how llmz's one ``onDelta`` treats (previews, restart events); the reference
#: takes them as two callbacks, ``on_delta`` and ``on_restart``.
_PREVIEWS: dict[str, tuple[ObserverBehaviour, ObserverBehaviour]] = {
    "none": ("none", "none"),
    "observe": ("observe", "observe"),
    "throw": ("throw", "throw"),
    "throw_on_restart": ("observe", "throw"),
}


def _observer(behaviour: ObserverBehaviour) -> Callable[..., Any] | None:
    """An observer hook that is absent, does nothing, or throws every time."""
    if behaviour == "none":
        return None
    if behaviour == "throw":
        return lambda *_: _raise("observer failed")
    return lambda *_: None


def _iteration_start(spec: HooksSpec) -> Callable[..., Any] | None:
    """``onIterationStart``: an observer, which with ``iteration_start_returns`` also returns an
    iteration change in the previous API's shape (llmz.migration.iteration-start-no-mutation)."""
    observer = _observer(spec.on_iteration_start)
    text = spec.iteration_start_returns
    if observer is None or text is None:
        return observer
    inner = observer

    def returning(*args: Any) -> Any:
        inner(*args)
        return {"instructions": text}

    return returning


def _handler(kind: str) -> Callable[[Any], Any] | None:
    """A chat or component handler: ``ok`` acknowledges, ``fail`` throws, ``none`` is not bound."""
    if kind == "none":
        return None
    if kind == "fail":
        return lambda _content: _raise("the handler failed")
    return lambda _content: None


def _mentions(value: Any, text: str) -> bool:
    """Whether ``text`` occurs in the JSON spelling of ``value`` (``OnInspectHook.when``)."""
    return text in json.dumps(value, ensure_ascii=False, default=str)


def _on_inspect(hook: OnInspectHook, heard: Callable[[InspectEvent], None]) -> Callable[[Any], str | None]:
    def on_inspect(event: InspectEvent) -> str | None:
        if hook.record:
            heard(event)
        if hook.when is not None and not _mentions(event.value, hook.when):
            return None  # another value is left to the default formatter
        if hook.action == "throw":
            _raise(hook.text or "onInspect failed")
        if hook.action == "mutate" and isinstance(event.value, dict):
            event.value.clear()
            event.value["mutated"] = True
        return hook.text if hook.action == "replace" else None

    return on_inspect


def _after_tool(hook: AfterToolHook) -> Callable[[Any, Any], Any]:
    def after_tool(_input: Any, _output: Any) -> Any:
        if hook.reject is not None:
            _raise(hook.reject)
        if hook.abort is not None:
            raise Abort(hook.abort)
        if hook.think_signal is not None:
            raise ThinkSignal(hook.think_signal)
        return hook.replace_output

    return after_tool


MUTATED_TEXT = "changed by onBeforeRequest"


def _mutate_in_place(value: Any) -> None:
    """What a careless onBeforeRequest does to the messages it was handed: rewrite every ``content`` and
    ``code`` string, at any depth, in place."""
    if isinstance(value, list):
        for item in value:
            _mutate_in_place(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            if key in ("content", "code") and isinstance(item, str):
                value[key] = MUTATED_TEXT
            else:
                _mutate_in_place(item)


def _constant(value: Any) -> Callable[[Any], Any]:
    """onBeforeTool answering the same input whatever the model's was."""
    return lambda _input: value


def _effect(spec: SchemaEffect, counter: list[int]) -> Effect:
    """A declarative schema effect as the callback a host would write (``counter`` is its run count)."""

    def apply(value: Any) -> Any:
        if spec.throws is not None:
            _raise(spec.throws)
        if spec.refine is not None:
            refine = spec.refine
            if isinstance(value, dict) and refine.field in value and value[refine.field] == refine.forbid:
                raise SchemaIssue(refine.field, refine.message)
            return value
        if "replace" in spec.model_fields_set:
            return json.loads(json.dumps(spec.replace))
        if not isinstance(value, dict):
            return value
        if spec.trim is not None:
            field = value.get(spec.trim)
            return {**value, spec.trim: field.strip()} if isinstance(field, str) else value
        if spec.counts is not None:
            counter[0] += 1
            return {**value, spec.counts: counter[0]}
        return {**value, **json.loads(json.dumps(spec.assign))}

    return Effect(apply, asynchronous=spec.async_)


def _effects(specs: list[SchemaEffect]) -> list[Effect]:
    return [_effect(spec, [0]) for spec in specs]


class Player:
    def __init__(self, scenario: LlmzCase, provider: ProviderFactory, policies: Policies) -> None:
        self.setup: Setup = scenario.setup
        self.recorder = Recorder()
        self.provider = provider(scenario.script, self.recorder)
        self.policies = policies
        self.last_result: ExecutionResult | None = None
        self.observers = [self._observe]
        self.next_iteration = 1
        """The iteration under way in the current execute (1-based): the next one to end."""
        compaction = self.setup.compaction
        self.summarize_callback = _summarize_callback(self.setup)
        self.iteration_ids: dict[tuple[int, int], str] = {}
        """(execution, index) of the record -> the reference's iteration id (for prune, requestMessages)."""
        self.session = Session(
            compaction=None
            if compaction is False
            else Compaction(
                **given(**compaction.model_dump(exclude={"summarize"})), summarize=self.summarize_callback
            ),
            variables=self.setup.memory.variables,
            max_bytes=self.setup.memory.max_bytes,
            policies=policies,
        )
        self.call_counts: dict[str, int] = {}
        """Calls per tool over the whole scenario, so "fails twice" spans iterations and executions."""
        models = self.setup.models
        self.models = (
            [Model(m.id, m.input_tokens, m.output_tokens, **given(audio=m.audio)) for m in models]
            if models is not None
            else list(DEFAULT_MODELS)
        )
        self.tools = [self._tool(spec) for spec in self.setup.tools]
        self.tools = clones_in_place(self.setup, self.tools, policies)
        self.hooks = self._hooks(self.setup.hooks)
        self.components = {
            spec.name: component_definition(
                spec, self._component_handler(spec), _effects(spec.effects)
            )
            for spec in self.setup.chat.components
            if isinstance(spec.name, str)
        }
        self.probes = HostProbes(
            self.setup,
            self.recorder,
            policies,
            self.components,
            {tool.name: tool for tool in self.tools},
            {e.name: Exit(e.name, e.description, e.schema_, _effects(e.effects)) for e in self.setup.exits},
        )

    def _component_handler(self, spec: ComponentSpec) -> Callable[..., Any] | None:
        handler = _handler(spec.handler)
        return metadata_reporter(handler, self.recorder, str(spec.name)) if spec.report_metadata else handler

    def _inspected(self, event: InspectEvent) -> None:
        """A recorded ``onInspect`` call: the purpose and identity the runtime gave it."""
        identity = None if event.identity is None else json.loads(json.dumps(dict(event.identity)))
        self.recorder.emit(
            "hook", iteration=self.next_iteration, name="onInspect", purpose=event.purpose, identity=identity
        )

    def _observe(self, kind: str, fields: dict[str, Any]) -> None:
        """An observer of the run: ``fields`` is this observer's own copy (``reference.llmz.events``), so
        the recorder takes it as it is."""
        if kind == "iteration":
            self.next_iteration = fields["index"] + 1
            self._name_iteration(fields["execution"], fields["index"])
            if not self.setup.record_context_tokens:
                fields = {key: value for key, value in fields.items() if key != "tokens"}
        self.recorder.take(kind, fields)

    def _name_iteration(self, execution: int, index: int) -> None:
        """The iteration that just ended is the one whose messages were stored last (none were when it
        failed before dispatch; it then has no id to prune or keep)."""
        known = set(self.iteration_ids.values())
        for message in reversed(self.session.history):
            iteration = message.get("iteration")
            if isinstance(iteration, str):
                if iteration not in known:
                    self.iteration_ids[(execution, index)] = iteration
                return

    def _ids(self, refs: list[IterationRef], op: str) -> list[str]:
        missing = [r for r in refs if (r.execution, r.index) not in self.iteration_ids]
        if missing:
            names = ", ".join(f"execution {r.execution} index {r.index}" for r in missing)
            raise ValueError(f"steps: {op}.retained_iterations names {names}, which never stored messages")
        return [self.iteration_ids[(r.execution, r.index)] for r in refs]

    # -- translating the setup ---------------------------------------------------------------------
    def _tool(self, spec: ToolSpec) -> Tool:
        behaviour = spec.behaviour
        return Tool(
            spec.name,
            self._behaviour(spec.name, behaviour) if behaviour is not None else None,
            description=spec.description,
            input=spec.input,
            output=spec.output,
            input_effects=_effects(spec.input_effects),
            output_effects=_effects(spec.output_effects),
            **given(retries=spec.retries),
        )

    def _behaviour(self, name: str, behaviour: ToolBehaviour) -> Callable[[Any], Any]:
        """The handler for a declarative behaviour: what call N of the tool does."""

        def shown(value: Any) -> Any:
            spec = behaviour.truncate
            if spec is None:
                return value
            return truncate(value, raw(spec.max_tokens), **given(preserve=spec.preserve))

        def handler(value: Any) -> Any:
            self.call_counts[name] = count = self.call_counts.get(name, 0) + 1
            if behaviour.session_probe is not None:
                return self._probe(behaviour.session_probe)
            if count <= behaviour.fail_first:
                _raise(behaviour.fail_message)
            if count <= behaviour.cancel_first:
                raise Abort(behaviour.cancel_reason)
            signal = behaviour.think_signal
            if signal is not None:
                made = ThinkSignal(signal.reason, shown(signal.context))
                if signal.via == "throw":
                    raise made
                return made
            if behaviour.throws is not None:
                _raise(behaviour.throws)
            if behaviour.hangs:
                return NEVER_SETTLES
            if behaviour.cancels is not None:
                raise Abort(behaviour.cancels)
            # The runtime gets its own copy of the scripted value: a runtime that changes what a tool gave
            # it (a mutant letting onInspect write through) must not change the case, or a later call.
            return shown(value if behaviour.returns_input else snapshot(behaviour.returns))

        return handler

    def _probe(self, probe: SessionProbe) -> Any:
        """A handler using the session while the run holds it (llmz.errors.session-state)."""
        try:
            if probe.op == "status":
                return self.session.status
            if probe.op == "to_json":
                self.session.to_json()
            elif probe.op in ("execute", "compact", "summarize"):
                self.session.require_idle(probe.op)  # what execute/compact/summarize check first
            else:
                self.session.append([m.model_dump(exclude_none=True) for m in probe.messages])
        except LlmzError as error:
            return {"error": error.code}
        return {"ok": True}

    def _hooks(self, spec: HooksSpec) -> Hooks:
        on_exit = None
        if spec.on_exit != "none":
            on_exit = (lambda *_: _raise("rejected")) if spec.on_exit == "reject" else (lambda *_: None)
        replacement = spec.before_execution
        return Hooks(
            on_exit=on_exit,
            before_tool={hook.tool: _constant(hook.replace_input) for hook in spec.before_tool},
            after_tool={hook.tool: _after_tool(hook) for hook in spec.after_tool},
            on_inspect=_on_inspect(spec.on_inspect, self._inspected) if spec.on_inspect is not None else None,
            before_request=self._before_request(spec) if spec.before_request is not None else None,
            before_execution=(lambda _code: replacement) if replacement is not None else None,
            on_iteration_start=_iteration_start(spec),
            on_iteration_end=_observer(spec.on_iteration_end),
            on_trace=_observer(spec.on_trace),
        )

    def _before_request(
        self, spec: HooksSpec
    ) -> Callable[[list[dict[str, Any]]], list[dict[str, Any]] | None]:
        hook = spec.before_request
        assert hook is not None

        def before_request(messages: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
            if self.provider.calls + 1 < hook.from_call:
                return None  # undefined: the request goes as it is
            if hook.mutate:
                _mutate_in_place(messages)
                if not hook.append:
                    return None
            return messages + [{"role": m.role, "content": m.content} for m in hook.append]

        return before_request

    def _chat(self) -> Chat:
        spec = self.setup.chat
        components = [self._registered(c) for c in spec.components]
        response = spec.response
        by_preset = response is not None and response.form == "preset"
        legacy: dict[str, Any] = {}
        if spec.legacy is not None:
            legacy["transcript"] = [m.model_dump() for m in spec.legacy.transcript]
            if spec.legacy.handler:
                legacy["handler"] = _handler(spec.text_handler)
        moved = spec.legacy is not None and spec.legacy.handler
        return Chat(
            legacy=legacy,
            handler=None if by_preset or moved else _handler(spec.text_handler),
            components=components,
            on_delta=None if by_preset else _observer(_PREVIEWS[spec.on_delta][0]),
            on_restart=None if by_preset else _observer(_PREVIEWS[spec.on_delta][1]),
            preset=response.preset if response is not None else None,
            response_instructions=response.instructions if response is not None else None,
        )

    def _registered(self, spec: ComponentSpec) -> Component:
        """The component the chat registers: the definition, or its ``withHandler`` copy."""
        if not isinstance(spec.name, str):  # a name marked invalid goes to the runtime as written
            return Component(
                raw(spec.name),
                _handler(spec.handler),
                description=spec.description,
                props=spec.props,
                effects=_effects(spec.effects),
            )
        definition = self.components[spec.name]
        if spec.bind == "definition":
            return definition
        handler = self._component_handler(spec)
        return definition if handler is None else self.policies.bind_handler(definition, handler)

    def _exits(self, step: ExecuteStep) -> list[Exit] | None:
        defined = [Exit(e.name, e.description, e.schema_, _effects(e.effects)) for e in self.setup.exits]
        if step.exits is None:
            return defined or None
        by_name = {e.name: e for e in defined}
        missing = [name for name in step.exits if name not in by_name]
        if missing:
            raise ValueError(f"steps: execute.exits names {missing}, which setup.exits does not define")
        return [by_name[name] for name in step.exits]

    def _options(self, step: ExecuteStep) -> Options:
        """The step's options, then the setup's defaults, then the runtime's."""
        ours, defaults = step.options, self.setup.options

        chosen: dict[str, Any] = {}
        for name in ExecuteOptions.model_fields:
            value = getattr(ours, name)
            value = getattr(defaults, name) if value is None else value
            if value is not None:  # unset at both levels: the runtime's own default applies
                chosen[name] = raw(value)
        return Options(**chosen)

    # -- the steps -----------------------------------------------------------------------------------
    def append(self, step: AppendStep) -> None:
        batch = [m.model_dump(exclude_none=True) for m in step.messages]
        if step.non_json is not None:
            _put_non_json(batch[0], step.non_json)
        try:
            self.session.append(batch[0] if step.single else batch)
        except LlmzError as error:
            self.recorder.emit("error", step="append", **error.as_record())
        if step.mutate_after:
            for message in batch:
                _change(message)

    def tamper_accessors(self) -> None:
        """Change what the three read accessors returned; a session that handed out its own state shows it."""
        for view in (self.session.transcript, self.session.messages, self.session.pending_messages):
            for message in view:
                _change(message)
            view.append({"role": "user", "content": CHANGED_TEXT})

    def _tools_for(self) -> Sequence[Tool] | Callable[[], Sequence[Tool]]:
        """The tools, or a getter when some join later: it counts this execute's model calls so far to
        know the iteration it is evaluated for (llmz.tools.dynamic-getters)."""
        specs = self.setup.tools
        if all(spec.from_iteration == 1 for spec in specs):
            return self.tools
        first_call = self.provider.calls

        def getter() -> list[Tool]:
            iteration = self.provider.calls - first_call + 1
            return [t for t, spec in zip(self.tools, specs, strict=True) if spec.from_iteration <= iteration]

        return getter

    def execute(self, step: ExecuteStep) -> None:
        self.next_iteration = 1
        result = execute(
            self.session if step.session == "given" else None,
            self.provider,
            instructions=step.instructions,
            tools=self._tools_for(),
            exits=self._exits(step),
            objects=[
                HostObject(
                    o.name,
                    [
                        Property(
                            p.name,
                            p.value,
                            p.schema_,
                            effects=_effects(p.effects),
                            **given(writable=p.writable),
                        )
                        for p in o.properties
                    ],
                )
                for o in self.setup.objects
            ],
            chat=self._chat() if step.mode == "chat" else None,
            hooks=self.hooks,
            models=self.models,
            options=self._options(step),
            observers=self.observers,
            policies=self.policies,
            legacy={"messages": [m.model_dump() for m in step.legacy.messages]} if step.legacy else None,
        )
        if step.session == "omitted":
            self.session = result.session
        self.last_result = result

    def save_and_restore(self, step: SaveAndRestoreStep) -> None:
        if step.from_result:
            if self.last_result is None:
                raise ValueError("steps: save_and_restore.from_result needs an earlier execute step")
            saved = self.last_result.to_json()
        else:
            saved = self.session.to_json()
        state = json.loads(json.dumps(saved))
        if step.drop_delivery_tracking:
            state.pop("delivery", None)
        if step.unknown_version:
            state["version"] = UNKNOWN_FORMAT_VERSION
        if step.older_version:
            state["version"] = state["version"] - 1
        if step.tamper is not None:
            _tamper(state, step.tamper)
        try:
            self.session = Session.from_json(state, self.policies, summarize=self.summarize_callback)
        except LlmzError as error:
            self.recorder.emit("error", step="save_and_restore", **error.as_record())

    def summarize_or_compact(self, step: SummarizeStep | CompactStep) -> None:
        signal = AbortSignal(aborted=step.signal == "aborted") if step.signal is not None else None
        during = step.signal == "aborts_during"
        provider = _AbortingOnAnswer(self.provider, signal) if during else self.provider
        try:
            if isinstance(step, CompactStep):
                compact(
                    self.session,
                    provider,
                    keep_recent_iterations=step.keep_recent_iterations,
                    models=self.models,
                    observers=self.observers,
                    signal=signal,
                )
            else:
                summarize(
                    self.session, provider, models=self.models, observers=self.observers, signal=signal
                )
        except LlmzError as error:
            self.recorder.emit("error", step=step.op, **error.as_record())

    def request_messages(self, step: RequestMessagesStep) -> None:
        """Record what ``requestMessages`` returns (llmz.sessions.request-messages-*)."""
        refs = step.retained_iterations
        retained = self._ids(refs, step.op) if refs is not None else None
        messages = request_messages(
            self.session, **given(memory=step.memory), **given(retained=retained)
        )
        self.recorder.emit("request_messages", messages=messages)

    def prune(self, step: PruneStep) -> None:
        try:
            prune(self.session, self._ids(step.retained_iterations, step.op))
        except LlmzError as error:
            self.recorder.emit("error", step="prune", **error.as_record())

    def final(self) -> dict[str, Any]:
        return {
            "status": self.session.status,
            "last_speaker": self.session.last_speaker,
            "transcript": self.session.transcript,
            "messages": self.session.messages,
            "pending": len(self.session.pending),
            "variables": sorted(self.session.memory.variables),
        }




def _tamper(state: dict[str, Any], how: str) -> None:
    """Break a reference snapshot the way ``save_and_restore.tamper`` asks (the player knows the format)."""
    history, records = state["history"], state["memory"]["iterations"]
    calls = [m for m in history if m.get("toolCalls")]
    if how == "drop_tool_result":
        newest = calls[-1]["toolCalls"][0]["id"]
        state["history"] = [m for m in history if m.get("toolResultCallId") != newest]
    elif how == "duplicate_call_id":
        oldest, newest = calls[0]["toolCalls"][0]["id"], calls[-1]["toolCalls"][0]["id"]
        calls[-1]["toolCalls"][0]["id"] = oldest
        for message in history:
            if message.get("toolResultCallId") == newest:
                message["toolResultCallId"] = oldest
    elif how == "reverse_iterations":
        first, second = records[0]["id"], records[1]["id"]
        block = [m for m in history if m.get("iteration") in (first, second)]
        start = history.index(block[0])
        swapped = [m for m in block if m["iteration"] == second]
        swapped += [m for m in block if m["iteration"] == first]
        state["history"] = history[:start] + swapped + history[start + len(block) :]
        records[0], records[1] = records[1], records[0]
    elif how == "malformed_result":
        _kept_result(records, how)["result"] = {"$": "not-an-encoding"}
    elif how == "malformed_property":
        kept = _kept_result(records, how)
        result = kept["result"]  # an object result: {"$": "object", "v": {name: encoding}}
        if not (isinstance(result, dict) and result.get("$") == "object" and result.get("v")):
            raise ValueError(
                "steps: save_and_restore.tamper malformed_property needs the oldest retained result to be an "
                "object with at least one property"
            )
        result["v"][list(result["v"])[-1]] = {"$": "not-an-encoding"}
    elif how == "over_capacity":
        state["memory"]["maxBytes"] = 1


def _kept_result(records: list[dict[str, Any]], how: str) -> dict[str, Any]:
    """The oldest retained iteration record holding a result, which the result tampers break."""
    kept = next((r for r in records if r["hasResult"] and r.get("retained", True)), None)
    if kept is None:
        raise ValueError(
            f"steps: save_and_restore.tamper {how} needs an earlier iteration that kept a result"
        )
    return kept


class _AbortingOnAnswer:
    """The host presses Stop while the summary is written: the signal fires as the summary answer arrives
    (``signal: aborts_during``). A host summarize callback is wrapped the same way."""

    def __init__(self, provider: Any, signal: AbortSignal | None) -> None:
        self.provider, self.signal = provider, signal

    @property
    def calls(self) -> int:
        return int(self.provider.calls)

    @calls.setter
    def calls(self, value: int) -> None:
        self.provider.calls = value

    def complete(self, request: dict[str, Any], *, purpose: str = "turn") -> Any:
        answer = self.provider.complete(request, purpose=purpose)
        if self.signal is not None:
            self.signal.aborted = True
        return answer


def _put_non_json(message: dict[str, Any], kind: str) -> None:
    """``append.non_json``: a payload that refers to itself, or one holding raw bytes."""
    payload = message["payload"]
    if kind == "cycle":
        payload["self"] = payload
    else:
        payload["data"] = bytes([1, 2, 3])


def _summarize_callback(setup: Setup) -> Callable[[list[dict[str, Any]], int], str] | None:
    """``setup.compaction.summarize`` as the host callback: it answers with its fixed text."""
    compaction = setup.compaction
    if compaction is False or compaction.summarize is None:
        return None
    text = compaction.summarize.returns
    return lambda _messages, _max_tokens: text


def _change(message: dict[str, Any]) -> None:
    """What ``append.mutate_after`` and ``tamper_accessors`` do to one message the caller holds."""
    content = message.get("content")
    if isinstance(content, str):
        message["content"] = CHANGED_TEXT
    elif isinstance(content, list):
        for part in content:
            if isinstance(part, dict) and part.get("type") == "text":
                part["text"] = CHANGED_TEXT
    payload = message.get("payload")
    if isinstance(payload, dict):
        payload["changed"] = True


def play(
    scenario: LlmzCase,
    provider: ProviderFactory = scripted_provider,
    policies: PolicyChange | None = None,
) -> dict[str, Any]:
    """Play one case; ``policies`` changes the reference's decisions (a mutant or permitted variant)."""
    player = Player(scenario, provider, DEFAULT_POLICIES if policies is None else policies(DEFAULT_POLICIES))
    for step in scenario.steps:
        if isinstance(step, AppendStep):
            player.append(step)
        elif isinstance(step, ExecuteStep):
            player.execute(step)
        elif isinstance(step, SaveAndRestoreStep):
            player.save_and_restore(step)
        elif isinstance(step, SummarizeStep | CompactStep):
            player.summarize_or_compact(step)
        elif isinstance(step, TamperAccessorsStep):
            player.tamper_accessors()
        elif isinstance(step, ResultContentsStep):
            player.probes.result_contents(player.last_result)
        elif isinstance(step, HOST_PROBE_STEPS):
            player.probes.play(step)
        elif isinstance(step, RequestMessagesStep):
            player.request_messages(step)
        elif isinstance(step, PruneStep):
            player.prune(step)
        elif isinstance(step, ProbeStep):
            answer = probe_answer(step, player.setup, player.session, player.last_result, player.policies)
            player.recorder.emit("probe", **answer)
        else:
            raise CannotExpress(f"the llmz reference does not implement the {step.op!r} step")
    player.recorder.final = player.final()
    return player.recorder.to_dict()
