"""Both halves of "is the suite right both ways": mutants must be caught, permitted variants accepted.

A *mutant* (``variants``) breaks one rule; a *permitted variant* (``variants``) makes a choice the
documents leave open. The first proves the suite can fail; the second that it fails only when it should.

A mutant is *killed* when at least one scenario pinning one of the rules it breaks fails with a mismatch
naming such a rule; *errored* when those scenarios only error (caught, but not for the stated reason);
*survived* when they all still pass; *unpinned* when no scenario names its rules at all. Per-system mutant
tests assert the same thing case by case; this gives the one-line overview, ``python -m conformance
check-mutants``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from conformance.adapters.reference import ReferenceAdapter
from conformance.runner import run_case
from conformance.scenario.load import LoadedScenario, LoadError
from variants import Mutant

if TYPE_CHECKING:
    from conformance.shared_reference import SharedReference
    from variants import Permitted


@dataclass(frozen=True)
class MutantResult:
    name: str
    status: str
    """killed | errored | survived | unpinned"""
    cases: tuple[str, ...]
    """The scenarios that pin the mutant's rules."""


def judge_mutant(mutant: Mutant, items: Iterable[LoadedScenario | LoadError]) -> MutantResult:
    broken = set(mutant.rules)
    pinned = [i for i in items if isinstance(i, LoadedScenario) and broken & set(i.scenario.rules)]
    if not pinned:
        return MutantResult(mutant.name, "unpinned", ())
    adapter = ReferenceAdapter(mutant.name)
    info = adapter.hello()
    results = [run_case(adapter, info, item) for item in pinned]
    ids = tuple(item.id for item in pinned)
    if any(r.verdict == "fail" and broken & set(r.failing_rules) for r in results):
        return MutantResult(mutant.name, "killed", ids)
    if any(r.verdict in ("fail", "error") for r in results):
        return MutantResult(mutant.name, "errored", ids)
    return MutantResult(mutant.name, "survived", ids)


def report_lines(results: list[MutantResult]) -> list[str]:
    lines = [
        f"{r.status:9} {r.name}" + (f" ({', '.join(r.cases)})" if r.status != "killed" else "")
        for r in results
    ]
    killed = sum(1 for r in results if r.status == "killed")
    lines.append(f"mutants: {killed}/{len(results)} caught")
    return lines


@dataclass(frozen=True)
class PermittedResult:
    name: str
    exercises: tuple[str, ...]
    played: int
    """How many scenarios of the variant's system were played against it."""
    rejections: tuple[str, ...]
    """One line per scenario that did not pass: its id, verdict and first message line."""

    @property
    def accepted(self) -> bool:
        return self.played > 0 and not self.rejections


def judge_permitted(
    variant: Permitted, items: Iterable[LoadedScenario | LoadError], shared: SharedReference | None = None
) -> PermittedResult:
    """Play every scenario of the variant's system against it; any verdict but pass is a rejection.

    With ``shared``, a case whose record the variant provably shares with the plain reference is taken from
    one shared run instead of being played again (conformance.shared_reference)."""
    items = list(items)
    cases = [i for i in items if isinstance(i, LoadedScenario) and i.scenario.system == variant.system]
    # A file of the variant's system that does not even load was not accepted by anything: count it, or a
    # broken scenario would let every variant look accepted.
    broken = [i for i in items if isinstance(i, LoadError) and i.id.split("/", 1)[0] == variant.system]
    adapter = ReferenceAdapter(permitted=variant, shared=shared)
    info = adapter.hello()
    rejections = [f"{i.id}: not loaded: {(i.message.strip().splitlines() or [''])[0]}" for i in broken]
    for item in cases:
        result = run_case(adapter, info, item)
        if result.verdict != "pass":
            first = (result.message.strip().splitlines() or [""])[0]
            rejections.append(f"{item.id}: {result.verdict}: {first}")
    return PermittedResult(variant.name, variant.exercises, len(cases) + len(broken), tuple(rejections))


def permitted_lines(results: list[PermittedResult]) -> list[str]:
    lines: list[str] = []
    for r in results:
        status = "accepted" if r.accepted else ("unplayed" if r.played == 0 else "rejected")
        lines.append(f"{status:9} {r.name} ({', '.join(r.exercises)})")
        lines.extend(f"            {rejection}" for rejection in r.rejections)
    accepted = sum(1 for r in results if r.accepted)
    lines.append(f"permitted variants: {accepted}/{len(results)} accepted")
    return lines
