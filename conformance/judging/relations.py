"""The ``relation`` matcher: two observations compared with each other, not one with a constant.

Why. Many documented facts are relations, not values: a default behaves as the same value written out, a
ceiling bounds what is asked of it, the order of independent inputs does not matter, a restored session
goes on as the saved one would. Pinning our reference's number for such a value would fail a conforming
runtime that chose another; comparing two observations of the implementation under test pins exactly what
the documents fix. The left observation is the expectation's ``path`` in the main play; the right one is
``relation.to`` (default: the same path) in the main play or in the twin named by ``relation.play``.

Both sides are read as the other matchers read one value: a path that fans out (``[*]``) gives its list of
values. ``equal`` compares JSON values exactly (numbers by value). The ordering relations compare numbers;
a list, object or string stands for its length, so "no more messages than" needs no counting path. A side
that selects nothing is a failure that says which side and where the path emptied: a relation over
nothing proves nothing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from conformance.judging.matchers import excerpt, is_subset
from conformance.judging.path import Selection, select
from conformance.scenario.common import Expectation, Relation


def check_relation(
    record: Any, expectation: Expectation, twins: Mapping[str, Any] | None = None
) -> str | None:
    relation = expectation.relation
    assert relation is not None
    other_path = relation.to or expectation.path
    where = f"relation at {expectation.path}: {relation.op} {_describe(other_path, relation.play)}"
    if relation.play is not None and (twins is None or relation.play not in twins):
        return f"{where}: the twin {relation.play!r} was not played, so there is nothing to compare with"
    other_record = record if relation.play is None else (twins or {})[relation.play]
    left, problem = _observe(record, expectation.path, "this play")
    if problem:
        return f"{where}: {problem}"
    right, problem = _observe(other_record, other_path, _play_name(relation.play))
    if problem:
        return f"{where}: {problem}"
    if relation.op != "equal" and (_size(left) is None or _size(right) is None):
        both = f"{excerpt(left)} and {excerpt(right)}"
        return f"{where}: {both} must both be numbers (or lists, objects or strings, by their length)"
    if _holds(relation, left, right):
        return None
    if relation.op == "equal":
        return f"{where}: {_first_difference(left, right)}"
    return f"{where}: found {_as_compared(left)} against {_as_compared(right)}"


def _as_compared(value: Any) -> str:
    """A number as it is; a list, object or string by the length the relation compared, then its start
    (an excerpt of two long lists alone hides the two numbers that decided)."""
    if not isinstance(value, list | dict | str):
        return excerpt(value)
    kind = "items" if isinstance(value, list) else "keys" if isinstance(value, dict) else "characters"
    return f"{len(value)} {kind} ({excerpt(value)})"


_CONTEXT = 60


def _first_difference(left: Any, right: Any) -> str:
    """Where two unequal values part, with a little of each around that place: two long previews that
    share their first few hundred characters would otherwise be shown as two identical excerpts."""
    a = left if isinstance(left, str) else json.dumps(left, ensure_ascii=False, sort_keys=True, default=str)
    b = (
        right
        if isinstance(right, str)
        else json.dumps(right, ensure_ascii=False, sort_keys=True, default=str)
    )
    at = _common_prefix(a, b)
    start = max(0, at - _CONTEXT // 2)
    return (
        f"they differ at character {at} (lengths {len(a)} and {len(b)}): "
        f"{json.dumps(a[start : at + _CONTEXT], ensure_ascii=False)} against "
        f"{json.dumps(b[start : at + _CONTEXT], ensure_ascii=False)}"
    )


def _common_prefix(a: str, b: str) -> int:
    """Length of the longest common prefix, by halving with slice comparisons (done in C): a character
    loop took seconds on the 20 MB values an implementation may return (issue 23)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[low:middle] == b[low:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _describe(path: str, play: str | None) -> str:
    return f"{path} in {_play_name(play)}"


def _play_name(play: str | None) -> str:
    return "this play" if play is None else f"twin {play!r}"


def _observe(record: Any, path: str, which: str) -> tuple[Any, str | None]:
    selection: Selection = select(record, path)
    if selection.plural:
        return selection.values, None
    if len(selection.values) != 1:
        if not selection.values:
            return None, f"{path} in {which} matched nothing ({selection.where_it_emptied()})"
        return None, f"{path} in {which} matched {len(selection.values)} values, not one"
    return selection.values[0], None


def _size(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, list | dict | str):
        return float(len(value))
    return None


def _holds(relation: Relation, left: Any, right: Any) -> bool:
    if relation.op == "equal":
        return is_subset(left, right) and is_subset(right, left)
    a, b = _size(left), _size(right)
    assert a is not None and b is not None
    if relation.op == "at_most":
        return a <= b
    if relation.op == "at_least":
        return a >= b
    assert relation.tolerance is not None
    return abs(a - b) <= relation.tolerance
