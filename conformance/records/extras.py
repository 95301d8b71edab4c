"""What judging sets aside from a record, and what the report shows of it.

Protocol version 3 lets an implementation carry more than the vocabulary asks, in two marked ways: events
of its own types (a type the system's schema does not list) and ``x-`` fields at any depth. Both are its
own diagnostics, so judging must not see them: an own event would change what ``count`` counts and what
``events[type=...][n]`` selects only if its type collided, but an ``x-`` field inside a compared object
would make an ``equals`` fail. ``set_aside`` removes both before the matchers run and says what it
removed, and ``undocumented`` lists the values of open sets (``x-known-values`` in the schema) that the
documents do not name: allowed, but shown, since a reader of the report should see where a runtime used
words of its own. The report prints these notes per case (report.json, report.md, report.html).

The schema is read from the published file (the one implementations read), compiled once per system
into a plan that visits only the parts of a record where an open set can occur.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from conformance.records import schema_name
from conformance.records.check import RECORDS_DIR, generated_schema
from conformance.records.common import KNOWN_VALUES

PRIVATE_PREFIX = "x-"
MAX_NOTES = 20
"""At most this many notes per case: a runtime that tags every event with a trace id needs one line to say
so, not a thousand."""
MAX_NOTE = 300
"""At most this many characters per note: an x- key, an own event type or an undocumented value is the
implementation's text and may be megabytes long; report.json keeps the record's size, not the notes'."""


@cache
def published_schema(system: str) -> dict[str, Any]:
    """The committed record schema of ``system`` (what ``python -m conformance.schemas`` wrote)."""
    path = RECORDS_DIR / schema_name(system)
    if path.exists():
        schema: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return schema
    return generated_schema(system)


@cache
def event_types(system: str) -> frozenset[str]:
    """The event types the vocabulary of ``system`` lists."""
    mapping = published_schema(system)["properties"]["events"]["items"]["discriminator"]["mapping"]
    return frozenset(mapping)


def set_aside(system: str, record: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """``record`` without events of unlisted types and without ``x-`` fields, and a note for each kind of
    thing removed. Copy on write: a record with nothing to remove is returned as it is."""
    private: list[str] = []
    kept = _without_private(record, "", private)
    notes: list[str] = []
    known = event_types(system)
    events = kept.get("events")
    if isinstance(events, list):
        own = [i for i, e in enumerate(events) if isinstance(e, dict) and e.get("type") not in known]
        folded = {name.casefold(): name for name in known}
        for index in own:
            kind = events[index].get("type")
            near = folded.get(kind.casefold()) if isinstance(kind, str) else None
            hint = f"; the vocabulary's {json.dumps(near)} differs only in case" if near else ""
            notes.append(
                f"events[{index}]: event type {json.dumps(kind)} is the implementation's own "
                f"(not in the {system} vocabulary{hint}): ignored by judging"
            )
        if own:
            dropped = set(own)
            kept = {**kept, "events": [e for i, e in enumerate(events) if i not in dropped]}
    notes += [f"{path}: an x- field, ignored by judging" for path in private]
    return kept, notes


def _without_private(value: Any, path: str, found: list[str]) -> Any:
    if isinstance(value, dict):
        out: dict[str, Any] | None = None
        for key, item in value.items():
            where = f"{path}.{key}" if path else str(key)
            if isinstance(key, str) and key.startswith(PRIVATE_PREFIX):
                found.append(where)
                if out is None:
                    out = dict(value)
                del out[key]
                continue
            if isinstance(item, dict | list):
                new = _without_private(item, where, found)
                if new is not item:
                    if out is None:
                        out = dict(value)
                    out[key] = new
        return value if out is None else out
    if isinstance(value, list):
        changed: list[Any] | None = None
        for index, item in enumerate(value):
            if isinstance(item, dict | list):
                new = _without_private(item, f"{path}[{index}]", found)
                if new is not item:
                    if changed is None:
                        changed = list(value)
                    changed[index] = new
        return value if changed is None else changed
    return value


def undocumented(system: str, record: dict[str, Any]) -> list[str]:
    """A note for each value of an open set that the documents do not name, with the ones they do."""
    plan = _plan_of(system)
    found: dict[str, str] = {}
    if plan is not None:
        _walk(plan, record, "", found)
    return [f"{path}: {note}" for path, note in found.items()]


def notes(system: str, record: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The record judging sees and every note about what it does not see or did not expect."""
    judged, removed = set_aside(system, record)
    found = removed + undocumented(system, record)
    if len(found) > MAX_NOTES:
        found = [*found[:MAX_NOTES], f"... and {len(found) - MAX_NOTES} more"]
    return judged, [_bounded(note) for note in found]


def _bounded(note: str) -> str:
    if len(note) <= MAX_NOTE:
        return note
    return f"{note[: MAX_NOTE - 40]}... ({len(note):,} characters in all)"


# --- the plan: the schema reduced to where open sets occur -------------------------------------------------

Plan = dict[str, Any]


@cache
def _plan_of(system: str) -> Plan | None:
    root = published_schema(system)
    return _plan(root, root, {})


def _plan(root: dict[str, Any], node: Any, memo: dict[str, Plan | None]) -> Plan | None:
    if not isinstance(node, dict):
        return None
    ref = node.get("$ref")
    if isinstance(ref, str):
        if ref not in memo:
            memo[ref] = None  # a model that contains itself: the inner visit sees nothing more
            target: Any = root
            for step in ref.removeprefix("#/").split("/"):
                target = target[step]
            memo[ref] = _plan(root, target, memo)
        return memo[ref]
    plan: Plan = {}
    if KNOWN_VALUES in node:
        plan["known"] = frozenset(node[KNOWN_VALUES])
    props = {k: p for k, sub in node.get("properties", {}).items() if (p := _plan(root, sub, memo))}
    if props:
        plan["props"] = props
    items = _plan(root, node.get("items"), memo)
    if items:
        plan["items"] = items
    discriminator = node.get("discriminator")
    if isinstance(discriminator, dict):
        branches = {
            tag: p
            for tag, target in discriminator["mapping"].items()
            if (p := _plan(root, target if isinstance(target, dict) else {"$ref": target}, memo))
        }
        if branches:
            plan["union"] = (discriminator["propertyName"], branches)
    else:
        alternatives = [
            p for sub in node.get("anyOf", []) + node.get("oneOf", []) if (p := _plan(root, sub, memo))
        ]
        if alternatives:
            plan["any"] = alternatives
    return plan or None


def _walk(plan: Plan, value: Any, path: str, found: dict[str, str]) -> None:
    known = plan.get("known")
    if known is not None and isinstance(value, str) and value not in known:
        listed = ", ".join(sorted(known))
        found[path] = f"{json.dumps(value)} is not a documented value (documented: {listed})"
    if isinstance(value, dict):
        for key, sub in plan.get("props", {}).items():
            if key in value:
                _walk(sub, value[key], f"{path}.{key}" if path else key, found)
        union = plan.get("union")
        if union is not None:
            tag, branches = union
            branch = branches.get(value.get(tag))
            if branch is not None:
                _walk(branch, value, path, found)
    elif isinstance(value, list) and "items" in plan:
        for index, item in enumerate(value):
            _walk(plan["items"], item, f"{path}[{index}]", found)
    for sub in plan.get("any", ()):
        _walk(sub, value, path, found)
