"""The record path language used by ``expect[].path``.

Theory of operation: a path is a chain of segments applied to a list of *current values*, starting with
``[record]``. Each segment maps that list to a new one:

``key`` / ``.key``   each dict value's ``key`` (values without it drop out)
``[n]``              each list value's element ``n``; negative counts from the end
``[*]``              every element of each list value (fan-out)
``[**]``             each value itself and every dict and list value nested in it, at any depth (fan-out): for
                     exported data whose layout the documents leave open (``diagnostics[**]`` with
                     ``contains: {code: X}`` asks that some object anywhere in it has that code)
``[field=value]``    each list value becomes the list of its dict elements whose ``field`` equals ``value``;
                     the value is JSON-ish: ``1``, ``true``, ``null``, ``"quoted text"``, or bare text
``[field!=value]``   the same, keeping elements whose field differs

So ``events[type=model_request][1].messages[-1].content`` is the last message of the second model
request, and ``events[type=tool_call][*].name`` is the name of every tool call. The language is kept
small on purpose: scenario authors in any language must be able to predict what a path selects.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

_SEGMENT = re.compile(r"\.?([A-Za-z_$][A-Za-z0-9_$\-]*)|\[([^\]]*)\]")


class PathError(ValueError):
    """A path that cannot be parsed; names the path and the offending position."""


@dataclass(frozen=True)
class Selection:
    """The values a path selected, and whether the path fans out (then ``values`` are many matches)."""

    values: list[Any]
    plural: bool
    trail: tuple[tuple[str, int, int | None], ...] = ()
    """Each segment's text, how many values were left after it and, for a ``[field=value]`` filter, how
    many elements it kept in all: for explaining an empty result."""

    def where_it_emptied(self) -> str:
        """Which segment selected nothing, and what the path still held just before it.

        A filter always yields one list per list it was given, even an empty one, so "selected 1 value"
        would hide the useful fact; after a filter the explanation counts the elements it kept instead
        ("matched no element" when the record has none of the kind asked for)."""
        held, prefix = "", ""
        for text, count, kept in self.trail:
            if count == 0:
                before = f"`{prefix}` {held}" if prefix else "in the record"
                return f"{before}, then `{text}` selected nothing"
            prefix, held = prefix + text, _held(count, kept)
        return f"`{prefix}` {held}"


def _held(count: int, kept: int | None) -> str:
    if kept is None:
        return f"selected {_plural(count, 'value')}"
    return "matched no element" if kept == 0 else f"matched {_plural(kept, 'element')}"


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def _literal(text: str) -> Any:
    text = text.strip()
    try:
        return json.loads(text)
    except ValueError:
        return text


@lru_cache(maxsize=4096)
def _parse(path: str) -> tuple[tuple[str, Any, str], ...]:
    """The segments of ``path``, remembered: a run judges the same few hundred paths over and over, and
    the segments are a pure function of the text (a tuple, so no caller can change a cached one)."""
    segments: list[tuple[str, Any, str]] = []
    position = 0
    while position < len(path):
        match = _SEGMENT.match(path, position)
        if match is None or match.end() == position:
            raise PathError(f"cannot parse path {path!r} at character {position}: {path[position:]!r}")
        key, bracket, text = match.group(1), match.group(2), match.group(0)
        if key is not None:
            segments.append(("key", key, text))
        elif bracket == "*":
            segments.append(("all", None, text))
        elif bracket == "**":
            segments.append(("deep", None, text))
        elif re.fullmatch(r"-?\d+", bracket.strip()):
            segments.append(("index", int(bracket), text))
        elif "!=" in bracket:
            field, value = bracket.split("!=", 1)
            segments.append(("filter-not", (field.strip(), _literal(value)), text))
        elif "=" in bracket:
            field, value = bracket.split("=", 1)
            segments.append(("filter", (field.strip(), _literal(value)), text))
        else:
            raise PathError(f"path {path!r}: bracket [{bracket}] is not an index, [*] or [field=value]")
        position = match.end()
    if not segments:
        raise PathError("path is empty")
    return tuple(segments)


def select(record: Any, path: str) -> Selection:
    """Apply ``path`` to ``record``. Raises PathError for a malformed path, never for missing data."""
    values: list[Any] = [record]
    plural = False
    trail: list[tuple[str, int, int | None]] = []
    for kind, arg, text in _parse(path):
        kept: int | None = None
        if kind == "key":
            values = [v[arg] for v in values if isinstance(v, dict) and arg in v]
        elif kind == "index":
            values = [v[arg] for v in values if isinstance(v, list) and -len(v) <= arg < len(v)]
        elif kind == "all":
            values = [item for v in values if isinstance(v, list) for item in v]
            plural = True
        elif kind == "deep":
            values = [item for v in values for item in _nested(v)]
            plural = True
        else:
            field, wanted = arg
            same = kind == "filter"
            values = [
                [item for item in v if isinstance(item, dict) and (item.get(field) == wanted) == same]
                for v in values
                if isinstance(v, list)
            ]
            kept = sum(len(v) for v in values)
        trail.append((text, len(values), kept))
    return Selection(values=values, plural=plural, trail=tuple(trail))


def _nested(value: Any) -> list[Any]:
    """``value`` and every dict and list inside it, depth first, in document order (the ``[**]`` segment)."""
    found = [value]
    children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    for child in children:
        if isinstance(child, dict | list):
            found += _nested(child)
    return found
