"""Cases in parallel (``run --jobs N``, issue 26): N worker processes, each with its own adapter.

Why. A runtime author waits for wall time against their own implementation, which is usually far slower
than our reference (llmz 1.0.1 takes about 60 ms a case), and one adapter process leaves every other core
idle. Bowtie and test262's runners spread cases over several processes; so does this.

Theory of operation. ``play`` hands the cases to a ``conformance.workers.Pool`` of ``jobs`` worker
processes (the pool holds what is shared with ``fuzz --jobs``: crashes and hangs kept local, dead workers
replaced, stops and a killed harness reaching every implementation process). Each worker builds its own
adapter from the ``--impl`` spec (``conformance.adapters.registry.create``), greets it with its own
``hello`` and then plays the cases it is sent, one index at a time, with ``conformance.runner.run_case``
(twins included: a case and its twins always go to one worker, on one adapter). So a ``stdio:``
implementation or a preset gets N processes, each with its own restarts and its own circuit breaker, and
the reference and ``python:`` adapters get N interpreters (threads would share one core under the GIL).
Forking hands each worker the loaded suite without pickling it; only a case's index goes out and its
verdict (without the record) comes back. An adapter that runs in the harness's own process (the
reference, ``python:``) first plays the first case of each system there, before the fork: every worker
then inherits what those cases loaded (modules, the tokenizer's vocabulary, caches) instead of loading it
again. Without that, each worker's loading cost more than a second core saves on the reference's
few-millisecond cases.

Verdicts are yielded in scenario order, whatever order they arrive in, so progress, reports and the
console read exactly as with ``--jobs 1``. A case whose worker process died is an ``error`` saying how it
died; after ``workers.MAX_WORKER_DEATHS`` deaths in a row the remaining cases are ``error`` s saying they
were not played.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from conformance.adapters.base import Adapter
from conformance.protocol import ImplementationInfo
from conformance.runner import CaseResult, run_case, verdict_only
from conformance.scenario.load import LoadedScenario, LoadError
from conformance.workers import MAX_WORKER_DEATHS, Pool

__all__ = ["MAX_WORKER_DEATHS", "Plan", "play"]

Item = LoadedScenario | LoadError


@dataclass(frozen=True)
class Plan:
    """What every worker needs: how to build the adapter, and the run's settings (a ``workers.Job``)."""

    spec: str
    info: ImplementationInfo
    items: Sequence[Item]
    timeout: float
    hello_timeout: float
    harness: int = field(default_factory=os.getpid)
    """The harness's process id (a worker whose parent is another process outlived it)."""

    def open(self) -> _CasePlayer:
        from conformance.adapters.registry import create

        adapter = create(self.spec, hello_timeout=self.hello_timeout)
        try:
            adapter.hello()
        except BaseException:
            adapter.close()
            raise
        return _CasePlayer(self, adapter)

    def lost(self, key: object, why: str) -> CaseResult:
        assert isinstance(key, int)
        return _error(self.items[key], why)


@dataclass(frozen=True)
class _CasePlayer:
    plan: Plan
    adapter: Adapter

    def play(self, task: object) -> CaseResult:
        assert isinstance(task, int)
        return verdict_only(run_case(self.adapter, self.plan.info, self.plan.items[task], self.plan.timeout))

    def close(self) -> None:
        self.adapter.close()


def play(plan: Plan, jobs: int, here: Adapter | None = None) -> Iterator[CaseResult]:
    """Every case's verdict, in the order of ``plan.items``, played by ``jobs`` worker processes.

    ``here``: the harness's own adapter when it runs in this process (the reference, ``python:``). It
    plays the first case of each system before the workers are forked, so they inherit what that loaded
    (modules, the tokenizer, caches) instead of each loading it again; those verdicts are used as they
    are."""
    done = _warm_up(plan, here) if here is not None else {}
    with Pool(plan, jobs) as pool:
        for index in range(len(plan.items)):
            if index not in done:
                pool.submit(index, index)
        for index in range(len(plan.items)):
            while index not in done:
                done.update(pool.collect())  # type: ignore[arg-type]  # the keys are the indices
            yield done.pop(index)


def _warm_up(plan: Plan, adapter: Adapter) -> dict[int, CaseResult]:
    seen: set[str] = set()
    done: dict[int, CaseResult] = {}
    for index, item in enumerate(plan.items):
        system = item.id.split("/", 1)[0]
        if system not in seen:
            seen.add(system)
            done[index] = verdict_only(run_case(adapter, plan.info, item, plan.timeout))
    return done


def _error(item: Item, message: str) -> CaseResult:
    rules = list(item.scenario.rules) if isinstance(item, LoadedScenario) else []
    return CaseResult(item.id, rules, "error", message)
