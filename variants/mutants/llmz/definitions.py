"""Mutants of definition details, of recovery feedback text and of errors crossing the sandbox: an exit
or tool that needs a description, feedback that entity-escapes XML characters, a rethrown typed error
that comes back untyped; and of hooks: onBeforeRequest handed the live messages, onAfterTool allowed to
signal; and a tools getter read only once. Each replaces one decision of ``Policies``."""

from __future__ import annotations

import html
from dataclasses import replace
from typing import Any

from reference.llmz.errors import LlmzError
from reference.llmz.policies import Policies
from variants import Mutant


def _exit_needs_description(p: Policies) -> Policies:
    """An exit without a description is refused as a configuration error."""
    base = p.configuration_problem

    def configuration_problem(config: Any, *args: Any, **kwargs: Any) -> LlmzError | None:
        for definition in config.exits.values():
            if not definition.description:
                return LlmzError("INVALID_CONFIG", f"exit {definition.name!r} needs a description")
        return base(config, *args, **kwargs)

    return replace(p, configuration_problem=configuration_problem)


def _tool_needs_description(p: Policies) -> Policies:
    """A tool without a description is refused as a configuration error."""
    base = p.configuration_problem

    def configuration_problem(config: Any, *args: Any, **kwargs: Any) -> LlmzError | None:
        for tool in config.tools.values():
            if not tool.description:
                return LlmzError("INVALID_TOOL", f"tool {tool.name!r} needs a description")
        return base(config, *args, **kwargs)

    return replace(p, configuration_problem=configuration_problem)


def _escaped_sections(p: Policies) -> Policies:
    """Report sections entity-escape their content: tags and ampersands reach the model as &lt; and &amp;."""
    base = p.section

    def section(tag: str, body: str) -> str:
        return base(tag, html.escape(body, quote=False))

    return replace(p, section=section)


def _rethrown_errors_untyped(p: Policies) -> Policies:
    """A typed host error the program rethrows is read as an ordinary program failure."""
    base = p.classify_failure

    def classify_failure(error: dict[str, Any], *args: Any, **kwargs: Any) -> LlmzError:
        return base({**error, "host": False}, *args, **kwargs)

    return replace(p, classify_failure=classify_failure)


MUTANTS: list[Mutant] = [
    Mutant(
        "llmz-exit-needs-description",
        ("llmz.exits.definition-fields",),
        "An exit defined without a description is refused before the first iteration.",
        policies=_exit_needs_description,
    ),
    Mutant(
        "llmz-tool-needs-description",
        ("llmz.tools.definition-fields",),
        "A tool defined without a description is refused before the first iteration.",
        policies=_tool_needs_description,
    ),
    Mutant(
        "llmz-feedback-escapes-xml",
        ("llmz.error-recovery.cdata",),
        "Recovery feedback entity-escapes XML characters instead of keeping them literal.",
        policies=_escaped_sections,
    ),
    Mutant(
        "llmz-rethrown-error-untyped",
        ("llmz.errors.vm-restores-typed",),
        "A typed error that crossed the sandbox boundary is not restored: it ends the iteration as "
        "EXECUTION_FAILED.",
        policies=_rethrown_errors_untyped,
    ),
    Mutant(
        "llmz-request-hook-gets-originals",
        ("llmz.hooks.request-messages-are-copies",),
        "onBeforeRequest is handed the request's messages themselves, so changing them in place changes "
        "history.",
        policies=lambda p: replace(p, request_messages_copied=False),
    ),
    Mutant(
        "llmz-after-tool-hook-signals",
        ("llmz.think-signal.handler-only",),
        "A ThinkSignal thrown by onAfterTool forces an inspection turn like one from the handler.",
        policies=lambda p: replace(p, hook_signals_honoured=True),
    ),
    Mutant(
        "llmz-tools-getter-once",
        ("llmz.tools.dynamic-getters",),
        "A tools getter is evaluated once per execute, so tools it adds later never appear.",
        policies=lambda p: replace(p, getters_each_iteration=False),
    ),
]
