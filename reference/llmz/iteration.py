"""One iteration: take the model's answer, run it, and settle what happened.

The order inside an iteration: store the assistant message; in chat mode deliver its visible text; check
the native call (exactly one ``run_javascript`` call, or in chat a plain answer that asks to listen); run
the program; then let ``settle.settle`` pick the one outcome, apply the chat guard and ``onExit`` to an
exit, and append the feedback the next request will carry.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from typing import Any

from reference.llmz import feedback, program, settle, streaming
from reference.llmz.config import LISTEN, RunConfig
from reference.llmz.errors import LlmzError
from reference.llmz.events import Events
from reference.llmz.host import IterationHost, deliver_status
from reference.llmz.host_ceiling import HostCeiling
from reference.llmz.policies import Policies
from reference.llmz.preview import UNDEFINED
from reference.llmz.prompt import TOOL_NAME
from reference.llmz.session import Session
from reference.providers.model import ModelResponse

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
    events: Events
    execution: int
    context_tokens: dict[str, int] | None = None
    """``tokens.context`` of the request this iteration sent (llmz.budget.context-tokens.*)."""
    ceiling: HostCeiling | None = None
    """What the execution's programs may hand the host (``reference.llmz.host_ceiling``); made from the
    session's memory limit on first use."""

    def host_ceiling(self) -> HostCeiling:
        if self.ceiling is None:
            self.ceiling = HostCeiling.for_memory(self.session.memory.max_bytes)
        return self.ceiling

    @property
    def policies(self) -> Policies:
        return self.session.policies


@dataclass(frozen=True)
class IterationEnd:
    status: str
    error: LlmzError | None = None
    exit: tuple[str, Any] | None = None


def _native_problem(entry: ModelResponse, config: RunConfig, policies: Policies) -> LlmzError | None:
    """Protocol checks on the response before anything runs. An answer cut off at its output allowance is
    a critical TOKEN_OVERFLOW, never run and never taken for a listen request
    (llmz.budget.overflow.output-phase)."""
    if entry.effective_stop_reason() == "max_tokens":
        return policies.output_overflow(entry)
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


def _store_call(entry: ModelResponse, session: Session, iteration_id: str) -> list[str]:
    ids = [call.id or session.mint_call_id() for call in entry.tool_calls]
    message: dict[str, Any] = {"role": "assistant", "content": entry.text, "iteration": iteration_id}
    if entry.continuation is not None:  # signed output: kept with its message, sent back unchanged
        message["continuation"] = copy.deepcopy(entry.continuation)
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


def stream_previews(entry: ModelResponse, host: IterationHost) -> None:
    """Hand each streamed chunk to ``onDelta`` (``streaming.emit_previews``); previews are not deliveries."""
    if entry.chunks:
        streaming.emit_previews(
            entry.chunks, host.config, host.events, host.iteration, host.policies.stream_contents
        )


def _deliver_text(entry: ModelResponse, host: IterationHost) -> LlmzError | None:
    stream_previews(entry, host)
    if not host.config.chat or host.policies.is_blank(entry.text):
        return None
    text = host.policies.delivered_text(host.config.preset, entry.text)
    status = deliver_status(host.config.text_handler, text)
    host.deliver("text", text, status)
    return LlmzError("DELIVERY_FAILED", "the response handler failed") if status == "failed" else None


def _apply_exit(host: IterationHost, ctx: IterationContext) -> LlmzError | None:
    """The guard first (llmz.chat-guard.before-on-exit), then onExit."""
    assert host.exit_attempt is not None
    name, payload = host.exit_attempt
    config, policies = ctx.config, ctx.policies
    if policies.guard_applies(config.mode, name) and not policies.may_listen(
        ctx.session.last_speaker, config.require_chat_response
    ):
        return LlmzError("MISSING_CHAT_RESPONSE", "the turn cannot listen yet: nothing was said to the user")
    hook = config.hooks.on_exit
    if hook is not None:
        ctx.events.emit("hook", name="onExit", exit=name, iteration=host.iteration)
        try:
            hook(name, payload)
        except Exception:
            return LlmzError("HOOK_FAILED", f"onExit rejected the {name!r} completion")
    return None


def _code_to_run(entry: ModelResponse, ctx: IterationContext, index: int, previous: str | None) -> str:
    """onBeforeExecution may return code that runs instead of the model's program
    (llmz.hooks.before-execution-replaces-code); the stored call keeps the model's code. ``previous`` is
    the program of the turn's previous iteration, which is not run again (``policies.code_to_run``)."""
    code = ctx.policies.code_to_run(entry.tool_calls[0].code or "", previous, index == 1)
    hook = ctx.config.hooks.before_execution
    replacement = hook(code) if hook is not None else None
    if replacement is None:
        return code
    ctx.events.emit("hook", name="onBeforeExecution", iteration=index)
    return replacement


def previous_program(session: Session) -> str | None:
    """The code of the latest program of the session's current turn, if it has one."""
    _, current = session.split()
    for message in reversed(current):
        for call in message.get("toolCalls") or []:
            code = (call.get("input") or {}).get("code")
            if isinstance(code, str):
                return code
    return None


def run_iteration(entry: ModelResponse, ctx: IterationContext, index: int) -> IterationEnd:
    session = ctx.session
    previous = previous_program(session)
    iteration_id = session.mint_iteration_id()
    host = IterationHost(ctx.config, session, ctx.events, index, ctx.host_ceiling())
    call_ids = _store_call(entry, session, iteration_id)
    error = _native_problem(entry, ctx.config, ctx.policies) or _deliver_text(entry, host)
    returned: Any = UNDEFINED
    if error is None and entry.tool_calls:
        ran = program.run(_code_to_run(entry, ctx, index, previous), host, ctx, iteration_id)
        returned, error = ran.returned, ran.error
    else:  # no program, so no result
        session.memory.add_record(iteration_id, False, None, True, ctx.policies.memory_fits)
        if error is None:
            host.exit_attempt = (LISTEN, None)  # a plain chat answer asks to listen
    decision = ctx.policies.settle(
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


def interrupted_iteration(
    entry: ModelResponse, ctx: IterationContext, index: int, error: LlmzError
) -> IterationEnd:
    """A stream that broke after its program was dispatched (llmz.streaming.post-dispatch-failure-reported):
    the previews that arrived were shown, the program ran and what it did stays, its text is never
    accepted or delivered, no exit is applied, and the iteration fails with the interruption."""
    brk = entry.stream_break
    arrived = tuple(entry.chunks or ())[: brk.after if brk is not None else None]
    session = ctx.session
    previous = previous_program(session)
    iteration_id = session.mint_iteration_id()
    host = IterationHost(ctx.config, session, ctx.events, index, ctx.host_ceiling())
    call_ids = _store_call(replace(entry, text=""), session, iteration_id)
    streaming.emit_previews(arrived, ctx.config, ctx.events, index, ctx.policies.stream_contents)
    ran = program.run(_code_to_run(entry, ctx, index, previous), host, ctx, iteration_id)
    end = IterationEnd("critical_error", error)
    _close(entry, host, ctx, end, call_ids, ran.returned, iteration_id)
    return end


def _close(
    entry: ModelResponse,
    host: IterationHost,
    ctx: IterationContext,
    end: IterationEnd,
    call_ids: list[str],
    returned: Any,
    iteration_id: str,
) -> None:
    """Append the feedback for the next call and record how the iteration ended."""
    events, budget, policies = ctx.events, ctx.config.result_budget_tokens, ctx.policies
    forced = end.status == "thinking_requested"
    if end.status not in ("critical_error", "exit_success"):
        _record_inspections(host, events, forced, budget)
    if end.status == "exit_success":
        text = f"Completed through exit {end.exit[0]!r}." if end.exit else "Completed."
    else:
        footer = None
        if end.error is not None:
            memory = ctx.session.memory
            footer = feedback.Footer(host.iteration, ctx.config.loop, memory.size(), memory.max_bytes)
        text = feedback.render(feedback.Report(host, returned, end.error, forced, budget, footer), policies)
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
        events.emit("error", iteration=host.iteration, **end.error.as_record())
    event: dict[str, Any] = {"execution": ctx.execution, "index": host.iteration, "status": end.status}
    if end.error is not None:
        event["error_code"] = end.error.code
    seen = policies.iteration_errors(host.seen_errors, end.error)
    if seen:
        event["errors"] = seen
    if ctx.context_tokens is not None:
        event["tokens"] = {"context": dict(ctx.context_tokens)}
    events.emit("iteration", **event)
    if end.exit is not None:
        events.emit("exit", name=end.exit[0], payload=end.exit[1])


def _record_inspections(host: IterationHost, events: Events, forced: bool, budget: int) -> None:
    policies, hook = host.policies, host.ask_inspect
    if forced:
        for signal in policies.reported_signals(host.signals):
            events.emit(
                "inspection",
                iteration=host.iteration,
                kind="forced",
                tool=signal.tool,
                line=signal.line,
                reason=signal.reason,
                preview=feedback.shown(
                    signal.result, signal.display, budget, hook, policies, feedback.whose(host, signal.tool)
                ),
            )
    for value in host.inspections:
        shown = feedback.shown(value, None, budget, hook, policies, feedback.whose(host))
        events.emit("inspection", iteration=host.iteration, kind="explicit", preview=shown)
