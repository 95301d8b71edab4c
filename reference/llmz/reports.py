"""What one iteration's host gathered for its report: tool calls and ThinkSignals, as plain data.

``reference.llmz.host`` fills these in as the program runs; ``reference.llmz.feedback`` renders them for
the next request. Keeping them apart from both lets the report's renderers stay pure functions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reference.llmz.errors import LlmzError
from reference.llmz.preview import UNDEFINED, Preserve

Display = tuple[int, Preserve] | None
"""A ``truncate()`` policy on a result: (maxTokens, preserve), or None for the run's result budget."""


@dataclass
class SignalReport:
    tool: str
    line: int | None
    reason: str
    result: Any
    display: Display = None


@dataclass
class ToolCallReport:
    name: str
    input: Any
    output: Any = UNDEFINED
    error: LlmzError | None = None
    pending: bool = False
    display: Display = None
