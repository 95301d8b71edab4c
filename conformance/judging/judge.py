"""Judging one record against one scenario's expectations."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from conformance.judging.matchers import check
from conformance.judging.path import PathError
from conformance.scenario.common import Expectation


@dataclass(frozen=True)
class Mismatch:
    rule: str
    index: int
    message: str
    why: str | None = None
    """The scenario's own words on what this failure means (``expect[].why``)."""

    def __str__(self) -> str:
        text = f"[{self.rule}] expect[{self.index}] {self.message}"
        return text + (f"\n    why: {self.why}" if self.why else "")


def judge(expectations: list[Expectation], record: dict[str, Any]) -> list[Mismatch]:
    """Every failed expectation, in order; an empty list means the record satisfies the scenario."""
    mismatches: list[Mismatch] = []
    for index, expectation in enumerate(expectations):
        try:
            problem = check(record, expectation)
        except PathError as exc:
            problem = str(exc)
        if problem is not None:
            mismatches.append(Mismatch(expectation.rule, index, problem, expectation.why))
    return mismatches
