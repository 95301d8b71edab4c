"""The reference runtime, in-process: the fastest way to run the suite, and the one golden files use.

The harness judges exactly what the stdio server would have sent: a record that JSON would change
(tuples become lists, other keys become text) goes through a JSON round trip, and one JSON cannot hold
is an error rather than a silent pass. A record of plain JSON data already is what the wire would give,
so it is handed on as it is (``_wire_exact``): the round trip was the largest harness cost of a case
after judging, spent on copying records the runtime had just built for this case alone.
"""

from __future__ import annotations

import json
import traceback
from typing import TYPE_CHECKING, Any

from conformance.adapters.base import Outcome
from conformance.protocol import ImplementationInfo

if TYPE_CHECKING:
    from collections.abc import Callable

    from conformance.shared_reference import SharedReference
    from variants import Variant


_PLAIN = frozenset({str, int, float, bool, type(None)})
"""Exact types JSON gives back as they are (a subclass comes back as its base type)."""
_WIRE_DEPTH = 200
"""Past this nesting the round trip decides (a structure that contains itself ends up there too)."""


def _wire_exact(value: Any) -> bool:
    """Whether ``json.loads(json.dumps(value, ensure_ascii=False))`` equals ``value`` with the same types
    throughout: dicts with text keys, lists, text, integers, floats, booleans and None, nothing else, at
    most ``_WIRE_DEPTH`` levels deep (shallow enough that the round trip could not fail on depth either).
    Such a value is handed on without the round trip. It is not copied, and need not be: the players
    build a record for the one case (its events copied as they were emitted), nothing of the runtime
    holds it once ``play`` returns, and judging never changes a record (``normalise`` copies on write)."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    pop, push = stack.pop, stack.append
    while stack:
        item, depth = pop()
        kind = type(item)
        if kind is dict:
            if depth >= _WIRE_DEPTH:
                return False
            for key, child in item.items():
                if type(key) is not str:
                    return False
                if type(child) not in _PLAIN:
                    push((child, depth + 1))
        elif kind is list:
            if depth >= _WIRE_DEPTH:
                return False
            for child in item:
                if type(child) not in _PLAIN:
                    push((child, depth + 1))
        elif kind not in _PLAIN:
            return False
    return True


class ReferenceAdapter:
    """``reference``, ``reference[<mutant>]`` (one rule broken) or ``reference[<permitted variant>]``."""

    def __init__(
        self,
        variant: str | None = None,
        *,
        permitted: Variant | None = None,
        shared: SharedReference | None = None,
    ) -> None:
        from conformance.players import resolve_variant

        # Resolved at construction, so an unknown name fails once, listing the known ones.
        self.variant: Variant | None = resolve_variant(variant) if variant is not None else permitted
        self.shared = shared
        """With a permitted variant: take its record from the shared plain run where that provably gives
        the same record (conformance.shared_reference)."""

    def hello(self) -> ImplementationInfo:
        from conformance.players import hello_info

        return ImplementationInfo.model_validate(hello_info(self.variant.name if self.variant else None))

    def run(self, payload: dict[str, Any], timeout: float) -> Outcome:
        """``timeout`` is not enforced in-process; the stdio form of the reference enforces it."""
        from conformance.players import CannotExpress, play

        # A fresh copy, as the wire would give: a runtime that mutates what it was handed (a mutant that
        # lets onInspect write through, say) must not change the loaded scenario for later cases.
        payload = json.loads(json.dumps(payload))
        produce: Callable[[], dict[str, Any]] | None = None
        if self.shared is not None and self.variant is not None and hasattr(self.variant, "transform"):
            produce = self.shared.record_for(self.variant, payload)  # type: ignore[arg-type]
        try:
            record = produce() if produce is not None else play(payload, self.variant)
        except CannotExpress as exc:
            return Outcome(skip=str(exc) or "the reference cannot express this scenario")
        except Exception as exc:
            tail = traceback.format_exc(limit=-3).strip().splitlines()[-6:]
            return Outcome(error=f"the reference raised {type(exc).__name__}: {exc}\n" + "\n".join(tail))
        if _wire_exact(record):
            return Outcome(record=record)
        try:
            return Outcome(record=json.loads(json.dumps(record, ensure_ascii=False)))
        except (TypeError, ValueError) as exc:
            return Outcome(error=f"the record is not JSON data: {exc}")

    def close(self) -> None:
        return None
