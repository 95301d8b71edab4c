"""Judging one record against one scenario's expectations."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from conformance.judging.matchers import check, excerpt
from conformance.judging.path import PathError, select
from conformance.judging.relations import check_relation
from conformance.scenario.common import Expectation


@dataclass(frozen=True)
class Mismatch:
    rule: str
    index: int
    message: str
    why: str | None = None
    """The scenario's own words on what this failure means (``expect[].why``)."""
    matcher: str = ""
    path: str = ""
    expected: Any = None
    """The matcher's argument as the scenario wrote it (for ``count``, the number; for ``absent``, true)."""
    found: str = ""
    """An excerpt of what the path selected in the record (JSON text), for reports that show both sides."""

    def __str__(self) -> str:
        text = f"[{self.rule}] expect[{self.index}] {self.message}"
        return text + (f"\n    why: {self.why}" if self.why else "")


def judge(
    expectations: list[Expectation],
    record: dict[str, Any],
    twins: Mapping[str, dict[str, Any]] | None = None,
) -> list[Mismatch]:
    """Every failed expectation, in order; an empty list means the record satisfies the scenario.

    ``twins`` holds the records of the scenario's twins by name, for ``relation`` expectations that
    compare with another play (``conformance.judging.relations``)."""
    mismatches: list[Mismatch] = []
    for index, expectation in enumerate(expectations):
        matcher = expectation.matcher
        try:
            if matcher == "relation":
                problem = check_relation(record, expectation, twins)
            else:
                problem = check(record, expectation)
        except PathError as exc:
            problem = str(exc)
        if problem is not None:
            argument = getattr(expectation, matcher)
            if matcher == "relation":
                argument = argument.model_dump(exclude_none=True)
            mismatches.append(
                Mismatch(
                    expectation.rule, index, problem, expectation.why, matcher, expectation.path,
                    argument, _found(record, expectation.path),
                )
            )
    return mismatches


def _found(record: dict[str, Any], path: str) -> str:
    """What ``path`` selects in the record, excerpted: one value as itself, several (or none) as a list."""
    try:
        selection = select(record, path)
    except PathError as exc:
        return f"(path error: {exc})"
    single = not selection.plural and len(selection.values) == 1
    return excerpt(selection.values[0] if single else selection.values)
