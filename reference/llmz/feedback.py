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
from dataclasses import dataclass
from typing import Any

from conformance.scenario.llmz import OnInspectHook
from reference.llmz import signals
from reference.llmz.errors import LlmzError
from reference.llmz.host import Display, IterationHost
from reference.llmz.inspector import present
from reference.llmz.preview import UNDEFINED

REUSE_INSTRUCTION = (
    "These tools asked you to look at their results before finishing. The calls already succeeded: "
    "work from the results shown here and do not call these tools again for the same data."
)


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


def shown(value: Any, display: Display, budget: int, hook: OnInspectHook | None = None) -> str:
    """A result's preview: its own truncate() policy when it has one, else the run's result budget
    (llmz.inspection.truncate-overrides-budget)."""
    if display is None:
        return present(value, budget, hook=hook)
    return present(value, display[0], display[1], hook)


def _section(tag: str, body: str) -> str:
    return f"<{tag}>\n{body}\n</{tag}>"


def _tool_calls(host: IterationHost, budget: int) -> str | None:
    lines = []
    for index, call in enumerate(host.tool_calls, start=1):
        head = f"{index}. {call.name}({json.dumps(call.input, ensure_ascii=False)})"
        if call.pending:
            lines.append(f"{head} -> did not settle")
        elif call.error is not None:
            lines.append(f"{head} -> error {call.error.code}: {call.error.message}")
        else:
            lines.append(f"{head} -> ok\n{shown(call.output, call.display, budget, host.config.on_inspect)}")
    return _section("tool_calls", "\n".join(lines)) if lines else None


def _messages_sent(host: IterationHost) -> str | None:
    lines = []
    for delivery in host.deliveries:
        what = f"chat.{delivery['component']}" if delivery["kind"] == "component" else "text"
        content = json.dumps(delivery["content"], ensure_ascii=False)
        lines.append(f"- {what} {content}: {delivery['status']}")
    return _section("messages_sent", "\n".join(lines)) if lines else None


def forced_inspection(host: IterationHost, budget: int) -> str:
    parts = [REUSE_INSTRUCTION]
    for signal in signals.reported(host.signals):
        line = "" if signal.line is None else f' line="{signal.line}"'
        parts.append(
            f'<signal tool="{signal.tool}"{line}>\n'
            + _section("reason", signal.reason)
            + "\n"
            + _section("result", shown(signal.result, signal.display, budget, host.config.on_inspect))
            + "\n</signal>"
        )
    return _section("forced_inspection", "\n".join(parts))


def _recovery(error: LlmzError, host: IterationHost | None) -> str:
    """How to go on: acknowledged effects stand and must not be repeated blindly; failed calls may or may
    not have taken effect (llmz.errors.feedback-effects-accounting)."""
    lines = [
        "Correct the problem and try again. Actions reported above as ok have already happened; do not "
        "repeat them unless you mean to."
    ]
    failed = [call.name for call in (host.tool_calls if host else []) if call.error is not None]
    if failed:
        lines.append(
            f"Effects of the failed calls ({', '.join(failed)}) are uncertain: check before calling again."
        )
    return _section("recovery", "\n".join(lines))


def _error(error: LlmzError) -> str:
    """The failure; a program that did not compile is shown with line numbers
    (llmz.error-recovery.compiler-error-source)."""
    body = f"{error.code} ({error.class_name}): {error.message}"
    source = error.details.get("source")
    if error.code == "INVALID_CODE" and isinstance(source, str):
        numbered = "\n".join(f"{n:>3} | {line}" for n, line in enumerate(source.splitlines(), start=1))
        body += "\n" + _section("source", numbered)
    line = error.details.get("line")
    if isinstance(source, str) and isinstance(line, int):
        body += "\n" + stack_trace(source, line)
    return _section("error", body)


TRACE_CONTEXT_LINES = 2
"""Lines shown on each side of the failing line: the trace is an excerpt, never the whole program
(llmz.error-recovery.bounded-trace)."""


def stack_trace(source: str, line: int) -> str:
    """The guest code around the failure, with line numbers, the failing line marked and carets under it
    (llmz.error-recovery.stack-trace-section). Only guest failures have one: host failures outside the
    program get none (llmz.error-recovery.host-failure-no-guest-stack)."""
    lines = source.splitlines()
    first, last = max(1, line - TRACE_CONTEXT_LINES), min(len(lines), line + TRACE_CONTEXT_LINES)
    shown = []
    for number in range(first, last + 1):
        text = lines[number - 1]
        shown.append(f"{'>' if number == line else ' '} {number:>3} | {text}")
        if number == line:
            indent = len(text) - len(text.lstrip())
            shown.append(f"      | {' ' * indent}{'^' * max(1, len(text.strip()))}")
    return _section("stack_trace", "\n".join(shown))


def _memory(host: IterationHost) -> str | None:
    """Changes the program made to named variables, in their own section
    (llmz.error-recovery.activity-sections)."""
    if not host.memory_changes:
        return None
    return _section("memory", "Variables set: " + ", ".join(host.memory_changes))


def _footers(footer: Footer) -> str:
    left = footer.loop - footer.iteration
    return "\n".join(
        [
            _section("memory_usage", f"{footer.memory_bytes} of {footer.memory_limit} bytes of memory used"),
            _section("iterations", f"iteration {footer.iteration} of {footer.loop}; {left} left"),
        ]
    )


def render(report: Report) -> str:
    """The feedback text for the next model call."""
    sections: list[str | None] = []
    host = report.host
    if host is not None:
        hook = host.config.on_inspect
        sections += [_tool_calls(host, report.budget), _messages_sent(host), _memory(host)]
        if report.forced:
            sections.append(forced_inspection(host, report.budget))
        if host.inspections:
            sections.append(
                _section("inspect", "\n".join(present(v, report.budget, hook=hook) for v in host.inspections))
            )
        elif report.returned is not UNDEFINED:
            sections.append(_section("return", present(report.returned, report.budget, hook=hook)))
    if report.error is not None:
        sections.append(_error(report.error))
        sections.append(_recovery(report.error, host))
        if report.footer is not None:
            sections.append(_footers(report.footer))
    text = "\n".join(section for section in sections if section)
    return text or "The program finished without returning a value or calling an exit."
