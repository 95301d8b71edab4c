"""The matchers of ``expect``: equals, subset, contains, regex, count, between, absent, lacks, parts_sum_to,
in_order.

Each returns ``None`` when the record satisfies the expectation and otherwise a message a user can act
on: which matcher, which path, what was expected and an excerpt of what the record held there.
"""

from __future__ import annotations

import json
import re
from typing import Any

from conformance.judging.layout import align, is_negative, renderings
from conformance.judging.path import Selection, select
from conformance.scenario.common import Expectation

_EXCERPT = 300


def excerpt(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return text if len(text) <= _EXCERPT else text[: _EXCERPT - 3] + "..."


def is_subset(expected: Any, actual: Any) -> bool:
    """Dicts match when every expected key matches; lists elementwise with equal length; else equality.

    Both sides are first brought to one layout where the documents leave the layout open (a text as a
    string or as content parts, a duration in any unit, an object or its JSON text:
    ``conformance.judging.layout``)."""
    expected, actual = align(expected, actual)
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            k in actual and is_subset(v, actual[k]) for k, v in expected.items()
        )
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(expected) == len(actual)
            and all(is_subset(e, a) for e, a in zip(expected, actual, strict=True))
        )
    return bool(expected == actual and type(expected) is type(actual)) or (
        isinstance(expected, int | float)
        and isinstance(actual, int | float)
        and not isinstance(expected, bool)
        and not isinstance(actual, bool)
        and expected == actual
    )


def _contains(container: Any, expected: Any) -> bool:
    expected, container = align(expected, container)
    if isinstance(container, str):
        return isinstance(expected, str) and expected in container
    if isinstance(container, list):
        return any(is_subset(expected, item) for item in container)
    if isinstance(container, dict):
        return is_subset(expected, container)
    return False


def _single(selection: Selection, expectation: Expectation) -> tuple[Any, str | None]:
    if selection.plural:
        return selection.values, None
    if not selection.values:
        return None, (
            f"{expectation.matcher} at {expectation.path}: the path matched nothing in the record "
            f"({selection.where_it_emptied()})"
        )
    if len(selection.values) != 1:
        count = len(selection.values)
        return None, f"{expectation.matcher} at {expectation.path}: the path matched {count} values, not one"
    return selection.values[0], None


def _how_many(selection: Selection) -> int:
    """What ``count`` counts: the fanned-out values, or the length of the one list/dict/string selected."""
    if selection.plural:
        return len(selection.values)
    if len(selection.values) == 1 and isinstance(selection.values[0], list | dict | str):
        return len(selection.values[0])
    return len(selection.values)


def _between(selection: Selection, expectation: Expectation, where: str) -> str | None:
    """A single number must lie in [low, high]; anything else is counted as ``count`` counts it."""
    assert expectation.between is not None
    low, high = expectation.between
    single = len(selection.values) == 1 and not selection.plural
    value = selection.values[0] if single else None
    if single and isinstance(value, int | float) and not isinstance(value, bool):
        found: float = value
    else:
        found = _how_many(selection)
    inside = low <= found <= high
    return None if inside else f"{where}: expected between {low:g} and {high:g}, found {found:g}"


def _lacks(selection: Selection, expectation: Expectation, where: str) -> str | None:
    """No string inside the selection matches. An empty selection is a failure, not a vacuous pass: a
    misspelled path would otherwise prove that anything is left out."""
    assert expectation.lacks is not None
    if not selection.values or (not selection.plural and selection.values in ([[]], [None])):
        return f"{where}: the path matched nothing in the record ({selection.where_it_emptied()})"
    pattern = re.compile(expectation.lacks)
    found = [text for text in strings_in(selection.values) if pattern.search(text)]
    return None if not found else f"{where}: /{expectation.lacks}/ matches {excerpt(found[0])}"


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _parts_sum_to(value: Any, expectation: Expectation, where: str) -> str | None:
    """An object whose other numbers add up to its number under ``parts_sum_to`` (at least one part).
    Values that are not numbers are not parts: a record may carry extra fields anywhere (a unit, a note)."""
    key = expectation.parts_sum_to
    assert key is not None
    if not isinstance(value, dict) or not _is_number(value.get(key)):
        return f"{where}: expected an object with a number under {key!r}, found {excerpt(value)}"
    parts = {name: part for name, part in value.items() if name != key and _is_number(part)}
    if not parts:
        return f"{where}: expected numeric parts beside {key!r}, found none in {excerpt(value)}"
    total = sum(parts.values())
    return None if total == value[key] else f"{where}: the parts add up to {total:g}, not {value[key]:g}"


def _in_order(value: Any, expectation: Expectation, where: str) -> str | None:
    """Each item matched by a later element than the one before it; the earliest match is taken each time,
    which finds the order whenever one exists."""
    items = expectation.in_order
    assert items is not None
    if not isinstance(value, list):
        return f"{where}: expected a list, found {excerpt(value)}"
    position = 0
    for index, item in enumerate(items):
        found = next((at for at in range(position, len(value)) if _contains(value[at], item)), None)
        if found is None:
            after = f" after item {index - 1}" if index else ""
            return f"{where}: no element matches item {index} {excerpt(item)}{after}"
        position = found + 1
    return None


def check(record: Any, expectation: Expectation) -> str | None:
    """Judge one expectation against one record."""
    matcher = expectation.matcher  # a property that searches the fields given: read it once
    selection = select(record, expectation.path)
    where = f"{matcher} at {expectation.path}"
    if matcher == "absent":
        empty = not selection.values or (not selection.plural and selection.values in ([[]], [None]))
        return None if empty else f"{where}: expected nothing, found {excerpt(selection.values)}"
    if matcher == "count":
        found = _how_many(selection)
        return None if found == expectation.count else f"{where}: expected {expectation.count}, found {found}"
    if matcher == "between":
        return _between(selection, expectation, where)
    if matcher == "lacks":
        return _lacks(selection, expectation, where)
    value, problem = _single(selection, expectation)
    if problem:
        return problem
    if matcher == "equals":
        ok = is_subset(expectation.equals, value) and is_subset(value, expectation.equals)
        return None if ok else f"{where}: expected {excerpt(expectation.equals)}, found {excerpt(value)}"
    if matcher == "subset":
        ok = is_subset(expectation.subset, value)
        return (
            None
            if ok
            else f"{where}: expected a superset of {excerpt(expectation.subset)}, found {excerpt(value)}"
        )
    if matcher == "contains":
        ok = _contains(value, expectation.contains)
        return (
            None
            if ok
            else f"{where}: expected to contain {excerpt(expectation.contains)}, found {excerpt(value)}"
        )
    if matcher == "parts_sum_to":
        return _parts_sum_to(value, expectation, where)
    if matcher == "in_order":
        return _in_order(value, expectation, where)
    assert expectation.regex is not None
    return _regex(value, expectation.regex, where)


def _regex(value: Any, pattern: str, where: str) -> str | None:
    """A regex searches every layout of the value (``layout.renderings``): one match is enough, except
    for a "never shows X" pattern (opening with a negative lookahead), which must hold on every layout."""
    compiled = re.compile(pattern)
    hits = [compiled.search(text) is not None for text in renderings(value, strings_in)]
    ok = all(hits) if is_negative(pattern) else any(hits)
    return None if ok else f"{where}: /{pattern}/ does not match {excerpt(value)}"


def strings_in(value: Any) -> list[str]:
    """Every string inside ``value`` (dict values and list items, depth first, in document order).

    ``regex`` over an object or list searches this text, joined by newlines. That lets a scenario require
    something of a whole model request (the tool declarations, say) without pinning which message or tool
    description carries it, which the documents usually leave to the implementation.
    """
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for item in value.values() for text in strings_in(item)]
    if isinstance(value, list):
        return [text for item in value for text in strings_in(item)]
    return []
