"""The reference runtime, in-process: the fastest way to run the suite, and the one golden files use.

The record is passed through a JSON round trip so the harness judges exactly what the stdio server
would have sent (tuples become lists, non-JSON values are an error rather than a silent pass).
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
        try:
            return Outcome(record=json.loads(json.dumps(record, ensure_ascii=False)))
        except (TypeError, ValueError) as exc:
            return Outcome(error=f"the record is not JSON data: {exc}")

    def close(self) -> None:
        return None
