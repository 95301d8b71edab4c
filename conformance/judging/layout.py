"""Layouts the documents leave open, read as the same content by every matcher.

Why: the documents fix *what* a record says in several places where they do not fix *how it is laid
out*, and real runtimes differ there. A scenario that compares layouts instead of content rejects
behaviour the documents allow (issue 22). Three such freedoms are read here, in one place:

- **A message's text** is one string, or a list of content parts (``[{type: "text", text: ...}, ...]``,
  the shape provider dialects use). The text of a parts list is its text parts joined; a part of another
  type (an image) carries no text.
- **A duration** is written in any unit (``"24h"``, ``"1d"``, ``"86400s"``, ``"86400000ms"``): two
  duration strings are the same when they are the same length of time. Only strings with a unit count;
  a bare number stays a number (its unit would be a guess).
- **A structured value** is an object, or the JSON text of one (``tool_result.content`` as the tool's
  raw string or as the provider's parsed JSON): a string holding a JSON object or array matches the
  object or array it encodes.

:func:`align` brings an expected value and an actual one to a common layout before they are compared;
:func:`renderings` gives the texts a ``regex`` may search.
"""

from __future__ import annotations

import json
import re
from typing import Any

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)\s*$")
_UNIT_MS = {"ms": 1, "s": 1_000, "m": 60_000, "h": 3_600_000, "d": 86_400_000, "w": 604_800_000}


def duration_ms(value: Any) -> float | None:
    """The length in milliseconds of a duration string such as ``"24h"``; None for anything else."""
    if not isinstance(value, str):
        return None
    match = _DURATION.match(value)
    return float(match.group(1)) * _UNIT_MS[match.group(2)] if match else None


def parts_text(value: Any) -> str | None:
    """The text of a list of content parts, or None when ``value`` is not one.

    A parts list is a non-empty list of objects, each with a string ``type``, at least one of them a
    text part (``type`` ending in ``text``, with a string ``text``)."""
    if not isinstance(value, list) or not value:
        return None
    if not all(isinstance(part, dict) and isinstance(part.get("type"), str) for part in value):
        return None
    texts = [
        part["text"]
        for part in value
        if str(part["type"]).endswith("text") and isinstance(part.get("text"), str)
    ]
    return "".join(texts) if texts else None


def json_container(value: Any) -> dict[str, Any] | list[Any] | None:
    """The object or array a string holds as JSON text, or None."""
    if not isinstance(value, str) or not value.lstrip().startswith(("{", "[")):
        return None
    try:
        parsed = json.loads(value)
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict | list) else None


def align(expected: Any, actual: Any) -> tuple[Any, Any]:
    """``expected`` and ``actual`` in one layout, where the documents leave the layout open."""
    if isinstance(expected, str) and isinstance(actual, str):
        low, high = duration_ms(expected), duration_ms(actual)
        return (low, high) if low is not None and high is not None else (expected, actual)
    if isinstance(expected, str) and isinstance(actual, list | dict):
        return _align_text(expected, actual)
    if isinstance(actual, str) and isinstance(expected, list | dict):
        flipped_actual, flipped_expected = _align_text(actual, expected)
        return flipped_expected, flipped_actual
    return expected, actual


def _align_text(text: str, structured: list[Any] | dict[str, Any]) -> tuple[Any, Any]:
    """A string against a list or object: a parts list's text, or the JSON the string holds."""
    joined = parts_text(structured)
    if joined is not None:
        return text, joined
    parsed = json_container(text)
    return (parsed, structured) if parsed is not None else (text, structured)


def renderings(value: Any, strings_in: Any) -> list[str]:
    """The texts a ``regex`` may search in ``value``: the value's own text first, then its other layouts.

    A string is itself, plus the joined strings of the JSON it holds; a parts list is its text; any other
    object or list is the text of every string inside it (joined by newlines) and its JSON text."""
    if isinstance(value, str):
        parsed = json_container(value)
        return [value] if parsed is None else [value, "\n".join(strings_in(parsed))]
    found = ["\n".join(strings_in(value))]
    joined = parts_text(value)
    if joined is not None:
        found.append(joined)
    if isinstance(value, dict | list):
        found.append(json.dumps(value, ensure_ascii=False))
    return found


def is_negative(pattern: str) -> bool:
    """A regex that says "never shows X": it opens with a negative lookahead at the start of the text."""
    return bool(re.match(r"^(\^|\\A)\(\?!", pattern))
