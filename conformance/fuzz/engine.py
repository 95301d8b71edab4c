"""The differential search: generate a case, play it on both sides, compare the documented facts, shrink.

Theory of operation. A :class:`Generator` (one per system) gives a hypothesis strategy of *cases* (the
played half of a scenario: ``system``, ``setup``, ``script``, ``steps``) and a projection from a case and
the reference's record to :class:`~conformance.fuzz.facts.Fact` s. :func:`compare` plays one case on the
reference and on the implementation through their ordinary adapters, checks both records exactly as the
runner does (envelope, record schema, normalisation), and judges the implementation's record against the
reference's facts with the runner's ``judge``. A mismatch, or an implementation that errors where the
reference answered, is a disagreement.

:func:`search` hands the comparison to ``hypothesis.find``: hypothesis generates up to ``examples`` cases
from the seed and, on the first disagreement, shrinks the case to a minimal one that still disagrees. To
report more than one kind of disagreement, the search then runs again, asking for a disagreement on a rule
not already found (at most ``max_findings`` rounds). Everything is deterministic for a given seed.

With ``fuzz --jobs N`` the comparisons are played ahead on N worker processes (:class:`Ahead`, built in
``conformance.fuzz.ahead``): before each round :func:`generated` lists the cases the round's generation
will ask about, and the search's condition takes each comparison from there instead of playing it. The
condition, and so hypothesis's whole search, sees exactly the answers it would see playing the cases one
by one, so the findings are the same under any ``--jobs``.
A disagreement a baseline already explains (:mod:`conformance.fuzz.known`) is counted under its rules and
is not a finding: the search looks past it.

A case the reference itself cannot play, or facts the reference's own record does not satisfy, is a bug
in the generator (or the reference): it raises :class:`GeneratorBug` rather than being counted.
"""

from __future__ import annotations

import contextlib
import functools
import json
import random
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from hypothesis import HealthCheck, Phase, find, settings
from hypothesis import strategies as st
from hypothesis.errors import HypothesisWarning, NoSuchExample
from pydantic import ValidationError

from conformance import stopping
from conformance.adapters.base import Adapter
from conformance.fuzz.facts import Fact
from conformance.fuzz.known import Known
from conformance.judging.judge import Mismatch, judge
from conformance.judging.normalise import normalise
from conformance.records.check import problems as vocabulary_problems
from conformance.records.extras import set_aside
from conformance.runner import record_problems
from conformance.scenario.model import case_payload, parse_case
from conformance.stopping import Stopped

Case = dict[str, Any]
Record = dict[str, Any]


class Generator(Protocol):
    """What the engine needs from a system's generator."""

    system: str

    def cases(self) -> st.SearchStrategy[Case]:
        """Valid cases around the documented boundaries."""
        ...

    def facts(self, case: Case, record: Record) -> list[Fact]:
        """What the documents fix about ``case``, read from the reference's ``record``."""
        ...

    def area(self, case: Case) -> str:
        """The scenario folder the case belongs in (``routing``, ``compaction``, ``budget``, ...)."""
        ...

    def __hash__(self) -> int:
        """Generators are hashable (by identity): a round's listing is kept per generator."""
        ...


class GeneratorBug(AssertionError):
    """The reference could not play a generated case, or contradicts the facts read from its own record."""


@dataclass(frozen=True)
class Played:
    """One side's answer to one case: a normalised record, or why there is none."""

    record: Record | None = None
    problem: str | None = None
    skipped: bool = False


@dataclass(frozen=True)
class Comparison:
    case: Case
    facts: tuple[Fact, ...]
    mismatches: tuple[Mismatch, ...] = ()
    implementation_problem: str | None = None
    skipped: bool = False

    @property
    def disagrees(self) -> bool:
        """A failed fact, or no record from the implementation for a case the documents say something
        about (a case with no fact cannot disagree: there is nothing the documents fix to compare)."""
        return bool(self.mismatches) or (self.implementation_problem is not None and bool(self.facts))

    @property
    def rules(self) -> frozenset[str]:
        """What disagreed: the rules of the failed facts, or ``<error>`` when the implementation failed."""
        if self.implementation_problem is not None:
            return frozenset({"<error>"})
        return frozenset(m.rule for m in self.mismatches)


CASE_ID = "fuzz/generated"


def play(adapter: Adapter, case: Case, timeout: float) -> Played:
    """Play ``case`` through ``adapter`` and check its record as the runner would (never raises)."""
    system = str(case["system"])
    try:
        outcome = adapter.run(case_payload(f"{system}/{CASE_ID}", case), timeout)
    except Exception as exc:  # an adapter bug costs this case only
        return Played(problem=f"the adapter raised {type(exc).__name__}: {exc}")
    if outcome.skip is not None:
        return Played(problem=f"skipped: {outcome.skip}", skipped=True)
    if outcome.error is not None or outcome.record is None:
        return Played(problem=outcome.error or "the adapter returned no record")
    problems = record_problems(outcome.record) or vocabulary_problems(system, outcome.record)
    if problems:
        return Played(problem="invalid record: " + "; ".join(problems))
    judged, _ = set_aside(system, outcome.record)  # the implementation's own events and x- fields
    return Played(record=normalise(judged, case))


def check_case(case: Case) -> None:
    """A generated case must be valid scenario data; anything else is a generator bug."""
    try:
        parse_case(case)
    except ValidationError as exc:
        raise GeneratorBug(f"the generator produced an invalid case: {exc}\n{json.dumps(case)}") from exc


def reference_facts(generator: Generator, reference: Adapter, case: Case, timeout: float) -> tuple[Fact, ...]:
    """What the documents fix about ``case``, read from the reference's record (``GeneratorBug`` when the
    case is invalid, the reference cannot play it, or the facts do not hold on its own record)."""
    check_case(case)
    expected = play(reference, case, timeout)
    if expected.record is None:
        raise GeneratorBug(
            f"the reference could not play a generated case: {expected.problem}\n{json.dumps(case)}"
        )
    facts = tuple(generator.facts(case, expected.record))
    own = judge([fact.expectation() for fact in facts], expected.record)
    if own:
        raise GeneratorBug(
            "facts read from the reference's record do not hold on it:\n"
            + "\n".join(map(str, own))
            + f"\n{json.dumps(case)}"
        )
    return facts


def compare(
    generator: Generator,
    reference: Adapter,
    implementation: Adapter,
    case: Case,
    timeout: float,
    capabilities: frozenset[str] | None = None,
) -> Comparison:
    """Play ``case`` on both sides and judge the implementation on the reference's facts.

    ``capabilities``: what the implementation declared; a case requiring another flag is a skip, as the
    runner would make it (None: play everything).
    """
    facts = reference_facts(generator, reference, case, timeout)
    missing = [
        flag for flag in case.get("requires", []) if capabilities is not None and flag not in capabilities
    ]
    if missing:
        return Comparison(case, facts, implementation_problem=f"lacks {', '.join(missing)}", skipped=True)
    actual = play(implementation, case, timeout)
    if actual.record is None:
        return Comparison(case, facts, implementation_problem=actual.problem, skipped=actual.skipped)
    return Comparison(case, facts, tuple(judge([fact.expectation() for fact in facts], actual.record)))


@dataclass
class Finding:
    """A minimal disagreeing case, after shrinking."""

    comparison: Comparison
    examples: int
    """Cases generated in this round before the first disagreement."""


@dataclass
class SearchResult:
    examples: int = 0
    """Cases compared in the generation phases (shrinking not counted)."""
    compared: int = 0
    """Every comparison made, shrinking included."""
    skipped: int = 0
    seconds: float = 0.0
    findings: list[Finding] = field(default_factory=list)
    known: dict[str, int] = field(default_factory=dict)
    """Generated cases whose disagreement the baseline explains, by the baseline rule that explains it."""


def _settings(examples: int) -> settings:
    return settings(
        max_examples=examples,
        database=None,
        deadline=None,
        derandomize=False,
        phases=(Phase.generate, Phase.shrink),
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
    )


def _find(
    generator: Generator, condition: Callable[[Case], bool], examples: int, seed: int, round_number: int
) -> Case:
    """hypothesis's search for one round: generate up to ``examples`` cases, shrink the first that meets
    ``condition`` (``NoSuchExample`` when none does)."""
    with warnings.catch_warnings():
        # hypothesis spells out a found case for its own report, which `find` never prints; a
        # generated scenario runs to tens of kB, and the warning about that text was noise in
        # every run that found something (the case is written out as YAML by `write` instead).
        warnings.filterwarnings("ignore", "Generating overly large repr", HypothesisWarning)
        try:
            return find(
                generator.cases(),
                condition,
                settings=_settings(examples),
                random=random.Random(f"{seed}:{round_number}"),
            )
        except BaseException as exc:
            stop = _stop_within(exc)
            if stop is None or stop is exc:
                raise
            raise stop from None


def _stop_within(exc: BaseException) -> Stopped | None:
    """The user's stop that ``exc`` was raised while handling, if any.

    A signal arriving while hypothesis draws a case raises ``Stopped`` in the middle of its bookkeeping,
    which then raises an error of its own about the draw that did not finish ("Inconsistent data
    generation"); the stop is what the run must end with (``conformance.stopping``)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, Stopped):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


@functools.lru_cache(maxsize=4)
def generated(generator: Generator, examples: int, seed: int, round_number: int) -> list[Case]:
    """The cases round ``round_number``'s generation asks about, in order, until one disagrees.

    Why this is exact: hypothesis draws each case from the seeded random and what earlier cases did, and
    during generation every case before the first disagreement did the same thing (the condition said
    no). Replaying the round with a condition that always says no therefore lists those cases exactly,
    and then the rest of the round (which the real search only reaches when nothing disagrees). Listing
    costs generation only, a small part of a comparison; a listing is kept (``fuzz`` lists the first
    round while its workers start, and the search asks again). The list is shared: do not change it."""
    cases: list[Case] = []

    def never(case: Case) -> bool:
        cases.append(case)
        return False

    with contextlib.suppress(NoSuchExample):
        _find(generator, never, examples, seed, round_number)
    return cases


class Ahead(Protocol):
    """Comparisons played ahead of the search (``fuzz --jobs N``); the search asks it instead of playing."""

    def expect(self, cases: list[Case]) -> None:
        """The cases the next round will ask about, in that order: start playing them."""
        ...

    def stop(self) -> None:
        """The round found its disagreement: what was listed and not yet played is not needed."""
        ...

    def compare(self, case: Case) -> Comparison:
        """``case``'s comparison, exactly as ``compare`` would make it (waiting for it if need be)."""
        ...


def search(
    generator: Generator,
    reference: Adapter,
    implementation: Adapter,
    *,
    examples: int,
    seed: int,
    timeout: float = 30.0,
    max_findings: int = 5,
    capabilities: frozenset[str] | None = None,
    progress: Callable[[str], None] | None = None,
    known: Known | None = None,
    ahead: Ahead | None = None,
) -> SearchResult:
    """Generate up to ``examples`` cases per round; return each distinct minimal disagreement found
    that ``known`` (a baseline's rule entries) does not explain. ``ahead``: comparisons played ahead on
    worker processes (None: each is played here, on ``implementation``, when the search asks)."""
    result = SearchResult()
    started = time.perf_counter()
    found: set[str] = set()
    in_generation = True
    round_examples = 0

    def comparison_of(case: Case) -> Comparison:
        if ahead is not None:
            return ahead.compare(case)
        return compare(generator, reference, implementation, case, timeout, capabilities)

    def disagrees_anew(case: Case) -> bool:
        nonlocal round_examples
        stopping.check()  # a stop raised inside hypothesis's own bookkeeping may have been dropped there
        result.compared += 1
        if in_generation:
            result.examples += 1
            round_examples += 1
        comparison = comparison_of(case)
        if comparison.skipped:
            result.skipped += 1
            return False
        if not comparison.disagrees:
            return False
        explained = (known or Known()).covering(
            comparison.rules,
            (fact.rule for fact in comparison.facts),
            comparison.implementation_problem,
        )
        if explained:
            if in_generation:
                for rule in explained:
                    result.known[rule] = result.known.get(rule, 0) + 1
            return False
        return not comparison.rules <= found

    for round_number in range(max_findings):
        in_generation, round_examples = True, 0
        if ahead is not None:
            ahead.expect(generated(generator, examples, seed, round_number))

        def condition(case: Case) -> bool:
            nonlocal in_generation
            found = disagrees_anew(case)
            if found:
                in_generation = False  # the first hit ends generation; what follows is shrinking
                if ahead is not None:
                    ahead.stop()
            return found

        try:
            minimal = _find(generator, condition, examples, seed, round_number)
        except NoSuchExample:
            break
        comparison = comparison_of(minimal)
        result.findings.append(Finding(comparison, round_examples))
        found.update(comparison.rules)
        if progress:
            progress(f"disagreement {len(result.findings)} on {', '.join(sorted(comparison.rules))}")
    result.seconds = time.perf_counter() - started
    return result
