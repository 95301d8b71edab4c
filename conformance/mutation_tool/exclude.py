"""The classes of lines that are never mutated: code that carries no rule, named by a documented class.

A mutant of such a line cannot be killed by any scenario, because the line decides nothing an
implementation shows; sampling it would only dilute the score with survivors that say nothing about the
suite. Three classes, and no others:

* ``decorator`` -- every line of a decorator expression, found from the syntax tree, no marking needed.
  The arguments of ``@dataclass(frozen=True)`` and the like configure Python's class machinery
  (mutability, ordering); no rule is about them, and flipping ``frozen`` only makes a value assignable
  that nothing assigns to.
* ``type-guard`` -- a line marked ``# pragma: no mutate: type-guard``: a check that rejects a value the
  function's annotations already exclude (a ``repeat`` that is neither once, always nor a cooldown). The
  scenario models refuse such values before the runtime sees them, so the guard exists only to give a
  Python caller that ignores the types a clear error. A guard that decides a documented refusal
  (INVALID_CONFIG for an out-of-range setting, say) is *not* this class and is never marked.
* ``fast-path`` -- a line marked ``# pragma: no mutate: fast-path``: a condition that only picks between
  a fast path and the slow computation it replaces (the piecewise, cached size of memory instead of
  encoding it whole), or a constant or counter that only feeds such a condition (the length from which a
  string's size is remembered, how deep and wide containers are taken apart). Both paths give the same
  answer, which ``tests/test_fast_paths.py`` checks, so whichever way a mutant sends a value the answer
  is the same; only the time changes. A line that also computes part of the answer, or decides which
  computation can run at all, is not this class.

The marker is Cosmic Ray's own ``# pragma: no mutate`` with the class after a colon; a marker without a
known class is an error, so every excluded line says why. ``python -m conformance.mutation_tool`` reports
per module how many mutants of the wanted operators each class removed from the population.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

CLASSES = ("decorator", "type-guard", "fast-path")
MARKER = re.compile(r"#\s*pragma:\s*no mutate\b(?P<rest>.*)$")
_CLASS = re.compile(r"^:\s*(?P<cls>[\w-]+)\s*$")


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
        marker = MARKER.search(text)
        if marker is None:
            continue
        found = _CLASS.match(marker.group("rest"))
        if found is None or found.group("cls") not in CLASSES[1:]:
            raise ExclusionError(
                f"{path}:{number}: '# pragma: no mutate' must name its class after a colon, one of "
                f"{', '.join(CLASSES[1:])} (see conformance/mutation_tool/exclude.py); got {text.strip()!r}"
            )
        lines[number] = found.group("cls")
    return lines


def excluded_in(path: Path) -> dict[int, str]:
    return excluded_lines(path.read_text(encoding="utf-8"), str(path))


def exclusion_of(lines: dict[int, str], start: tuple[int, int], end: tuple[int, int]) -> str | None:
    """The class excluding a mutation whose node spans ``start`` to ``end`` (Cosmic Ray's positions: line
    1-based, column 0-based), or None. A node counts as on an excluded line when its first or last line is."""
    end_line = end[0] - 1 if end[1] == 0 and end[0] > start[0] else end[0]
    return lines.get(start[0]) or lines.get(end_line)
