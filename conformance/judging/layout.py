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
- **A point in time** is ISO 8601 text with a zone (``"2026-01-05T13:30:00Z"``, with or without
  milliseconds, any offset) or a number of epoch milliseconds: two of them are the same when they name the
  same instant.
- **A structured value** is an object, or the JSON text of one (``tool_result.content`` as the tool's
  raw string or as the provider's parsed JSON): a string holding a JSON object or array matches the
  object or array it encodes.

:func:`align` brings an expected value and an actual one to a common layout before they are compared;
:func:`renderings` gives the texts a ``regex`` may search.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)\s*$")
_UNIT_MS = {"ms": 1, "s": 1_000, "m": 60_000, "h": 3_600_000, "d": 86_400_000, "w": 604_800_000}


def duration_ms(value: Any) -> float | None:
    """The length in milliseconds of a duration string such as ``"24h"``; None for anything else."""
    if not isinstance(value, str):
        return None
    match = _DURATION.match(value)
    return float(match.group(1)) * _UNIT_MS[match.group(2)] if match else None


_INSTANT = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$")


def instant_ms(value: Any) -> float | None:
    """Epoch milliseconds of ISO 8601 text with a zone; None for anything else (a bare number included:
    it is read as an instant only beside ISO text, see :func:`align`)."""
    if not isinstance(value, str) or not _INSTANT.match(value):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp() * 1000
    except ValueError:
        return None


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


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
        for read in (duration_ms, instant_ms):
            low, high = read(expected), read(actual)
            if low is not None and high is not None:
                return low, high
        return expected, actual
    if isinstance(expected, str) and _number(actual) and instant_ms(expected) is not None:
        return instant_ms(expected), actual
    if isinstance(actual, str) and _number(expected) and instant_ms(actual) is not None:
        return expected, instant_ms(actual)
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
