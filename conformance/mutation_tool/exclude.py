"""The one class of lines that is never mutated: decorator lines, found from the syntax tree.

The arguments of ``@dataclass(frozen=True)`` and the like configure Python's class machinery (mutability,
ordering); no rule is about them, and flipping ``frozen`` only makes a value assignable that nothing
assigns to. The score table reports per module how many mutants this removed from the population.

No line is excluded by a marker any more (issue 27, "no unmeasured code"). Earlier, ``# pragma: no
mutate: fast-path`` and ``: type-guard`` kept lines out of the sample, so what they hid was never measured.
Now such a line is sampled like any other: a mutant of it that no scenario kills is triaged like every
survivor (``conformance/mutation_triage.yaml``), and a fast path that must agree with the slow one is
pinned by its module's invariant tests (``plan.Target.invariants``), which the probe runs on a survivor.
Cosmic Ray itself skips a line carrying ``# pragma: no mutate``, so the marker in any form is an error
here: left in, it would hide the line again.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

CLASSES = ("decorator",)
MARKER = re.compile(r"#\s*pragma:\s*no\s*mutate", re.IGNORECASE)


class ExclusionError(ValueError):
    pass


def excluded_lines(source: str, path: str = "<source>") -> dict[int, str]:
    """Line number (1-based) -> the class that excludes it, for one module's source."""
    lines: dict[int, str] = {}
    for node in ast.walk(ast.parse(source, filename=path)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            for decorator in node.decorator_list:
                end = decorator.end_lineno or decorator.lineno
                lines.update({number: "decorator" for number in range(decorator.lineno, end + 1)})
    for number, text in enumerate(source.splitlines(), start=1):
        if MARKER.search(text):
            raise ExclusionError(
                f"{path}:{number}: '# pragma: no mutate' hides a line from the mutation sample; no line is "
                "excluded by a marker (see conformance/mutation_tool/exclude.py): triage its survivors, and "
                f"pin a fast path with its module's invariant tests instead; got {text.strip()!r}"
            )
    return lines


def excluded_in(path: Path) -> dict[int, str]:
    return excluded_lines(path.read_text(encoding="utf-8"), str(path))


def exclusion_of(lines: dict[int, str], start: tuple[int, int], end: tuple[int, int]) -> str | None:
    """The class excluding a mutation whose node spans ``start`` to ``end`` (Cosmic Ray's positions: line
    1-based, column 0-based), or None. A node counts as on an excluded line when its first or last line is."""
    end_line = end[0] - 1 if end[1] == 0 and end[0] > start[0] else end[0]
    return lines.get(start[0]) or lines.get(end_line)
