"""Facts: the part of a record the documents fix, written as expectations over the reference's record.

A generated case is played twice, on the reference and on the implementation under test. The two records
are never diffed whole: most of a record (wording, JSON shape, extra fields, sizes) is the implementation's
own to choose. Instead each system's projection reads the *reference's* record and states, as ordinary
``expect`` matchers, only what the documents fix about this case (which flow started, whether compaction
happened, which attachment was refused, whether the request was dispatched and with what output
allowance). Where the documents leave a reading open, the fact accepts every reading (``between``) or is
not stated at all.

Writing the comparison as matchers has two payoffs: the implementation's record is judged by the same
``judge`` the runner uses, and a disagreement is already a scenario's ``expect``, so the file written for
review reproduces the disagreement when the ordinary runner loads it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from conformance.scenario.common import Expectation

MATCHERS = ("equals", "subset", "contains", "regex", "count", "between", "absent")


@dataclass(frozen=True)
class Fact:
    """One documented fact about a case: a rule id, a record path, a matcher and its argument."""

    rule: str
    path: str
    matcher: str
    value: Any
    why: str = ""

    def __post_init__(self) -> None:
        if self.matcher not in MATCHERS:
            raise ValueError(f"unknown matcher {self.matcher!r}; use one of {', '.join(MATCHERS)}")

    def document(self) -> dict[str, Any]:
        """The fact as a scenario's ``expect`` entry (the YAML written for review)."""
        entry: dict[str, Any] = {"rule": self.rule, "path": self.path, self.matcher: self.value}
        if self.why:
            entry["why"] = self.why
        return entry

    def expectation(self) -> Expectation:
        return Expectation.model_validate(self.document())
