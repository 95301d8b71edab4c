"""The report the model receives after an iteration: the tool result of its run_javascript call.

Sections, each present only when it has content, in this order:

``<tool_calls>``         every host tool call: input and result preview, or the error
``<messages_sent>``      deliveries (text and components) and whether each was acknowledged
``<forced_inspection>``  every ThinkSignal of the iteration: tool, source line, reason, result, plus the
                         instruction to reuse those results (llmz.think-signal.forced-inspection-report,
                         .all-signals-together, .reuse-instruction)
``<inspect>``            explicit inspect() previews (llmz.think-signal.explicit-inspect-kept)
``<return>``             the returned value, when nothing was inspected explicitly
``<memory>``             named variables the program set
``<error>``, ``<recovery>``  the failure (code and message; a program that did not compile with its
                         numbered source) and how to continue, then the ``<memory_usage>`` and
                         ``<iterations>`` footers (llmz.error-recovery.footers)

Previews come from the native inspector (``reference.llmz.preview``) under the display budget; nothing
is escaped (llmz.inspection.no-escaping).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from reference.llmz.errors import LlmzError
from reference.llmz.inspector import RESULT, Ask, present
from reference.llmz.preview import UNDEFINED, Preserve
from reference.llmz.reports import Display, SignalReport

if TYPE_CHECKING:
    from reference.llmz.host import IterationHost
    from reference.llmz.policies import Policies

REUSE_INSTRUCTION = (
    "These tools asked you to look at their results before finishing. The calls already succeeded: "
    "work from the results shown here and do not call these tools again for the same data."
)
"""llmz.think-signal.reuse-instruction: what the forced inspection asks of the model."""

TRACE_CONTEXT_LINES = 2
"""Lines shown on each side of the failing line: the trace is an excerpt, never the whole program
(llmz.error-recovery.bounded-trace)."""


@dataclass(frozen=True)
class Footer:
    """Where the run stands, for the footers of recovery feedback (llmz.error-recovery.footers)."""

    iteration: int
    loop: int
    memory_bytes: int
    memory_limit: int


@dataclass(frozen=True)
class Report:
    host: IterationHost | None
    returned: Any
    error: LlmzError | None
    forced: bool
    budget: int
    footer: Footer | None = None


def preview_budget(display: Display, budget: int) -> tuple[int, Preserve]:
    """The budget a preview gets: the value's own truncate() policy when it has one, else the run's result
    budget (llmz.inspection.truncate-overrides-budget); zero hides it (llmz.inspection.zero-hides)."""
    return display if display is not None else (budget, "top")


def shown(
    value: Any,
    display: Display,
    budget: int,
    ask: Ask | None,
    policies: Policies,
    identity: Mapping[str, Any] | None = None,
) -> str:
    """A value as the model is shown it, under the budget ``policies.preview_budget`` picks; the host's
    hook is asked with the purpose ``result`` and the value's ``identity``
    (llmz.inspection.on-inspect-context)."""
    tokens, preserve = policies.preview_budget(display, budget)
    return present(value, tokens, preserve, ask, policies, RESULT, identity)


def whose(host: IterationHost, tool: str | None = None) -> dict[str, Any]:
    """The identity of a value previewed in this iteration: the iteration, and the tool it came from."""
    return {"iteration": host.iteration} if tool is None else {"iteration": host.iteration, "tool": tool}


def retained_display(host: IterationHost, value: Any) -> Display:
    """The truncate() policy a returned or inspected value still carries: that of the newest tool result of
    the iteration it is equal to, unchanged (a truncate() budget belongs to the value, not to one section:
    llmz.inspection.truncate-options, llmz.inspection.truncate-overrides-budget). None for any other value."""
    for call in reversed(host.tool_calls):
        if call.display is not None and call.error is None and not call.pending and call.output == value:
            return call.display
    return None


def section(tag: str, body: str) -> str:
    """One report section; nothing inside is escaped (llmz.inspection.no-escaping)."""
    return f"<{tag}>\n{body}\n</{tag}>"


def _tool_calls(host: IterationHost, budget: int, policies: Policies) -> str | None:
    lines = []
    for index, call in enumerate(host.tool_calls, start=1):
        head = f"{index}. {call.name}({json.dumps(call.input, ensure_ascii=False)})"
        if call.pending:
            lines.append(f"{head} -> did not settle")
        elif call.error is not None:
            lines.append(f"{head} -> error {call.error.code}: {call.error.message}")
        else:
            identity = whose(host, call.name)
            preview = shown(call.output, call.display, budget, host.ask_inspect, policies, identity)
            lines.append(f"{head} -> ok\n{preview}")
    return policies.section("tool_calls", "\n".join(lines)) if lines else None


def _messages_sent(host: IterationHost, policies: Policies) -> str | None:
    lines = []
    for delivery in host.deliveries:
        what = f"chat.{delivery['component']}" if delivery["kind"] == "component" else "text"
        content = json.dumps(delivery["content"], ensure_ascii=False)
        lines.append(f"- {what} {content}: {delivery['status']}")
    return policies.section("messages_sent", "\n".join(lines)) if lines else None


def forced_inspection(
    signals: Sequence[SignalReport], show: Callable[[SignalReport], str], reuse_instruction: str
) -> str:
    """Every reported signal with its tool, source line, reason and result preview (``show``), after the
    instruction to reuse those results (llmz.think-signal.forced-inspection-report,
    llmz.error-recovery.think-signal-report)."""
    parts = [reuse_instruction]
    for signal in signals:
        line = "" if signal.line is None else f' line="{signal.line}"'
        parts.append(
            f'<signal tool="{signal.tool}"{line}>\n'
            + section("reason", signal.reason)
            + "\n"
            + section("result", show(signal))
            + "\n</signal>"
        )
    return section("forced_inspection", "\n".join(parts))


def recovery_note(failed: list[str]) -> str:
    """How to go on: acknowledged effects stand and must not be repeated blindly; failed calls may or may
    not have taken effect (llmz.errors.feedback-effects-accounting)."""
    lines = [
        "Correct the problem and try again. Actions reported above as ok have already happened; do not "
        "repeat them unless you mean to."
    ]
    if failed:
        lines.append(
            f"Effects of the failed calls ({', '.join(failed)}) are uncertain: check before calling again."
        )
    return "\n".join(lines)


def _error(error: LlmzError, policies: Policies) -> str:
    """The failure; a program that did not compile is shown with line numbers
    (llmz.error-recovery.compiler-error-source)."""
    body = f"{error.code} ({error.class_name}): {error.message}"
    source = error.details.get("source")
    if error.code == "INVALID_CODE" and isinstance(source, str):
        numbered = "\n".join(f"{n:>3} | {line}" for n, line in enumerate(source.splitlines(), start=1))
        body += "\n" + policies.section("source", numbered)
    line = error.details.get("line")
    if isinstance(source, str) and isinstance(line, int):
        trace = stack_trace(source, line, policies.trace_context_lines)
        body += "\n" + policies.section("stack_trace", trace)
    return policies.section("error", body)


def stack_trace(source: str, line: int, context: int = TRACE_CONTEXT_LINES) -> str:
    """The guest code around the failure (``context`` lines each side), with line numbers, the failing
    line marked and carets under it (llmz.error-recovery.stack-trace-section). Only guest failures have
    one: host failures outside the program get none (llmz.error-recovery.host-failure-no-guest-stack)."""
    lines = source.splitlines()
    first, last = max(1, line - context), min(len(lines), line + context)
    excerpt = []
    for number in range(first, last + 1):
        text = lines[number - 1]
        excerpt.append(f"{'>' if number == line else ' '} {number:>3} | {text}")
        if number == line:
            indent = len(text) - len(text.lstrip())
            excerpt.append(f"      | {' ' * indent}{'^' * max(1, len(text.strip()))}")
    return "\n".join(excerpt)


def _memory(host: IterationHost, policies: Policies) -> str | None:
    """Changes the program made to named variables, in their own section
    (llmz.error-recovery.activity-sections)."""
    if not host.memory_changes:
        return None
    return policies.section("memory", "Variables set: " + ", ".join(host.memory_changes))


def footers(footer: Footer) -> str:
    """Memory use and iterations left, after recovery feedback (llmz.error-recovery.footers)."""
    left = footer.loop - footer.iteration
    return "\n".join(
        [
            section("memory_usage", f"{footer.memory_bytes} of {footer.memory_limit} bytes of memory used"),
            section("iterations", f"iteration {footer.iteration} of {footer.loop}; {left} left"),
        ]
    )


def _memory_errors(host: IterationHost, policies: Policies) -> str | None:
    """When values memory cannot keep do not fail the iteration (a permitted reading of
    llmz.errors.invalid-memory-value's open question), the report still lists them."""
    failed = [e for e in host.seen_errors if e.code == "INVALID_MEMORY_VALUE"]
    if policies.memory_errors_fail_iteration or not failed:
        return None
    lines = "\n".join(f"- {error.message}" for error in failed)
    return policies.section("memory_errors", f"Values that could not be kept:\n{lines}")


def _activity(host: IterationHost, report: Report, policies: Policies) -> list[str | None]:
    hook = host.ask_inspect
    sections = [
        _tool_calls(host, report.budget, policies),
        _messages_sent(host, policies),
        _memory(host, policies),
    ]
    if report.forced:
        sections.append(
            policies.forced_inspection(
                policies.reported_signals(host.signals),
                lambda signal: shown(
                    signal.result, signal.display, report.budget, hook, policies, whose(host, signal.tool)
                ),
                policies.reuse_instruction,
            )
        )
    if host.inspections:
        previews = [
            shown(v, retained_display(host, v), report.budget, hook, policies, whose(host))
            for v in host.inspections
        ]
        sections.append(policies.section("inspect", "\n".join(previews)))
    elif report.returned is not UNDEFINED:
        display = retained_display(host, report.returned)
        returned = shown(report.returned, display, report.budget, hook, policies, whose(host))
        sections.append(policies.section("return", returned))
    return sections


def render(report: Report, policies: Policies) -> str:
    """The feedback text for the next model call."""
    host = report.host
    sections = _activity(host, report, policies) if host is not None else []
    if report.error is not None:
        sections.append(_error(report.error, policies))
        failed = [call.name for call in (host.tool_calls if host else []) if call.error is not None]
        sections.append(policies.section("recovery", policies.recovery_note(failed)))
        if report.footer is not None:
            sections.append(policies.footers(report.footer))
    elif host is not None:
        sections.append(_memory_errors(host, policies))
    text = "\n".join(section for section in sections if section)
    return text or "The program finished without returning a value or calling an exit."
