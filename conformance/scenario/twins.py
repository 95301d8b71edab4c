"""Twins: a second play of a case that differs from it in one documented way.

Why. Where the documents leave a value open but fix a relation (a default equals the explicit default,
order does not matter, a larger budget never shows less, a save-and-restore changes nothing), no constant
can be pinned without failing a conforming runtime; what can be pinned is that two plays agree. A scenario
declares each such play under ``twins`` as a small patch of its own case (``set`` values at dotted paths,
``remove`` keys), and a ``relation`` expectation compares an observation of the main play with one of the
twin's (``conformance.judging.relations``).

A twin is part of the answer key: the implementation receives it as an ordinary case with its own id,
``<scenario id>~<twin name>``, and cannot tell which play is which. Only the played half of the document
(``setup``, ``script``, ``steps``, ``requires``) may be patched; a twin's patch is checked when the scenario
loads, so a patch naming a missing key or producing an invalid case is a load error naming the twin.

Paths are dotted, with list positions as numbers: ``setup.options.tool_result_max_tokens``,
``steps.1.size``. ``set`` may create the last key of a path (that is how a default is written out);
every key before it must exist.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from pydantic import Field, model_validator

from conformance.scenario.common import Strict

PATCHABLE = ("setup", "script", "steps", "requires")
SEPARATOR = "~"
"""Between a scenario id and a twin's name in the twin case's id (never part of a scenario id)."""


class TwinError(ValueError):
    """A twin's patch does not fit its scenario's document; names the twin and the path."""


class Twin(Strict):
    why: str = Field(
        min_length=3, description="The one documented way this play differs and the rule that says so."
    )
    set: dict[str, Any] = Field(
        default_factory=dict, description="Dotted path -> the value it holds in the twin (created if absent)."
    )
    remove: list[str] = Field(default_factory=list, description="Dotted paths the twin leaves out.")

    @model_validator(mode="after")
    def _changes_something(self) -> Twin:
        if not self.set and not self.remove:
            raise ValueError("a twin changes something: give set or remove")
        for path in [*self.set, *self.remove]:
            head = path.split(".", 1)[0]
            if head not in PATCHABLE:
                raise ValueError(
                    f"{shown(path)}: a twin patches only the played half ({', '.join(PATCHABLE)}), "
                    f"not {shown(head)}"
                )
        return self


SHOWN = 120
"""The most characters of a path a message quotes: a patch path is the author's text and may be a
megabyte long (issue 23); the message must still fit on a screen."""


def shown(text: str) -> str:
    """``text`` quoted as ``repr`` does, its middle cut when it is longer than ``SHOWN``."""
    if len(text) <= SHOWN:
        return repr(text)
    half = SHOWN // 2
    return repr(text[:half] + "..." + text[-half:]) + f" ({len(text):,} characters)"


def twin_id(scenario_id: str, name: str) -> str:
    return f"{scenario_id}{SEPARATOR}{name}"


def apply(document: dict[str, Any], name: str, twin: Twin) -> dict[str, Any]:
    """The scenario document as the twin plays it (a new document; the input is left untouched)."""
    patched = copy.deepcopy(document)
    patched.pop("twins", None)
    for path, value in twin.set.items():
        parent, key = _parent(patched, path, name)
        _put(parent, key, copy.deepcopy(value), path, name)
    for path in twin.remove:
        parent, key = _parent(patched, path, name)
        _drop(parent, key, path, name)
    return patched


def _parent(document: dict[str, Any], path: str, name: str) -> tuple[Any, str]:
    *heads, last = path.split(".")
    node: Any = document
    for index, key in enumerate(heads):
        node = _step(node, key, f"twins.{name}: {shown(path)}: {shown('.'.join(heads[: index + 1]))}")
    return node, last


def _step(node: Any, key: str, where: str) -> Any:
    if isinstance(node, dict):
        if key not in node:
            raise TwinError(f"{where} does not exist in the scenario")
        return node[key]
    if isinstance(node, list):
        position = _position(node, key, where)
        return node[position]
    raise TwinError(f"{where} is inside a {type(node).__name__}, not an object or a list")


_POSITION = re.compile(r"0|[1-9][0-9]{0,8}")
"""A list position as the documents write one: plain ASCII digits, counted from 0. Not negative (``-1``
would silently mean the last item), not ``--1``, ``²`` or ``٣`` (``str.isdigit`` accepts those and
``int`` then raised a ValueError the loader did not expect: a traceback instead of a load error)."""


def _position(node: list[Any], key: str, where: str) -> int:
    if not _POSITION.fullmatch(key) or int(key) >= len(node):
        raise TwinError(
            f"{where}: expected a position in a list of {len(node)}, got {shown(key)} (positions are plain "
            "numbers counted from 0)"
        )
    return int(key)


def _put(parent: Any, key: str, value: Any, path: str, name: str) -> None:
    where = f"twins.{name}: {shown(path)}"
    if isinstance(parent, dict):
        parent[key] = value
    elif isinstance(parent, list):
        parent[_position(parent, key, where)] = value
    else:
        raise TwinError(f"{where}: cannot set a key inside a {type(parent).__name__}")


def _drop(parent: Any, key: str, path: str, name: str) -> None:
    where = f"twins.{name}: {shown(path)}"
    if isinstance(parent, dict):
        if key not in parent:
            raise TwinError(f"{where} does not exist in the scenario, so it cannot be removed")
        del parent[key]
    elif isinstance(parent, list):
        del parent[_position(parent, key, where)]
    else:
        raise TwinError(f"{where}: cannot remove a key from a {type(parent).__name__}")
