"""One iteration: take the model's answer, run it, and settle what happened.

The order inside an iteration: store the assistant message; in chat mode deliver its visible text; check
the native call (exactly one ``run_javascript`` call, or in chat a plain answer that asks to listen); run
the program; then let ``settle.settle`` pick the one outcome, apply the chat guard and ``onExit`` to an
exit, and append the feedback the next request will carry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from conformance.scenario.common import ScriptEntry
from reference.clock import VirtualClock
from reference.llmz import feedback, guard, program, settle, signals
from reference.llmz.config import LISTEN, RunConfig
from reference.llmz.errors import LlmzError
from reference.llmz.host import IterationHost
from reference.llmz.inspector import present
from reference.llmz.preview import UNDEFINED
from reference.llmz.prompt import TOOL_NAME
from reference.llmz.session import Session
from reference.record import Recorder

STATUS = {
    "critical": "critical_error",
    "inspect": "thinking_requested",
    "recover": "recoverable_error",
    "exit": "exit_success",
    "continue": "continued",
}


@dataclass
class IterationContext:
    config: RunConfig
    session: Session
    recorder: Recorder
    clock: VirtualClock
    call_counts: dict[str, int]
    execution: int


@dataclass(frozen=True)
class IterationEnd:
    status: str
    error: LlmzError | None = None
    exit: tuple[str, Any] | None = None


def output_overflow(entry: ScriptEntry) -> LlmzError:
    """An answer cut off at its output allowance is a critical TOKEN_OVERFLOW in phase ``output``, never
    run and never taken for a listen request (llmz.budget.overflow.output-phase,
    llmz.errors.token-overflow)."""
    message = "the response was cut off at its output token limit"
    if entry.usage.output_tokens:
        return LlmzError("TOKEN_OVERFLOW", message, phase="output", tokens=entry.usage.output_tokens)
    return LlmzError("TOKEN_OVERFLOW", message, phase="output")


def _native_problem(entry: ScriptEntry, config: RunConfig) -> LlmzError | None:
    """Protocol checks on the response before anything runs."""
    if entry.effective_stop_reason() == "max_tokens":
        return output_overflow(entry)
    calls = entry.tool_calls
    if len(calls) > 1:
        return LlmzError(
            "INVALID_NATIVE_CALL", f"a response may hold one run_javascript call, got {len(calls)}"
        )
    if calls and calls[0].name != TOOL_NAME:
        return LlmzError("UNKNOWN_TOOL", f"unknown native tool {calls[0].name!r}; only {TOOL_NAME} exists")
    if calls and calls[0].code is None:
        return LlmzError("INVALID_NATIVE_CALL", f"the {TOOL_NAME} call has no code")
    if not calls and not config.chat:
        return LlmzError("INVALID_NATIVE_CALL", f"a worker must answer with a {TOOL_NAME} call")
    return None


def _store_call(entry: ScriptEntry, session: Session, iteration_id: str) -> list[str]:
    ids = [call.id or session.mint_call_id() for call in entry.tool_calls]
    message: dict[str, Any] = {"role": "assistant", "content": entry.text, "iteration": iteration_id}
    if entry.tool_calls:
        message["toolCalls"] = [
            {
                "id": call_id,
                "name": call.name,
                "input": {"code": call.code} if call.code is not None else call.arguments,
            }
            for call_id, call in zip(ids, entry.tool_calls, strict=True)
        ]
    session.add(message)
    return ids


def stream_previews(entry: ScriptEntry, host: IterationHost) -> None:
    """Hand each streamed chunk to ``onDelta`` with the text accumulated so far
    (llmz.streaming.content-accumulates). A preview callback that throws is ignored
    (llmz.streaming.preview-callback-errors-ignored); previews are not deliveries."""
    behaviour = host.config.on_delta
    if not host.config.chat or behaviour == "none" or not entry.chunks:
        return
    content = ""
    for chunk in entry.chunks:
        content += chunk
        event: dict[str, Any] = {"iteration": host.iteration, "delta": chunk, "content": content}
        if behaviour == "throw":
            event["threw"] = True
        host.recorder.emit("delta", **event)


def _deliver_text(entry: ScriptEntry, host: IterationHost) -> LlmzError | None:
    stream_previews(entry, host)
    if not host.config.chat or guard.is_blank(entry.text):
        return None
    status = {"ok": "delivered", "fail": "failed", "none": "unhandled"}[host.config.text_handler]
    host.deliver("text", entry.text, status)
    return LlmzError("DELIVERY_FAILED", "the response handler failed") if status == "failed" else None


def _apply_exit(host: IterationHost, ctx: IterationContext) -> LlmzError | None:
    """The guard first (llmz.chat-guard.before-on-exit), then onExit."""
    assert host.exit_attempt is not None
    name = host.exit_attempt[0]
    config = ctx.config
    if guard.guard_applies(config.mode, name) and not guard.may_listen(
        ctx.session.last_speaker, config.require_chat_response
    ):
        return LlmzError("MISSING_CHAT_RESPONSE", "the turn cannot listen yet: nothing was said to the user")
    if config.on_exit != "none":
        ctx.recorder.emit("hook", name="onExit", exit=name, iteration=host.iteration)
        if config.on_exit == "reject":
            return LlmzError("HOOK_FAILED", f"onExit rejected the {name!r} completion")
    return None


def _code_to_run(entry: ScriptEntry, ctx: IterationContext, index: int) -> str:
    """onBeforeExecution may return code that runs instead of the model's program
    (llmz.hooks.before-execution-replaces-code); the stored call keeps the model's code."""
    replacement = ctx.config.before_execution
    if replacement is None:
        return entry.tool_calls[0].code or ""
    ctx.recorder.emit("hook", name="onBeforeExecution", iteration=index)
    return replacement


def run_iteration(entry: ScriptEntry, ctx: IterationContext, index: int) -> IterationEnd:
    session = ctx.session
    iteration_id = session.mint_iteration_id()
    host = IterationHost(ctx.config, session, ctx.recorder, ctx.call_counts, index)
    call_ids = _store_call(entry, session, iteration_id)
    error = _native_problem(entry, ctx.config) or _deliver_text(entry, host)
    returned: Any = UNDEFINED
    if error is None and entry.tool_calls:
        ran = program.run(_code_to_run(entry, ctx, index), host, ctx, iteration_id)
        returned, error = ran.returned, ran.error
    else:
        session.memory.add_record(iteration_id, False, None, True)  # no program, so no result
        if error is None:
            host.exit_attempt = (LISTEN, None)  # a plain chat answer asks to listen
    decision = settle.settle(
        settle.Happenings(
            critical=(error is not None and error.critical) or host.critical is not None,
            signalled=bool(host.signals),
            recoverable_error=error is not None and not error.critical,
            exit_attempted=host.exit_attempt is not None,
        )
    )
    if decision == "critical":
        end = IterationEnd(STATUS[decision], host.critical or error)
    elif decision == "exit":
        refusal = _apply_exit(host, ctx)
        end = (
            IterationEnd("recoverable_error", refusal)
            if refusal
            else IterationEnd(STATUS[decision], exit=host.exit_attempt)
        )
    else:
        end = IterationEnd(STATUS[decision], error if decision == "recover" else None)
    _close(entry, host, ctx, end, call_ids, returned, iteration_id)
    return end


def _close(
    entry: ScriptEntry,
    host: IterationHost,
    ctx: IterationContext,
    end: IterationEnd,
    call_ids: list[str],
    returned: Any,
    iteration_id: str,
) -> None:
    """Append the feedback for the next call and record how the iteration ended."""
    recorder, budget = ctx.recorder, ctx.config.result_budget_tokens
    forced = end.status == "thinking_requested"
    if end.status not in ("critical_error", "exit_success"):
        _record_inspections(host, recorder, forced, budget)
    if end.status == "exit_success":
        text = f"Completed through exit {end.exit[0]!r}." if end.exit else "Completed."
    else:
        footer = None
        if end.error is not None:
            memory = ctx.session.memory
            footer = feedback.Footer(host.iteration, ctx.config.loop, memory.size(), memory.max_bytes)
        text = feedback.render(feedback.Report(host, returned, end.error, forced, budget, footer))
    for call_id in call_ids:
        ctx.session.add(
            {
                "role": "user",
                "type": "tool_result",
                "toolResultCallId": call_id,
                "content": text,
                "iteration": iteration_id,
            }
        )
    if not call_ids and end.status != "exit_success":
        ctx.session.add({"role": "user", "content": text, "iteration": iteration_id})
    if end.error is not None:
        recorder.emit("error", iteration=host.iteration, **end.error.as_record())
    event: dict[str, Any] = {"execution": ctx.execution, "index": host.iteration, "status": end.status}
    if end.error is not None:
        event["error_code"] = end.error.code
    seen = iteration_errors(host.seen_errors, end.error)
    if seen:
        event["errors"] = seen
    recorder.emit("iteration", **event)
    if end.exit is not None:
        recorder.emit("exit", name=end.exit[0], payload=end.exit[1])


def iteration_errors(seen: list[LlmzError], ending: LlmzError | None) -> list[str]:
    """The codes of every failure of the iteration, including ones the program caught, so an iteration
    can succeed and still list errors (llmz.errors.iteration-errors-list, llmz.errors.success-with-errors).
    ThinkSignals are not failures and never appear (llmz.errors.think-signal-not-error)."""
    codes = [error.code for error in seen]
    if ending is not None and ending.code not in codes:  # an uncaught host error is already listed
        codes.append(ending.code)
    return codes


def _record_inspections(host: IterationHost, recorder: Recorder, forced: bool, budget: int) -> None:
    if forced:
        for signal in signals.reported(host.signals):
            recorder.emit(
                "inspection",
                iteration=host.iteration,
                kind="forced",
                tool=signal.tool,
                line=signal.line,
                reason=signal.reason,
                preview=feedback.shown(signal.result, signal.display, budget, host.config.on_inspect),
            )
    for value in host.inspections:
        shown = present(value, budget, hook=host.config.on_inspect)
        recorder.emit("inspection", iteration=host.iteration, kind="explicit", preview=shown)
