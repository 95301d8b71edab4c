"""The record contract check: every constraint a record schema puts on an implementation names its rules.

A record schema may refuse a record for three kinds of reason that the documents must back: a *required*
field, a *closed set* of values (``enum``, ``const``) and a *fixed layout* (``additionalProperties:
false``, ``prefixItems``, item counts, property counts). Each must carry ``x-rules`` (on itself, or on the
property it sits in) naming rule ids the catalogue has; ``contract_problems`` lists every one that does
not. Field names and JSON types are the vocabulary itself and need no rule.

Three things are the envelope, not constraints: the record's ``events`` list, each event's ``type`` (and
the tag of any other open union: a request's ``purpose``, a relay's ``outcome``), and the last branch of
an open union, which only says "any other tag". ``counts`` measures a schema the same way, for the
before/after figures of the migration.
"""

from __future__ import annotations

from collections.abc import Iterator, Set
from dataclasses import dataclass
from typing import Any

from conformance.records.common import OPEN_UNION, OTHER, RULES

LAYOUT_KEYWORDS = (
    "prefixItems",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "dependentRequired",
)
"""Keywords that fix a layout whatever their value; ``additionalProperties`` counts only when false."""


@dataclass(frozen=True)
class Constraint:
    kind: str
    """required | closed set | fixed layout"""
    where: str
    """A JSON Pointer into the schema file."""
    rules: tuple[str, ...]


def _tags(schema: dict[str, Any]) -> set[tuple[str, str]]:
    """(definition pointer, tag property) for every branch of every open union: their tags are envelope. A
    union nested in another (a ``model_request``'s kinds) gives its branches the outer tag as well."""
    found: set[tuple[str, str]] = set()

    def union(node: dict[str, Any], outer: tuple[str, ...]) -> None:
        tag = node["discriminator"]["propertyName"]
        for target in node["discriminator"]["mapping"].values():
            if isinstance(target, str):
                found.update((target, name) for name in (*outer, tag))
            elif isinstance(target, dict) and target.get(OPEN_UNION):
                union(target, (*outer, tag))

    stack: list[Any] = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if node.get(OPEN_UNION):
                union(node, ())
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


def constraints(schema: dict[str, Any]) -> Iterator[Constraint]:
    """Every required field, closed set and fixed layout of ``schema``, with the rules it names."""
    tags = _tags(schema)
    yield from _visit(schema, "#", (), None, tags, top=True)


def _visit(
    node: Any,
    where: str,
    inherited: tuple[str, ...],
    tag: str | None,
    tags: Set[tuple[str, str]],
    top: bool = False,
) -> Iterator[Constraint]:
    if isinstance(node, list):
        for index, item in enumerate(node):
            yield from _visit(item, f"{where}/{index}", inherited, None, tags)
        return
    if not isinstance(node, dict) or node.get(OTHER):
        return
    rules = tuple(node.get(RULES, ())) or inherited
    if ("enum" in node or "const" in node) and tag is None:
        yield Constraint("closed set", where, rules)
    if node.get("additionalProperties") is False or any(k in node for k in LAYOUT_KEYWORDS):
        yield Constraint("fixed layout", where, rules)
    properties = node.get("properties", {})
    own_tags = {t for d, t in tags if d == where}
    for name in node.get("required", []):
        if (top and name == "events") or name in own_tags:
            continue
        field_rules = tuple(properties.get(name, {}).get(RULES, ()))
        yield Constraint("required", f"{where}/required/{name}", field_rules)
    for key, value in node.items():
        if key in ("not", RULES):
            continue
        if key == "properties":
            for name, sub in value.items():
                sub_tag = name if name in own_tags else None
                yield from _visit(sub, f"{where}/properties/{name}", (), sub_tag, tags)
        elif key == "$defs":
            for name, sub in value.items():
                yield from _visit(sub, f"#/$defs/{name}", (), None, tags)
        elif isinstance(value, dict | list) and key not in ("discriminator", "default", "examples"):
            yield from _visit(value, f"{where}/{key}", rules, None, tags)


def contract_problems(schema: dict[str, Any], known_ids: Set[str], file: str = "") -> list[str]:
    """Each constraint of ``schema`` that names no rule, or a rule id not in ``known_ids``."""
    problems = []
    for constraint in constraints(schema):
        if not constraint.rules:
            problems.append(f"{file}{constraint.where}: a {constraint.kind} that names no rule (x-rules)")
        for rule in constraint.rules:
            if rule not in known_ids:
                problems.append(f"{file}{constraint.where}: x-rules names {rule!r}, which no rule file has")
    return problems


def counts(schema: dict[str, Any]) -> dict[str, int]:
    """How many required fields, closed sets and fixed layouts ``schema`` has (the envelope aside)."""
    tally = {"required": 0, "closed set": 0, "fixed layout": 0}
    for constraint in constraints(schema):
        tally[constraint.kind] += 1
    return tally
