"""``execute``: run model iterations on a session until an exit completes the turn or the run fails.

Before every model call the request is handed to ``reference.llmz.fit.fit_request`` (the token budget
and compaction), which may commit a compacted history or refuse the request (TOKEN_OVERFLOW) before
anything is dispatched. Each answer is played by ``reference.llmz.iteration``. The run ends on an exit
(success), a critical failure, or after ``options.loop`` iterations without completing (ITERATION_LIMIT).
A failed run leaves its turn open, so executing again continues it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from reference.llmz import config as config_module
from reference.llmz import fit, host_api, prompt, request_hook, streaming, transcription
from reference.llmz.api import (
    DEFAULT_MODELS,
    DEFAULT_OPTIONS,
    NO_HOOKS,
    Chat,
    ExecutionResult,
    Exit,
    ExitResult,
    Hooks,
    HostObject,
    IterationResult,
    Model,
    Observer,
    Options,
    Tool,
)
from reference.llmz.conversation import wire
from reference.llmz.errors import CATALOGUE, LlmzError
from reference.llmz.events import Events
from reference.llmz.host import observe
from reference.llmz.iteration import IterationContext, IterationEnd, interrupted_iteration, run_iteration
from reference.llmz.policies import DEFAULT_POLICIES, Policies
from reference.llmz.session import Session
from reference.providers.model import ModelResponse, Usage
from reference.providers.protocol import ModelProvider
from reference.providers.scripted import ProviderFailure, ScriptExhausted

SUMMARY_PROMPT = (
    "Write a summary of the conversation below for your own later use. Keep decisions, external events, "
    "confirmed effects, failures and work still pending. Do not call tools."
)


@dataclass
class Metered:
    """A provider that remembers the usage of every answer it gives, for ``result.tokens``."""

    provider: ModelProvider
    usages: list[Usage] = field(default_factory=list)

    def complete(self, request: dict[str, Any], *, purpose: str = "turn") -> ModelResponse:
        entry = self.provider.complete(request, purpose=purpose)
        self.usages.append(entry.usage)
        return entry

    @property
    def calls(self) -> int:
        """The wrapped provider's count (the protocol's per-turn call numbering stays its own)."""
        return self.provider.calls

    @calls.setter
    def calls(self, value: int) -> None:
        self.provider.calls = value


@dataclass
class Runtime:
    """What execute needs besides the session and its configuration."""

    provider: ModelProvider
    models: list[Model]
    usages: list[Usage] = field(default_factory=list)
    """The provider usage of this run's answers (filled when ``provider`` is ``Metered``)."""


def _model_field(models: list[Model]) -> str | list[str]:
    return models[0].id if len(models) == 1 else [m.id for m in models]


def summarizer(runtime: Runtime, model: str | None) -> Callable[[list[dict[str, Any]], int], str]:
    """The summary call the budget (and standalone compaction) use: one request, no tools."""

    def summarize(messages: list[dict[str, Any]], max_tokens: int) -> str:
        body = "\n\n".join(
            f"[{m.get('role')}] {json.dumps(m.get('content'), ensure_ascii=False)}" for m in messages
        )
        request = {
            "model": model or _model_field(runtime.models),
            "messages": [{"role": "system", "content": SUMMARY_PROMPT}, {"role": "user", "content": body}],
            "tools": [],
            "max_tokens": max_tokens,
        }
        return runtime.provider.complete(request, purpose="summary").text

    return summarize


def _summary_writer(
    session: Session, runtime: Runtime, model: str | None
) -> Callable[[list[dict[str, Any]], int], str]:
    """The host's ``compaction.summarize`` when it gave one, else the model
    (llmz.compaction.custom-summarize)."""
    custom = session.summarize_callback
    if custom is not None and session.policies.uses_custom_summarizer:
        return custom
    return summarizer(runtime, model)


def for_fit(message: dict[str, Any], earlier: bool) -> dict[str, Any]:
    """The budget sees wire messages plus the iteration id; a summary in the compactable history travels
    as its event (``{role: 'summary', content}``) so the compactor can recognise and replace it."""
    source = message.get("source") or {}
    if earlier and source.get("role") == "summary":
        keep: dict[str, Any] = {"role": "summary", "content": source.get("content", "")}
    else:
        keep = wire(message)
    if "iteration" in message:
        keep["iteration"] = message["iteration"]
    return keep


def _as_llmz_error(exc: Exception) -> LlmzError:
    """Budget failures (``fit.FitError`` and friends) carry a catalogue code; anything else is a bug."""
    code = getattr(exc, "code", None)
    if not (isinstance(code, str) and code in CATALOGUE):
        raise exc
    details_of = getattr(exc, "details", None)
    details = details_of() if callable(details_of) else {}
    extra = {k: v for k, v in details.items() if k not in ("code", "critical", "message") and v is not None}
    return LlmzError(code, str(exc), critical=True, **extra)


def build_request(ctx: IterationContext, runtime: Runtime, index: int = 1) -> dict[str, Any]:
    """The request for the next model call, after the budget has had its say."""
    config, session, policies = ctx.config, ctx.session, ctx.policies
    earlier, current = session.split()
    compaction = session.compaction
    guidance = policies.chat_guidance if config.chat else policies.worker_guidance
    if config.response_instructions:
        guidance = f"{guidance}\n\n{config.response_instructions}"
    fit_context = fit.FitContext(
        instructions=policies.system_prompt(config.instructions, guidance),
        tools=prompt.tools(policies.api_description(config)),
        history=[for_fit(m, earlier=True) for m in earlier],
        current=[for_fit(m, earlier=False) for m in current],
        max_tokens=config.max_tokens,
        models=[fit.ModelLimits(m.input_tokens, m.output_tokens) for m in runtime.models],
        compaction=compaction,
        summarize=_summary_writer(session, runtime, (compaction or {}).get("model")),
        render_summary=lambda content: {"role": "user", "content": policies.render_summary(content)},
        policies=policies,
    )
    try:
        result = fit.fit_request(fit_context)
    except ScriptExhausted:
        raise
    except Exception as exc:
        raise _as_llmz_error(exc) from exc
    messages = [{k: v for k, v in m.items() if k != "iteration"} for m in result.messages]
    if policies.commit_compaction_before_hooks:
        _commit_compaction(ctx, result)
    hook = config.hooks.before_request
    copies = policies.request_messages_copied
    # Without copies the hook would hold the session's own message objects.
    handed = messages if copies else session.history
    replaced = request_hook.replaced_messages(hook, handed, copies) if hook is not None else None
    if replaced is not None:
        ctx.events.emit("hook", name="onBeforeRequest", iteration=index)
        messages = replaced
        request_hook.check_fits(
            fit_context.instructions, fit_context.tools, messages, config.max_tokens, runtime.models, policies
        )
    if not policies.commit_compaction_before_hooks:
        _commit_compaction(ctx, result)
    sent = policies.context_measured(messages, result.messages, [*fit_context.history, *fit_context.current])
    measure = policies.measure
    fitted = result.context_tokens
    if hook is None and sent is messages and fitted:  # the fit measured exactly this request already
        counts = (fitted["instructions"], fitted["tools"], fitted["messages"])
    else:
        counts = (
            measure.count_instructions(fit_context.instructions),
            measure.count_tools(fit_context.tools),
            measure.count_messages(sent),
        )
    ctx.context_tokens = policies.context_categories(*counts)
    return {
        "model": _model_field(runtime.models),
        "messages": [{"role": "system", "content": fit_context.instructions}, *messages],
        "tools": fit_context.tools,
        "tool_choice": prompt.tool_choice(config),
        "max_tokens": result.max_output_tokens,
    }


def _commit_compaction(ctx: IterationContext, result: fit.FitResult) -> None:
    if result.new_history is None:
        return
    summary = result.summary if result.summary is not None else str(result.new_history[0].get("content", ""))
    ctx.session.replace_earlier_history(len(result.new_history) - 1, summary)
    ctx.policies.drop_iterations(ctx.session.memory, [str(i) for i in result.discarded_iterations])
    ctx.events.emit(
        "compaction",
        summary=summary,
        retained=len(result.new_history) - 1,
        discarded_iterations=list(result.discarded_iterations),
    )


def _one_call(ctx: IterationContext, runtime: Runtime, index: int) -> IterationEnd:
    start = ctx.config.hooks.on_iteration_start
    if start is not None:
        returned = observe(ctx.events, "onIterationStart", start, index)
        asked = returned if isinstance(returned, dict) else {}
        changes = ctx.policies.legacy_options("onIterationStart", asked)
        if "instructions" in changes:
            ctx.config = replace(ctx.config, instructions=changes["instructions"])
    ctx.context_tokens = None
    try:
        request = build_request(ctx, runtime, index)
    except LlmzError as error:
        return _failed_before_dispatch(ctx, index, error)
    try:
        request = _transcribe_audio(ctx, runtime, request)
    except ProviderFailure as exc:
        failed = LlmzError("GENERATION_FAILED", str(exc), status=exc.status)
        return _failed_before_dispatch(ctx, index, failed)
    failure: LlmzError | None = None
    sequence = ctx.policies.fallback_sequence(runtime.models)
    attempt, late_restart = 1, None
    for position, candidates in enumerate(sequence):
        request["model"] = _model_field(candidates)
        try:
            entry = runtime.provider.complete(request)
        except ProviderFailure as exc:
            failure = LlmzError("GENERATION_FAILED", str(exc), status=exc.status)
            continue
        late = _late_first_token(ctx, entry)
        if late is not None:  # the late stream is never used (llmz.configuration.streaming-options)
            if not ctx.policies.late_first_token_falls_back:
                return _failed_before_dispatch(ctx, index, late)
            failure = late
            continue
        if entry.stream_break is None:
            end = run_iteration(entry, ctx, index)
            if late_restart is not None:  # only a policy that retracts late gets here
                streaming.announce_restart(ctx.config, ctx.events, late_restart, True)
            return end
        following = sequence[position + 1][0].id if position + 1 < len(sequence) else None
        outcome = _broken_stream(ctx, index, entry, attempt, candidates[0].id, following)
        if isinstance(outcome, IterationEnd):
            return outcome
        attempt += 1
        late_restart = outcome or None
    assert failure is not None  # a restart always has a next candidate to ask
    return _failed_before_dispatch(ctx, index, failure)


def _transcribe_audio(ctx: IterationContext, runtime: Runtime, request: dict[str, Any]) -> dict[str, Any]:
    """The request with its audio transcribed, when a model of the run cannot take audio natively: each
    audio part goes to ``options.transcriptionModel`` first (llmz.configuration.transcription-model)."""
    messages = request["messages"]
    if not transcription.has_audio(messages):
        return request
    model = ctx.policies.transcriber(ctx.config.transcription_model, runtime.models)
    if model is None:
        return request

    def transcribe(part: dict[str, Any]) -> str:
        return runtime.provider.complete(transcription.request(model, part), purpose="transcription").text

    return {**request, "messages": transcription.transcribed(messages, transcribe)}


def _late_first_token(ctx: IterationContext, entry: ModelResponse) -> LlmzError | None:
    """The failure of a streamed answer whose first chunk came after ``options.maxTimeToFirstToken``
    (llmz.configuration.streaming-options; the unit and the outcome are policies), else None."""
    limit, policies = ctx.config.max_time_to_first_token, ctx.policies
    delay = entry.first_chunk_delay_ms if entry.chunks is not None else None
    if limit is None or delay is None:
        return None
    if not policies.first_token_late(limit, delay, policies.first_token_limit_unit_ms):
        return None
    return streaming.late_first_token(limit, delay)


def _broken_stream(
    ctx: IterationContext, index: int, entry: ModelResponse, attempt: int, current: Any, following: Any
) -> IterationEnd | dict[str, Any]:
    """A stream that broke partway (reference/llmz/streaming.py): its iteration's end, or the restart
    onto ``following`` (an empty dict when the consumer was already told, else the event still to tell)."""
    policies, config = ctx.policies, ctx.config
    dispatched = streaming.dispatched(entry, policies.dispatch_while_streaming)
    restart = policies.may_restart(config.mid_stream_fallback, dispatched, following is not None)
    if dispatched:
        if not policies.report_interruption:
            return run_iteration(entry, ctx, index)  # as if the answer had completed
        end = interrupted_iteration(entry, ctx, index, streaming.broken_error(entry, True))
        if not restart:
            return end
    elif entry.stream_break is not None:
        arrived = tuple(entry.chunks or ())[: entry.stream_break.after]
        streaming.emit_previews(arrived, config, ctx.events, index, policies.stream_contents)
    if not restart:
        return _failed_before_dispatch(ctx, index, streaming.broken_error(entry, False))
    reason = entry.stream_break.message if entry.stream_break is not None else "the stream broke"
    fields = policies.restart_event(index, attempt + 1, current, following, reason)
    if not policies.retract_before_replacement:
        return fields
    told = streaming.announce_restart(config, ctx.events, fields, policies.tell_consumer_of_restart)
    if not told and policies.failed_retraction_stops:
        return _failed_before_dispatch(ctx, index, streaming.failed_retraction())
    return {}


def _failed_before_dispatch(ctx: IterationContext, index: int, error: LlmzError) -> IterationEnd:
    ctx.events.emit("error", iteration=index, **error.as_record())
    ctx.events.emit(
        "iteration", execution=ctx.execution, index=index, status="critical_error", error_code=error.code
    )
    return IterationEnd("critical_error", error)


def run_execution(ctx: IterationContext, runtime: Runtime) -> IterationEnd | None:
    """Run one execute call; its outcome is reported as a ``result`` event and returned (None: it ended
    before any iteration)."""
    session, events, policies = ctx.session, ctx.events, ctx.policies
    try:
        session.require_idle("execute")
    except LlmzError as error:
        return _refused(ctx, error)
    problem = policies.configuration_problem(
        ctx.config, policies.result_budget_problem, policies.is_identifier, policies.tool_handler_problem
    )
    problem = problem or ctx.config.legacy_problem
    problem = problem or policies.response_problem(ctx.config.preset, policies.response_presets)
    if problem is not None:  # before any iteration exists (llmz.errors.config-before-iteration)
        return _refused(ctx, problem)
    session.begin_turn()
    end: IterationEnd | None = None
    allowed = policies.iterations_allowed(ctx.config.loop)  # llmz.configuration.loop-bounds-iterations
    try:
        for index in range(1, allowed + 1):
            if index > 1 and policies.getters_each_iteration:
                ctx.config = config_module.with_tools(ctx.config)
            end = _one_call(ctx, runtime, index)
            finish = ctx.config.hooks.on_iteration_end
            if finish is not None:
                observe(events, "onIterationEnd", finish, index)
            if policies.stops_run(end.status):
                break
        else:
            limit = LlmzError(
                "ITERATION_LIMIT", f"no exit after {ctx.config.loop} iterations", limit=ctx.config.loop
            )
            # The last iteration keeps its own outcome; the limit is added to it as one more error
            # (llmz.errors.loop-exceeded-run-level), so the event names that iteration.
            events.emit("error", iteration=ctx.config.loop, **limit.as_record())
            end = IterationEnd("critical_error", limit)
    finally:
        session.end_execution(completed=end is not None and end.status == "exit_success")
    _record_result(ctx, end, _reported_tokens(ctx, runtime.usages))
    return end


def _reported_tokens(ctx: IterationContext, usages: list[Usage]) -> dict[str, Any]:
    """``tokens`` for the ``result`` event: ``result.tokens`` when some answer of the run reported usage.
    Scripts that give no usage leave it out, so records (and golden transcripts) of runs whose usage is
    all zero stay as they were before the field existed; the record protocol marks it optional."""
    if not any(usage.input_tokens or usage.output_tokens for usage in usages):
        return {}
    return {"tokens": ctx.policies.run_tokens(usages)}


def _refused(ctx: IterationContext, error: LlmzError) -> IterationEnd:
    ctx.events.emit("error", **error.as_record())
    ctx.events.emit("result", execution=ctx.execution, status="error", error_code=error.code)
    return IterationEnd("critical_error", error)


def _record_result(ctx: IterationContext, end: IterationEnd | None, tokens: dict[str, Any]) -> None:
    if end is not None and end.exit is not None:
        ctx.events.emit("result", execution=ctx.execution, status="success", exit=end.exit[0], **tokens)
        return
    code = end.error.code if end is not None and end.error is not None else "INTERNAL_ERROR"
    ctx.events.emit("result", execution=ctx.execution, status="error", error_code=code, **tokens)


def _definitions(config: config_module.RunConfig) -> dict[str, Any]:
    """What a session that wrongly persisted definitions would store: each one's name and description."""
    return {
        "tools": {name: tool.description for name, tool in config.tools.items()},
        "exits": {name: exit.description for name, exit in config.exits.items()},
        "components": {name: component.description for name, component in config.components.items()},
        "objects": {o.name: o.description for o in config.objects},
    }


def execute(
    session: Session | None,
    provider: ModelProvider,
    *,
    instructions: str = "",
    tools: Sequence[Tool] | Callable[[], Sequence[Tool]] = (),
    exits: Sequence[Exit] | None = None,
    objects: Sequence[HostObject] = (),
    chat: Chat | None = None,
    hooks: Hooks = NO_HOOKS,
    models: Sequence[Model] = DEFAULT_MODELS,
    options: Options = DEFAULT_OPTIONS,
    observers: Sequence[Observer] = (),
    policies: Policies = DEFAULT_POLICIES,
    legacy: Mapping[str, Any] | None = None,
) -> ExecutionResult:
    """``execute({ session, instructions, tools, exits, chat, options })``: run model iterations on the
    session until an exit completes the turn or the run fails. ``chat`` makes it a chat turn (a worker
    otherwise); ``exits`` None gives the default exits. Every event goes to each of ``observers``; the
    decisions are the session's policies; ``policies`` only serves for the session created when ``session``
    is None."""
    # the conversation lives in the session, never in the chat (llmz.api.session-owns-state); without
    # one, a fresh session, handed back as result.session
    session = policies.run_session(session, chat, policies)
    assert session is not None
    refusal = host_api.legacy_refusal(chat, legacy or {}, session.policies)
    if refusal is None:
        for message in session.policies.legacy_options("execute", legacy or {}).get("messages", []):
            session.append([dict(message)])
        chat = host_api.with_legacy(chat, session, session.policies)
    iterations: list[IterationResult] = []
    failures: list[dict[str, Any]] = []
    describe = session.policies.iteration_fields

    def collect(kind: str, fields: dict[str, Any]) -> None:
        if kind == "error":
            failures.append(fields)
        elif kind == "iteration":
            seen = [f for f in failures if f.get("iteration") == fields["index"]]
            ended = IterationResult(
                fields["index"], fields["status"], fields.get("error_code"), **describe(fields, seen)
            )
            iterations.append(ended)

    if options.tool_result_max_tokens is None:  # left out: the documented default applies
        options = replace(options, tool_result_max_tokens=session.policies.default_result_budget)
    config = config_module.resolve(
        instructions=instructions,
        tools=tools,
        exits=exits,
        objects=objects,
        chat=chat,
        hooks=hooks,
        options=options,
        listen_exit=session.policies.listen_exit,
        exits_of=session.policies.available_exits,
    )
    if refusal is not None:
        config = replace(config, legacy_problem=refusal)
    if session.policies.persists_definitions:  # only a mutant (llmz.tools.definitions-reattached)
        session.definitions = _definitions(config)
    ctx = IterationContext(config, session, Events([*observers, collect]), session.count_execution())
    metered = Metered(provider)
    end = run_execution(ctx, Runtime(metered, list(models), metered.usages))
    exited = end.exit if end is not None else None
    return ExecutionResult(
        status="success" if exited is not None else "error",
        exit=ExitResult(*exited) if exited is not None else None,
        error_code=end.error.code if end is not None and end.error is not None else None,
        iterations=tuple(iterations),
        messages=session.messages,
        memory=session.variables,
        session=session,
        tokens=session.policies.run_tokens(metered.usages),
        error=end.error if end is not None else None,
        snapshot=session.to_json() if session.policies.legacy_result_snapshot else None,
    )
