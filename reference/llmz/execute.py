"""``execute``: run model iterations on a session until an exit completes the turn or the run fails.

Before every model call the request is handed to ``reference.llmz.fit.fit_request`` (the token budget
and compaction), which may commit a compacted history or refuse the request (TOKEN_OVERFLOW) before
anything is dispatched. Each answer is played by ``reference.llmz.iteration``. The run ends on an exit
(success), a critical failure, or after ``options.loop`` iterations without completing (ITERATION_LIMIT).
A failed run leaves its turn open, so executing again continues it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from conformance.scenario.llmz import ModelSpec
from reference.llmz import definitions, fit, prompt, request_hook
from reference.llmz.errors import CATALOGUE, LlmzError
from reference.llmz.iteration import IterationContext, IterationEnd, run_iteration
from reference.llmz.session import render_summary, wire
from reference.providers.protocol import ModelProvider
from reference.providers.scripted import ProviderFailure, ScriptExhausted

SUMMARY_PROMPT = (
    "Write a summary of the conversation below for your own later use. Keep decisions, external events, "
    "confirmed effects, failures and work still pending. Do not call tools."
)


@dataclass
class Runtime:
    """What execute needs besides the session and its configuration."""

    provider: ModelProvider
    models: list[ModelSpec]


def _model_field(models: list[ModelSpec]) -> str | list[str]:
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


def _native_summary(content: str) -> dict[str, Any]:
    return {"role": "user", "content": render_summary(content)}


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
    config, session = ctx.config, ctx.session
    earlier, current = session.split()
    compaction = session.compaction
    fit_context = fit.FitContext(
        instructions=prompt.system_prompt(config),
        tools=prompt.tools(config),
        history=[for_fit(m, earlier=True) for m in earlier],
        current=[for_fit(m, earlier=False) for m in current],
        max_tokens=config.max_tokens,
        models=[fit.ModelLimits(m.input_tokens, m.output_tokens) for m in runtime.models],
        compaction=compaction,
        summarize=summarizer(runtime, (compaction or {}).get("model")),
        render_summary=_native_summary,
    )
    try:
        result = fit.fit_request(fit_context)
    except ScriptExhausted:
        raise
    except Exception as exc:
        raise _as_llmz_error(exc) from exc
    messages = [{k: v for k, v in m.items() if k != "iteration"} for m in result.messages]
    if commit_before_hooks():
        _commit_compaction(ctx, result)
    hook = config.before_request
    if hook is not None and runtime.provider.calls + 1 >= hook.from_call:
        ctx.recorder.emit("hook", name="onBeforeRequest", iteration=index)
        messages = request_hook.replaced_messages(hook, messages)
        request_hook.check_fits(
            fit_context.instructions, fit_context.tools, messages, config.max_tokens, runtime.models
        )
    if not commit_before_hooks():
        _commit_compaction(ctx, result)
    return {
        "model": _model_field(runtime.models),
        "messages": [{"role": "system", "content": fit_context.instructions}, *messages],
        "tools": fit_context.tools,
        "tool_choice": prompt.tool_choice(config),
        "max_tokens": result.max_output_tokens,
    }


def commit_before_hooks() -> bool:
    """Whether a prepared compaction is committed before onBeforeRequest has run and the final request
    has been measured. It never is: a request that fails after compaction leaves the history as it was
    (llmz.compaction.commit-after-fit)."""
    return False


def _commit_compaction(ctx: IterationContext, result: fit.FitResult) -> None:
    if result.new_history is None:
        return
    summary = result.summary if result.summary is not None else str(result.new_history[0].get("content", ""))
    ctx.session.replace_earlier_history(len(result.new_history) - 1, summary)
    ctx.session.memory.drop_iterations([str(i) for i in result.discarded_iterations])
    ctx.recorder.emit(
        "compaction",
        summary=summary,
        retained=len(result.new_history) - 1,
        discarded_iterations=list(result.discarded_iterations),
    )


def stops_run(status: str) -> bool:
    """Whether an iteration's ending ends the run: an applied exit, or a critical failure, after which no
    further model call is made (llmz.errors.critical-stops)."""
    return status in ("exit_success", "critical_error")


def observe(ctx: IterationContext, hook: str, behaviour: str, index: int) -> None:
    """Call an observer hook. An observer that throws an ordinary error changes nothing
    (llmz.errors.observers-observational); the record only notes that it ran and threw."""
    if behaviour == "none":
        return
    fields: dict[str, Any] = {"iteration": index, "name": hook}
    if behaviour == "throw":
        fields["threw"] = True
    ctx.recorder.emit("hook", **fields)


def _one_call(ctx: IterationContext, runtime: Runtime, index: int) -> IterationEnd:
    observe(ctx, "onIterationStart", ctx.config.on_iteration_start, index)
    try:
        request = build_request(ctx, runtime, index)
    except LlmzError as error:
        return _failed_before_dispatch(ctx, index, error)
    failure: ProviderFailure | None = None
    for candidates in fallback_sequence(runtime.models):
        request["model"] = _model_field(candidates)
        try:
            entry = runtime.provider.complete(request)
        except ProviderFailure as exc:
            failure = exc
            continue
        return run_iteration(entry, ctx, index)
    assert failure is not None
    return _failed_before_dispatch(
        ctx, index, LlmzError("GENERATION_FAILED", str(failure), status=failure.status)
    )


def fallback_sequence(models: list[ModelSpec]) -> list[list[ModelSpec]]:
    """The candidates still to try after each failed call: the whole list first, then without its head,
    so models are tried in list order (llmz.configuration.fallback-order). Only when every candidate
    failed is the generation failure critical (llmz.errors.generation-failed)."""
    return [models[start:] for start in range(len(models))]


def _failed_before_dispatch(ctx: IterationContext, index: int, error: LlmzError) -> IterationEnd:
    ctx.recorder.emit("error", iteration=index, **error.as_record())
    ctx.recorder.emit(
        "iteration", execution=ctx.execution, index=index, status="critical_error", error_code=error.code
    )
    return IterationEnd("critical_error", error)


def execute(ctx: IterationContext, runtime: Runtime) -> None:
    """Run one execute call; its outcome is recorded as a ``result`` event."""
    session, recorder = ctx.session, ctx.recorder
    try:
        session.require_idle("execute")
    except LlmzError as error:
        recorder.emit("error", **error.as_record())
        recorder.emit("result", execution=ctx.execution, status="error", error_code=error.code)
        return
    problem = definitions.configuration_problem(ctx.config)
    if problem is not None:  # before any iteration exists (llmz.errors.config-before-iteration)
        recorder.emit("error", **problem.as_record())
        recorder.emit("result", execution=ctx.execution, status="error", error_code=problem.code)
        return
    session.begin_turn()
    end: IterationEnd | None = None
    try:
        for index in range(1, ctx.config.loop + 1):
            end = _one_call(ctx, runtime, index)
            observe(ctx, "onIterationEnd", ctx.config.on_iteration_end, index)
            if stops_run(end.status):
                break
        else:
            limit = LlmzError(
                "ITERATION_LIMIT", f"no exit after {ctx.config.loop} iterations", limit=ctx.config.loop
            )
            # The last iteration keeps its own outcome; the limit is added to it as one more error
            # (llmz.errors.loop-exceeded-run-level), so the event names that iteration.
            recorder.emit("error", iteration=ctx.config.loop, **limit.as_record())
            end = IterationEnd("critical_error", limit)
    finally:
        session.end_execution(completed=end is not None and end.status == "exit_success")
    _record_result(ctx, end)


def _record_result(ctx: IterationContext, end: IterationEnd | None) -> None:
    if end is not None and end.exit is not None:
        ctx.recorder.emit("result", execution=ctx.execution, status="success", exit=end.exit[0])
        return
    code = end.error.code if end is not None and end.error is not None else "INTERNAL_ERROR"
    ctx.recorder.emit("result", execution=ctx.execution, status="error", error_code=code)
