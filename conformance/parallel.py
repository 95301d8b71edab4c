"""Cases in parallel (``run --jobs N``, issue 26): N worker processes, each with its own adapter.

Why. A runtime author waits for wall time against their own implementation, which is usually far slower
than our reference (llmz 1.0.1 takes about 60 ms a case), and one adapter process leaves every other core
idle. Bowtie and test262's runners spread cases over several processes; so does this.

Theory of operation. The cases go to a ``conformance.workers.Pool`` of ``jobs`` worker processes (the
pool holds what is shared with ``fuzz --jobs``: crashes and hangs kept local, dead workers replaced, stops
and a killed harness reaching every implementation process). Each worker builds its own adapter from the
``--impl`` spec (``conformance.adapters.registry.create``), greets it with its own ``hello`` and then
plays the cases it is sent, one index at a time, with ``conformance.runner.run_case`` and the
capabilities its own implementation declared (twins included: a case and its twins always go to one
worker, on one adapter). So a ``stdio:`` implementation or a preset gets N processes, each with its own
restarts and its own circuit breaker, and the reference and ``python:`` adapters get N interpreters
(threads would share one core under the GIL). Forking hands each worker the loaded suite without
pickling it; only a case's index goes out and its verdict (without the record) comes back.

Where the implementation runs in its own process (``stdio:``, presets), the harness starts none of its
own: ``hello`` asks a worker for what its implementation said (``fuzz --jobs`` does the same), so the
run's first hello is one the workers needed anyway, and every worker starts at once. An adapter that runs
in the harness's own process (the reference, ``python:``) is greeted here instead, and ``warm_up`` plays
the first case of each system before the fork: every worker then inherits what those cases loaded
(modules, the tokenizer's vocabulary, caches) instead of loading it again. Without that, each worker's
loading cost more than a second core saves on the reference's few-millisecond cases.

The cases are handed out longest first, by what each took the last time (``conformance.timings``), so a
slow case never starts last while the other workers idle.

Verdicts are yielded in scenario order, whatever order they arrive in, so progress, reports and the
console read exactly as with ``--jobs 1``. A case whose worker process died is an ``error`` saying how it
died; after ``workers.MAX_WORKER_DEATHS`` deaths in a row the remaining cases are ``error`` s saying they
were not played.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from conformance.adapters.base import Adapter, AdapterError
from conformance.protocol import ImplementationInfo
from conformance.runner import CaseResult, run_case, verdict_only
from conformance.scenario.load import LoadedScenario, LoadError
from conformance.timings import longest_first
from conformance.workers import HELLO, MAX_WORKER_DEATHS, Pool

__all__ = ["HELLO", "MAX_WORKER_DEATHS", "Plan", "hello", "play", "warm_up"]

Item = LoadedScenario | LoadError



@dataclass(frozen=True)
class Plan:
    """What every worker needs: how to build the adapter, and the run's settings (a ``workers.Job``)."""

    spec: str
    items: Sequence[Item]
    timeout: float
    hello_timeout: float
    harness: int = field(default_factory=os.getpid)
    """The harness's process id (a worker whose parent is another process outlived it)."""

    def open(self) -> _CasePlayer:
        from conformance.adapters.registry import create

        adapter = create(self.spec, hello_timeout=self.hello_timeout)
        try:
            info = adapter.hello()
        except BaseException:
            adapter.close()
            raise
        return _CasePlayer(self, adapter, info)

    def lost(self, key: object, why: str) -> CaseResult | str:
        if key == HELLO:
            return why
        assert isinstance(key, int)
        return _error(self.items[key], why)


@dataclass(frozen=True)
class _CasePlayer:
    plan: Plan
    adapter: Adapter
    info: ImplementationInfo

    def play(self, task: object) -> CaseResult | ImplementationInfo:
        if task == HELLO:
            return self.info
        assert isinstance(task, int)
        return verdict_only(run_case(self.adapter, self.info, self.plan.items[task], self.plan.timeout))

    def close(self) -> None:
        self.adapter.close()


def hello(pool: Pool) -> ImplementationInfo:
    """Start every worker and return what the first to answer said in its implementation's hello.

    A worker whose implementation cannot start fails the run as a failed start (``AdapterError``), as the
    harness's own hello would."""
    pool.warm()
    pool.submit(HELLO, HELLO)
    answers: dict[object, object] = {}
    while HELLO not in answers:
        answers.update(pool.collect())
    answer = answers[HELLO]
    if not isinstance(answer, ImplementationInfo):
        raise AdapterError(f"no hello from a worker's implementation: {answer}")
    return answer


def play(
    pool: Pool,
    items: Sequence[Item],
    indices: Sequence[int],
    done: dict[int, CaseResult],
    seconds: Mapping[str, float],
) -> Iterator[CaseResult]:
    """The verdicts of ``items[i]`` for each ``i`` of ``indices``, in that order, played by the pool.

    ``done``: verdicts already known (``warm_up``), used as they are. ``seconds``: what each case took
    last time (``conformance.timings``); the cases are handed out longest first."""
    todo = [index for index in indices if index not in done]
    for position in longest_first([items[index].id for index in todo], seconds):
        pool.submit(todo[position], todo[position])
    for index in indices:
        while index not in done:
            done.update(pool.collect())  # type: ignore[arg-type]  # the keys are the indices
        yield done.pop(index)


def warm_up(
    adapter: Adapter, info: ImplementationInfo, items: Sequence[Item], indices: Sequence[int], timeout: float
) -> dict[int, CaseResult]:
    """The first case of each system, played on the harness's own (in-process) adapter before the fork."""
    seen: set[str] = set()
    done: dict[int, CaseResult] = {}
    for index in indices:
        system = items[index].id.split("/", 1)[0]
        if system not in seen:
            seen.add(system)
            done[index] = verdict_only(run_case(adapter, info, items[index], timeout))
    return done


def _error(item: Item, message: str) -> CaseResult:
    rules = list(item.scenario.rules) if isinstance(item, LoadedScenario) else []
    return CaseResult(item.id, rules, "error", message)
