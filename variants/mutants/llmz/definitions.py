"""Mutants of definition details and of recovery feedback text: an exit that needs a description, and
feedback that entity-escapes XML characters. Each replaces one decision of ``Policies``."""

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


def _escaped_sections(p: Policies) -> Policies:
    """Report sections entity-escape their content: tags and ampersands reach the model as &lt; and &amp;."""
    base = p.section

    def section(tag: str, body: str) -> str:
        return base(tag, html.escape(body, quote=False))

    return replace(p, section=section)


MUTANTS: list[Mutant] = [
    Mutant(
        "llmz-exit-needs-description",
        ("llmz.exits.definition-fields",),
        "An exit defined without a description is refused before the first iteration.",
        policies=_exit_needs_description,
    ),
    Mutant(
        "llmz-feedback-escapes-xml",
        ("llmz.error-recovery.cdata",),
        "Recovery feedback entity-escapes XML characters instead of keeping them literal.",
        policies=_escaped_sections,
    ),
]
