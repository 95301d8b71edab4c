"""A rule's documented numbers, read from the one place they are written: its ``params`` in spec/.

The harness's own restatements of a threshold or ceiling (the fuzz generators' boundaries, say) read it
here instead of writing the number again, so changing ``params`` changes them too. The reference may not
import the harness; its constants are checked against the same params by ``tests/test_defaults_agree.py``.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from conformance.catalogue.load import Catalogue, load_catalogue
from conformance.paths import SPEC_ROOT


class ParamError(LookupError):
    """A rule or param the caller relies on is not in the catalogue; the message names both."""


@cache
def _catalogue() -> Catalogue:
    return load_catalogue(SPEC_ROOT, schema_check=False)


def param(rule_id: str, name: str) -> Any:
    """``params[name]`` of rule ``rule_id`` (a dotted ``name`` reads inside a nested value)."""
    entry = _catalogue().rules.get(rule_id)
    if entry is None:
        raise ParamError(f"no rule {rule_id!r} in the catalogue under {SPEC_ROOT}")
    value: Any = entry.rule.params
    for key in name.split("."):
        if not isinstance(value, dict) or key not in value:
            raise ParamError(f"{entry.path}: rule {rule_id} has no params.{name}")
        value = value[key]
    return value


def number(rule_id: str, name: str) -> int | float:
    """``param`` for a number; a ``ParamError`` naming the file when it is not one."""
    value = param(rule_id, name)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ParamError(f"rule {rule_id}: params.{name} is {value!r}, expected a number")
    return value
