"""Exact session memory: named variables, ``$return`` and ``$iterations`` (spec/llmz/memory.yaml).

Theory of operation. Values live in the session in a *tagged* JSON encoding made by the guest-side codec
(in ``reference.llmz.kernel``): objects become ``{"$": "object", "v": {...}}``, and the two values JSON
cannot spell, ``undefined`` and negative zero, become ``{"$": "undefined"}`` and ``{"$": "-0"}``. That
makes the stored form plain JSON that survives ``toJSON``/``fromJSON`` unchanged
(llmz.memory.codec-round-trip). The codec refuses what memory cannot hold (llmz.memory.supported-values,
llmz.memory.unsupported-values).

Which names are variables: declarations at the top level of a program (``const``/``let``/``var`` at the
start of a line, plain names and simple destructuring), plus every variable already in memory that the
program reassigns. Top-level ``const``/``let`` are rewritten to ``var`` so that their values are still
reachable when the program ends (the capture runs in a ``finally`` around the program body).

Each iteration leaves a record ``{id, hasResult, result}``; ``$iterations`` lists them newest first and
``$return`` is the newest record that has a result (``current_return``). The byte limit covers variables
and records, never the conversation (llmz.memory.limit-scope).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Final

from reference.record import snapshot

DEFAULT_MAX_BYTES: Final = 16 * 1024 * 1024
"""llmz.memory.default-limit: 16 MiB of encoded memory unless ``maxBytes`` is given."""

RESERVED_IDENTIFIERS: Final = frozenset({"exit", "inspect", "chat", "$return", "$iterations"})
"""Names the runtime itself gives generated code (llmz.errors.reserved-identifier; the catalogue does not
list them, so this set is our choice — see that rule's open question)."""

Tagged = Any
"""A value in the tagged encoding described in the module docstring."""

_DECLARATION = re.compile(r"^(const|let|var)(\s+)([A-Za-z_$][\w$]*|\{[^}]*\}|\[[^\]]*\])", re.MULTILINE)
_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*")


def _pattern_names(pattern: str) -> list[str]:
    """Names bound by ``x``, ``{ a, b: c, d = 1 }`` or ``[a, b]``."""
    if not pattern.startswith(("{", "[")):
        return [pattern]
    names = []
    for part in pattern[1:-1].split(","):
        target = part.split("=")[0]
        target = target.split(":")[-1].strip().lstrip(".")
        match = _IDENTIFIER.fullmatch(target)
        if match:
            names.append(target)
    return names


_DECLARATION_HERE = re.compile(_DECLARATION.pattern.removeprefix("^"))
_DECLARATION_AFTER_NEWLINE = re.compile("\n" + _DECLARATION.pattern.removeprefix("^"))


def _declarations(code: str) -> Iterator[re.Match[str]]:
    """The matches of ``_DECLARATION.finditer(code)`` (the declaration is group 1 to the end): the one at
    the very start, then those after a newline. The regex engine tries a multi-line ``^`` at every
    character, but finds a pattern that starts with a newline by scanning for newlines, which for a
    program holding a long literal is most of the work saved. A match never ends just after a newline
    (its last character is a name, ``}`` or ``]``), so resuming after it finds what ``finditer`` finds."""
    position = 0
    first = _DECLARATION_HERE.match(code)
    if first is not None:
        yield first
        position = first.end()
    yield from _DECLARATION_AFTER_NEWLINE.finditer(code, position)


def declared_names(code: str) -> list[str]:
    """Top-level declarations of a program, in order (see the module docstring for what counts). A list
    of the caller's own; the names are remembered per program text (``_declared``)."""
    return list(_declared(code))


@lru_cache(maxsize=64)
def _declared(code: str) -> tuple[str, ...]:
    """``declared_names``, remembered: a pure function of the text, which each program asks for four times
    (the reserved names, the object names, the kernel's capture and its getters)."""
    names: list[str] = []
    for match in _declarations(code):
        names += [name for name in _pattern_names(match.group(3)) if name not in names]
    return tuple(names)


def hoist_declarations(code: str) -> str:
    """Rewrite top-level ``const``/``let`` to ``var`` so the capture can still read them."""
    pieces: list[str] = []
    done = 0
    for match in _declarations(code):
        pieces += [code[done : match.start(1)], f"var{match.group(2)}{match.group(3)}"]
        done = match.end()
    return "".join([*pieces, code[done:]])


def encode_plain(value: Any) -> Tagged:
    """Tag a JSON value from the host (initial variables) the way the guest codec would."""
    if isinstance(value, dict):
        return {"$": "object", "v": {key: encode_plain(item) for key, item in value.items()}}
    if isinstance(value, list):
        return [encode_plain(item) for item in value]
    return value


def to_plain(value: Tagged) -> Any:
    """The JSON a record shows: ``undefined`` as null and negative zero as 0."""
    if isinstance(value, list):
        return [to_plain(item) for item in value]
    if isinstance(value, dict):
        if value.get("$") == "object":
            return {key: to_plain(item) for key, item in value["v"].items()}
        return None if value.get("$") == "undefined" else 0
    return value


def _encoded_size(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


_CONTROL: Final = bytes(range(0x20))
"""What JSON escapes besides the quote and the backslash (``ensure_ascii=False`` leaves the rest as is)."""


@lru_cache(maxsize=64)
def _text_size(text: str) -> int:
    """The encoded size of one long string, remembered: memory is measured after every write and every
    record, and a large retained value (the default limit is 16 MiB) would otherwise be re-encoded each
    time. Keyed by the text itself; the bound keeps at most a few large strings alive.

    Counted, not encoded, when the text is ASCII without control characters (the usual long text): then
    JSON adds the two quotes and one backslash before each quote and backslash, and each character is one
    byte. Counting a 16 MiB text costs a fraction of encoding it."""
    if text.isascii():
        data = text.encode("ascii")
        if len(data.translate(None, _CONTROL)) == len(data):
            return len(data) + 2 + data.count(b'"') + data.count(b"\\")
    return _encoded_size(text)


LONG_TEXT: Final = 4096
"""Strings at least this long have their size remembered (shorter ones cost less to encode than to hash)."""

RAW_TEXT: Final = 64 * 1024
"""Variables holding ASCII text at least this long reach the guest beside the memory's JSON
(``Memory.guest_state``). ASCII only: the engine takes a text as UTF-8, which no lone surrogate has."""


def _travels_raw(text: Tagged) -> bool:
    """Whether a variable's value reaches the guest beside the memory's JSON (``RAW_TEXT``)."""
    return isinstance(text, str) and len(text) >= RAW_TEXT and text.isascii()


_SPLIT_DEPTH: Final = 3
_SPLIT_WIDTH: Final = 64
"""``size_of`` takes apart containers of at most this many entries, this many levels deep, to find long
strings; anything larger or deeper is encoded whole, where JSON's C encoder is faster than a walk."""


def size_of(value: Any, depth: int = 0) -> int:
    """Encoded size in bytes: compact UTF-8 JSON of the tagged form (llmz.memory.limit-scope).

    Exactly ``len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())``, computed
    piecewise near the top so that a long string (a variable, a record's result, a field of an object) is
    encoded once per distinct text (``_text_size``): a container adds its brackets, separators and keys
    to the sizes of its entries."""
    kind = type(value)
    if kind is str:
        if len(value) >= LONG_TEXT:
            return _text_size(value)
        if value.isascii() and value.isprintable() and '"' not in value and "\\" not in value:
            # Nothing to escape: the text and its two quotes.
            return len(value) + 2
        return _encoded_size(value)
    if kind is bool or value is None:
        # true and null are four bytes, false five.
        return 5 if value is False else 4
    if kind is int:
        # JSON spells an integer as Python's repr does.
        return len(repr(value))
    if not isinstance(value, dict | list | tuple):
        return _encoded_size(value)
    if depth >= _SPLIT_DEPTH or len(value) > _SPLIT_WIDTH:
        return _encoded_size(value)
    deeper = depth + 1
    if isinstance(value, dict):
        if not all(isinstance(key, str) for key in value):
            return _encoded_size(value)  # JSON turns other keys into text its own way
        entries = sum(size_of(key) + 1 + size_of(item, deeper) for key, item in value.items())
    else:
        entries = sum(size_of(item, deeper) for item in value)
    return 2 + max(len(value) - 1, 0) + entries


def current_return(records: list[dict[str, Any]]) -> tuple[bool, Tagged]:
    """``$return``: the newest record that has a result. A record without a result (a failed iteration)
    is skipped, so the previous value stays (llmz.memory.failed-iteration-keeps-return); a newest result
    that could not be retained empties it rather than exposing an older one
    (llmz.memory.unretainable-result-clears-return). Returns (present, value)."""
    for record in reversed(records):
        if record["hasResult"]:
            return (True, record["result"]) if record.get("retained", True) else (False, None)
    return False, None


def fits(size: int, limit: int) -> bool:
    """Whether encoded memory of ``size`` bytes is within ``maxBytes`` (llmz.errors.memory-capacity)."""
    return size <= limit


ReturnRule = Callable[[list[dict[str, Any]]], tuple[bool, Tagged]]
Limit = Callable[[int, int], bool]


def _visible_result(record: dict[str, Any]) -> Tagged:
    """A record's result as generated code sees it: undefined when there is none or it was not kept."""
    if record["hasResult"] and record.get("retained", True):
        return record["result"]
    return {"$": "undefined"}


@dataclass
class Capture:
    """What storing one program's variables produced."""

    stored: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    unsupported: dict[str, str] = field(default_factory=dict)
    unavailable: list[str] = field(default_factory=list)


@dataclass
class Memory:
    variables: dict[str, Tagged] = field(default_factory=dict)
    records: list[dict[str, Any]] = field(default_factory=list)
    max_bytes: int = DEFAULT_MAX_BYTES
    objects: dict[str, dict[str, Tagged]] = field(default_factory=dict)
    """Object memory: accepted assignments to registered object properties."""

    def size(self) -> int:
        return (
            sum(size_of(v) for v in self.variables.values())
            + sum(size_of(r) for r in self.records)
            + size_of(self.objects)
        )

    def guest_state(self, returned: ReturnRule = current_return) -> tuple[str, list[str]]:
        """What the kernel installs: the JSON text of the variables, ``$iterations`` newest first and
        ``$return`` (as ``returned`` picks it), and the long texts that JSON refers to. A variable holding
        ASCII text of ``RAW_TEXT`` characters or more travels beside the JSON, as ``{"$": "text", "i":
        <index>}`` in it: quoting 16 MiB into JSON and parsing it back in the guest was most of the cost of
        a program run with such a memory."""
        present, value = returned(self.records)
        records = [
            {"id": r["id"], "hasResult": r["hasResult"], "result": _visible_result(r)}
            for r in reversed(self.records)
        ]
        variables: dict[str, Tagged] = {}
        texts: list[str] = []
        for name, kept in self.variables.items():
            if _travels_raw(kept):
                variables[name] = {"$": "text", "i": len(texts)}
                texts.append(kept)
            else:
                variables[name] = kept
        state = {"variables": variables, "iterations": records, "hasReturn": present, "returned": value}
        return json.dumps(state), texts

    def store(self, captured: dict[str, dict[str, Any]], fits: Limit = fits) -> Capture:
        """Keep each captured value that is supported and ``fits``: named variables persist
        (llmz.memory.variables-persist). Earlier writes stay when a later one does not fit
        (llmz.memory.partial-retention-reported)."""
        outcome = Capture()
        for name, answer in captured.items():
            if answer.get("tooLarge"):  # longer than the limit before it is even measured
                outcome.unavailable.append(name)
                continue
            if "error" in answer:
                outcome.unsupported[name] = answer["error"]
                continue
            previous = self.variables.get(name)
            self.variables[name] = answer["ok"]
            if not fits(self.size(), self.max_bytes):
                if previous is None:
                    del self.variables[name]
                else:
                    self.variables[name] = previous
                outcome.unavailable.append(name)
            else:
                outcome.stored.append(name)
                if previous != answer["ok"]:
                    outcome.changed.append(name)
        return outcome

    def add_record(
        self, iteration_id: str, has_result: bool, result: Tagged, retained: bool, fits: Limit = fits
    ) -> bool:
        """Add an iteration record; False (and the record kept without its value) when it does not fit."""
        record = {"id": iteration_id, "hasResult": has_result, "result": result if retained else None}
        record["retained"] = retained
        self.records.append(record)
        if fits(self.size(), self.max_bytes):
            return True
        record["result"], record["retained"] = None, False
        return False

    def drop_iterations(self, iteration_ids: list[str]) -> None:
        """Compaction discarded these iterations: their results go too
        (llmz.memory.compaction-no-stale-return)."""
        gone = set(iteration_ids)
        self.records = [r for r in self.records if r["id"] not in gone]

    def to_json(self) -> dict[str, Any]:
        return {
            "variables": snapshot(self.variables),
            "iterations": snapshot(self.records),
            "maxBytes": self.max_bytes,
            "objects": snapshot(self.objects),
        }

    @classmethod
    def from_json(cls, state: Any) -> Memory:
        if not isinstance(state, dict):
            return cls()
        return cls(
            variables=snapshot(state.get("variables", {})),
            records=snapshot(state.get("iterations", [])),
            max_bytes=int(state.get("maxBytes", DEFAULT_MAX_BYTES)),
            objects=snapshot(state.get("objects", {})),
        )
