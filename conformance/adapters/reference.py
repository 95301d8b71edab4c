"""The reference runtime, in-process: the fastest way to run the suite, and the one golden files use.

The record is passed through a JSON round trip so the harness judges exactly what the stdio server
would have sent (tuples become lists, non-JSON values are an error rather than a silent pass).
"""

from __future__ import annotations

import json
import traceback
from typing import Any

from conformance.adapters.base import Outcome
from conformance.protocol import ImplementationInfo


class ReferenceAdapter:
    def __init__(self, mutant: str | None = None) -> None:
        from reference.mutants import get_mutant

        if mutant is not None:
            get_mutant(mutant)  # fail at construction, naming the known mutants, not on every case
        self.mutant = mutant

    def hello(self) -> ImplementationInfo:
        from reference.harness import hello_info

        return ImplementationInfo.model_validate(hello_info(self.mutant))

    def run(self, payload: dict[str, Any], timeout: float) -> Outcome:
        """``timeout`` is not enforced in-process; the stdio form of the reference enforces it."""
        from reference.harness import CannotExpress, play

        try:
            record = play(payload, self.mutant)
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
