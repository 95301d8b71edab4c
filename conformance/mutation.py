"""The mutation score: does the suite catch each deliberately broken reference (``reference.mutants``)?

A mutant is *killed* when at least one scenario pinning one of the rules it breaks fails with a mismatch
naming such a rule; *errored* when those scenarios only error (caught, but not for the stated reason);
*survived* when they all still pass; *unpinned* when no scenario names its rules at all. Per-system mutant
tests assert the same thing case by case; this gives the one-line overview, ``python -m conformance
check-mutants``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from conformance.adapters.reference import ReferenceAdapter
from conformance.runner import run_case
from conformance.scenario.load import LoadedScenario, LoadError
from reference.mutants import Mutant


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
    lines.append(f"mutation score: {killed}/{len(results)} killed")
    return lines
