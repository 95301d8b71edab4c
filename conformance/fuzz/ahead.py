"""``fuzz --jobs N``: the search's comparisons played ahead on N worker processes, cached by content.

Why. hypothesis's search is sequential: each case is generated after the previous one was judged. But
until a round finds its disagreement, every judgement is "no", so the cases the round will ask about can
be listed beforehand from the seed alone (``conformance.fuzz.engine.generated``). Against a slow
implementation (llmz 1.0.1 takes about 60 ms a comparison, the generation of a case under 2 ms), playing
that list on several cores while the search reads the answers is where the wall time goes down.

Theory of operation. :class:`Lookahead` is the engine's ``Ahead``. ``start`` starts the workers and asks
one for its implementation's hello, ``hello`` waits for that answer (the harness starts no implementation
process of its own until a finding is to be reproduced; each worker compares with the capabilities its own
implementation declared, as ``--jobs 1`` does with the one it greets). ``expect`` submits a round's listed
cases, in order, to a ``conformance.workers.Pool`` whose every worker starts and greets its own reference
and its own implementation (:class:`CompareJob`); a worker answers a case with what
``engine.compare`` makes of it there. ``compare`` (the search's condition asking) takes the comparison
from the cache, keyed by the case's JSON text, waiting for it if it is still being played; a case that
was not listed (hypothesis shrinking a disagreement) is submitted then and waited for, so it is played by
a worker too, one at a time. ``stop`` (a disagreement found, shrinking begins) drops the listed cases no
worker holds yet. Whatever the list held, the search sees for each case exactly the comparison
``compare`` would give it; the list only decides what is ready in time, never what is found. So the
findings are those of ``--jobs 1`` for the same seed (tests/test_fuzz_jobs.py), given an implementation
that answers a case the same way each time it plays it (what ``run --jobs`` assumes too): a case hypothesis
generates twice is compared once here.

Failures. A worker's crashing or hanging implementation is restarted by its own adapter and the case
carries the problem, as with ``--jobs 1``. A case whose worker process died, or that was not played
because workers kept dying, is compared here: the reference's facts from this process, the implementation
giving no record for the reason the pool gives. A generator bug found by a worker is raised when the
search asks for that case, as ``--jobs 1`` would raise it.
"""

from __future__ import annotations

import json
import os
import traceback
from dataclasses import dataclass, field

from conformance.adapters.base import Adapter, AdapterError
from conformance.adapters.registry import create
from conformance.fuzz.engine import Case, Comparison, Generator, GeneratorBug, compare, reference_facts
from conformance.protocol import ImplementationInfo
from conformance.workers import HELLO, Pool


@dataclass(frozen=True)
class _Raised:
    """A worker's comparison raised: the text to raise again in the harness."""

    text: str
    bug: bool


@dataclass(frozen=True)
class _Lost:
    """The worker process playing the case died, or the case was not played."""

    why: str


Answer = Comparison | _Raised | _Lost


@dataclass(frozen=True)
class CompareJob:
    """What each worker needs to compare a case: how to build both sides, and the comparison's settings."""

    spec: str
    generator: Generator
    timeout: float
    hello_timeout: float
    harness: int = field(default_factory=os.getpid)

    def open(self) -> _Comparer:
        reference = create("reference")
        implementation = create(self.spec, hello_timeout=self.hello_timeout)
        try:
            reference.hello()
            info = implementation.hello()
        except BaseException:
            implementation.close()
            reference.close()
            raise
        return _Comparer(self, reference, implementation, info)

    def lost(self, key: object, why: str) -> _Lost:
        return _Lost(why)


@dataclass(frozen=True)
class _Comparer:
    job: CompareJob
    reference: Adapter
    implementation: Adapter
    info: ImplementationInfo

    def play(self, task: object) -> Answer | ImplementationInfo:
        if task == HELLO:
            return self.info
        assert isinstance(task, dict)
        job, capabilities = self.job, frozenset(self.info.capabilities)
        try:
            return compare(
                job.generator, self.reference, self.implementation, task, job.timeout, capabilities
            )
        except GeneratorBug as exc:  # raised again where the search asks for this case
            return _Raised(str(exc), bug=True)
        except Exception:
            return _Raised(traceback.format_exc(), bug=False)

    def close(self) -> None:
        self.implementation.close()
        self.reference.close()




def key_of(case: Case) -> str:
    """The cache key: the case as the adapters receive it (key order kept: it is part of the payload)."""
    return json.dumps(case, ensure_ascii=False)


class Lookahead:
    """The engine's ``Ahead`` over a worker pool; see the module's theory of operation."""

    def __init__(self, job: CompareJob, jobs: int, reference: Adapter) -> None:
        self.job = job
        self.reference = reference
        """The harness's own reference, for the facts of a case whose worker died."""
        self.pool = Pool(job, jobs)
        self.pool.start_failure = "the implementation could not start in a worker process"
        self.listed: set[str] = set()
        self.answers: dict[str, Answer | ImplementationInfo] = {}
        self.asked: set[str] = set()
        """Keys submitted and not yet answered."""
        self.unlisted = 0
        """Cases the search asked for that no ``expect`` listed (shrinking), so played on demand."""

    def start(self) -> None:
        """Start every worker and ask one for its implementation's hello; ``hello`` waits for the answer
        (what the harness does in between, such as listing the first round, runs beside their start-up)."""
        if HELLO not in self.asked and HELLO not in self.answers:
            self.pool.warm()
            self.asked.add(HELLO)
            self.pool.submit(HELLO, HELLO)

    def hello(self) -> ImplementationInfo:
        """What a worker's implementation said in its hello."""
        self.start()
        while HELLO not in self.answers:
            self._collect()
        answer = self.answers[HELLO]
        if not isinstance(answer, ImplementationInfo):
            why = answer.why if isinstance(answer, _Lost) else str(answer)
            raise AdapterError(f"no hello from a worker's implementation: {why}")
        return answer

    def expect(self, cases: list[Case]) -> None:
        for case in cases:
            self._submit(case)
        self.listed = {key_of(case) for case in cases}

    def stop(self) -> None:
        for key in self.pool.drop_waiting():
            self.asked.discard(str(key))

    def compare(self, case: Case) -> Comparison:
        key = self._submit(case)
        self.unlisted += key not in self.listed
        while key not in self.answers:
            self._collect()
        answer = self.answers[key]
        assert not isinstance(answer, ImplementationInfo)
        return self._comparison(case, answer)

    def _collect(self) -> None:
        for answered, answer in self.pool.collect().items():
            self.asked.discard(str(answered))
            self.answers[str(answered)] = answer

    def _submit(self, case: Case) -> str:
        key = key_of(case)
        if key not in self.answers and key not in self.asked:
            self.asked.add(key)
            self.pool.submit(key, case)
        return key

    def _comparison(self, case: Case, answer: Answer) -> Comparison:
        if isinstance(answer, Comparison):
            return answer
        if isinstance(answer, _Raised):
            if answer.bug:
                raise GeneratorBug(answer.text)
            raise RuntimeError(f"comparing a case in a worker process raised:\n{answer.text}")
        facts = reference_facts(self.job.generator, self.reference, case, self.job.timeout)
        return Comparison(case, facts, implementation_problem=answer.why)

    def close(self) -> None:
        self.pool.close()

    def __enter__(self) -> Lookahead:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
