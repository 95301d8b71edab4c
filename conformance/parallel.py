"""Cases in parallel (``run --jobs N``, issue 26): N worker processes, each with its own adapter.

Why. A runtime author waits for wall time against their own implementation, which is usually far slower
than our reference (llmz 1.0.1 takes about 60 ms a case), and one adapter process leaves every other core
idle. Bowtie and test262's runners spread cases over several processes; so does this.

Theory of operation. ``play`` forks ``jobs`` worker processes. Each builds its own adapter from the
``--impl`` spec (``conformance.adapters.registry.create``), greets it with its own ``hello`` and then
plays the cases the scheduler sends it, one index at a time, with ``conformance.runner.run_case`` (twins
included: a case and its twins always go to one worker, on one adapter). So a ``stdio:`` implementation
or a preset gets N processes, each with its own restarts and its own circuit breaker, and the reference
and ``python:`` adapters get N interpreters (threads would share one core under the GIL). Forking hands
each worker the loaded suite without pickling it; only a case's index goes out and its verdict (without
the record) comes back. An adapter that runs in the harness's own process (the reference, ``python:``)
first plays the first case of each system there, before the fork: every worker then inherits what those
cases loaded (modules, the tokenizer's vocabulary, caches) instead of loading it again. Without that,
each worker's loading cost more than a second core saves on the reference's few-millisecond cases.

The scheduler keeps ``_IN_FLIGHT`` cases queued at each worker (so a worker never waits for the next
index) and hands out the rest as verdicts arrive: a slow case holds up one worker, not the run. Verdicts
are yielded in scenario order, whatever order they arrive in, so progress, reports and the console read
exactly as with ``--jobs 1``.

Failures stay local. A worker whose implementation crashes or hangs restarts it itself (the stdio
adapter does). A worker process that dies (a ``python:`` adapter calling ``os._exit``, a segfault in an
extension) costs the case it was playing, which becomes an ``error``; the cases queued behind it go to a
fresh worker. After ``MAX_WORKER_DEATHS`` deaths in a row without a verdict in between, the remaining
cases are not played and each is an ``error`` saying so. A worker whose hello fails ends the run as a
failed start (``AdapterError``, exit 2), as the first hello does.

Stopping. Every worker is in ``conformance.stopping.LIVE``: a Ctrl-C, SIGTERM or SIGHUP sends it SIGTERM,
on which it (running the handler it inherited) kills its own implementation's process groups and exits;
whatever is still alive when ``play`` unwinds is killed. A worker also gets SIGTERM from the kernel if the
harness dies (``PR_SET_PDEATHSIG``), so none outlives a harness killed by SIGKILL.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess

from conformance import stopping
from conformance.adapters.base import Adapter, AdapterError
from conformance.adapters.process import signal_on_parent_death
from conformance.protocol import ImplementationInfo
from conformance.runner import CaseResult, run_case, verdict_only
from conformance.scenario.load import LoadedScenario, LoadError

_IN_FLIGHT = 2
"""Cases queued at a worker at once: the one it plays and the next, so it never idles between them."""
MAX_WORKER_DEATHS = 3
"""Worker processes that may die in a row (no verdict in between) before the run stops playing."""
_JOIN = 2.0
"""Seconds a worker gets to close its implementation after the last case before it is killed."""

Item = LoadedScenario | LoadError


@dataclass(frozen=True)
class Plan:
    """What every worker needs: how to build the adapter, and the run's settings."""

    spec: str
    info: ImplementationInfo
    items: Sequence[Item]
    timeout: float
    hello_timeout: float
    harness: int = field(default_factory=os.getpid)
    """The harness's process id (a worker whose parent is another process outlived it)."""


# -- the worker side --------------------------------------------------------------------------------------
def _serve(plan: Plan, conn: Connection, inherited: list[Connection]) -> None:
    """A worker's whole life: build the adapter, greet it, play the indices it is sent until told to stop."""
    for other in inherited:  # the harness's ends of the pipes: a harness that is gone must read as EOF
        other.close()
    stopping.LIVE.clear()  # the harness's children, not this worker's
    signal_on_parent_death(signal.SIGTERM)
    if os.getppid() != plan.harness:  # the harness died before the line above took effect
        os._exit(1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the harness decides; it sends SIGTERM
    from conformance.adapters.registry import create

    try:
        adapter = create(plan.spec, hello_timeout=plan.hello_timeout)
        adapter.hello()
    except BaseException as exc:  # even SystemExit: the harness reports it as a failed start
        if not isinstance(exc, stopping.Stopped):
            with contextlib.suppress(OSError):
                why = str(exc) if isinstance(exc, AdapterError) else f"{type(exc).__name__}: {exc}"
                conn.send(("hello", why))
        return
    try:
        _play_sent(adapter, plan, conn)
    except (stopping.Stopped, EOFError, OSError):
        pass  # the harness stopped the run, or went away: nothing left to answer
    finally:
        with contextlib.suppress(BaseException):  # every verdict is sent: a failing close changes none
            adapter.close()
        _at_worker_exit()


EXIT_HOOKS = (
    ("reference.llmz.containment", "shutdown"),
    ("reference.llmz.token_counts", "save_all"),
)
"""Exit handlers of the in-process reference that a worker runs itself, when their module is loaded.

A forked worker ends with ``os._exit`` (as ``multiprocessing`` does), never running ``atexit``: the
handlers it inherited belong to the harness (a temporary folder's finalizer would delete the harness's
folder; pytest's would write to its channel). So the two the reference registers for its own process
are called here: reaping its QuickJS workers (whose CPU the bench counts, and which would otherwise be
orphaned) and saving the token counts it learnt (a cache the next run reads)."""


def _at_worker_exit() -> None:
    for name, hook in EXIT_HOOKS:
        module = sys.modules.get(name)
        if module is not None:
            with contextlib.suppress(Exception):
                getattr(module, hook)()


def _play_sent(adapter: Adapter, plan: Plan, conn: Connection) -> None:
    """Play each index the harness sends, answering with its verdict; ``None`` ends the run."""
    while True:
        index = conn.recv()
        if index is None:
            return
        result = run_case(adapter, plan.info, plan.items[index], plan.timeout)
        conn.send((index, verdict_only(result)))


# -- the harness side -------------------------------------------------------------------------------------
@dataclass(eq=False)
class _Worker:
    """One worker process, its end of the pipe and the indices it holds. Killable (``stopping.LIVE``)."""

    process: BaseProcess
    conn: Connection
    held: list[int] = field(default_factory=list)

    def kill_group(self) -> None:
        """Ask the worker to end (it kills its implementation's groups first): safe in a signal handler."""
        if self.process.pid is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(self.process.pid, signal.SIGTERM)


class _Pool:
    def __init__(self, plan: Plan, jobs: int) -> None:
        self.plan = plan
        self.jobs = jobs
        self.workers: list[_Worker] = []
        self.context = multiprocessing.get_context("fork")

    def start(self) -> _Worker:
        ours, theirs = self.context.Pipe()
        inherited = [w.conn for w in self.workers] + [ours]
        process = self.context.Process(
            target=_serve, args=(self.plan, theirs, inherited), name=f"conformance-worker-{len(self.workers)}"
        )
        process.daemon = True
        process.start()
        theirs.close()
        worker = _Worker(process, ours)
        stopping.LIVE.add(worker)
        self.workers.append(worker)
        return worker

    def retire(self, worker: _Worker) -> None:
        self.workers.remove(worker)
        stopping.LIVE.discard(worker)
        worker.conn.close()
        worker.process.join(_JOIN)
        if worker.process.is_alive():
            worker.process.kill()
            worker.process.join(_JOIN)

    def close(self) -> None:
        """Tell every worker to finish, give it ``_JOIN`` seconds to close its implementation, then kill."""
        for worker in self.workers:
            with contextlib.suppress(OSError):
                worker.conn.send(None)
        for worker in list(self.workers):
            self.retire(worker)


def play(plan: Plan, jobs: int, here: Adapter | None = None) -> Iterator[CaseResult]:
    """Every case's verdict, in the order of ``plan.items``, played by ``jobs`` worker processes.

    ``here``: the harness's own adapter when it runs in this process (the reference, ``python:``). It
    plays the first case of each system before the workers are forked, so they inherit what that loaded
    (modules, the tokenizer, caches) instead of each loading it again; those verdicts are used as they
    are."""
    pool = _Pool(plan, min(jobs, max(1, len(plan.items))))
    done = _warm_up(plan, here) if here is not None else {}
    try:
        yield from _schedule(pool, done)
    finally:
        pool.close()


def _warm_up(plan: Plan, adapter: Adapter) -> dict[int, CaseResult]:
    seen: set[str] = set()
    done: dict[int, CaseResult] = {}
    for index, item in enumerate(plan.items):
        system = item.id.split("/", 1)[0]
        if system not in seen:
            seen.add(system)
            done[index] = verdict_only(run_case(adapter, plan.info, item, plan.timeout))
    return done


def _schedule(pool: _Pool, done: dict[int, CaseResult]) -> Iterator[CaseResult]:
    items = pool.plan.items
    waiting = [index for index in range(len(items)) if index not in done][::-1]  # index 0 popped first
    deaths = 0
    upcoming = 0
    for _ in range(min(pool.jobs, len(waiting))):  # none when the warm-up played every case
        pool.start()
    while True:
        while upcoming in done:
            yield done.pop(upcoming)
            upcoming += 1
        if upcoming == len(items):
            return
        for worker in pool.workers:
            while waiting and len(worker.held) < _IN_FLIGHT:
                index = waiting.pop()
                worker.held.append(index)
                worker.conn.send(index)
        ready = wait([w.conn for w in pool.workers] + [w.process.sentinel for w in pool.workers])
        for worker in list(pool.workers):
            if worker.conn in ready or worker.process.sentinel in ready:
                deaths = _collect(pool, worker, done, waiting, deaths)


def _collect(
    pool: _Pool, worker: _Worker, done: dict[int, CaseResult], waiting: list[int], deaths: int
) -> int:
    """Take what ``worker`` sent; replace it if it died. Returns the count of deaths in a row."""
    try:
        while worker.conn.poll():
            message = worker.conn.recv()
            if message[0] == "hello":
                raise AdapterError(
                    f"a worker process could not start its own copy of the implementation "
                    f"(run with --jobs 1 to use one): {message[1]}"
                )
            index, result = message
            worker.held.remove(index)
            done[index] = result
            deaths = 0
        if worker.process.is_alive() or worker.process.exitcode is None:
            return deaths
    except (EOFError, OSError):
        pass
    return _bury(pool, worker, done, waiting, deaths + 1)


def _bury(pool: _Pool, worker: _Worker, done: dict[int, CaseResult], waiting: list[int], deaths: int) -> int:
    """A worker died: its current case is an error, the cases queued behind it go back to the queue."""
    worker.process.join(_JOIN)
    code = worker.process.exitcode
    how = f"was killed by signal {-code}" if code is not None and code < 0 else f"exited with status {code}"
    items = pool.plan.items
    if worker.held:
        first, *rest = worker.held
        done[first] = _error(items[first], f"the worker process playing this case {how}")
        waiting.extend(reversed(rest))
        worker.held = []
    pool.retire(worker)
    if deaths >= MAX_WORKER_DEATHS:
        reason = f"not played: {deaths} worker processes died in a row, so the run stopped playing"
        while waiting:  # the live workers still answer for the cases they hold
            index = waiting.pop()
            done[index] = _error(items[index], reason)
        return deaths
    pool.start()
    return deaths


def _error(item: Item, message: str) -> CaseResult:
    rules = list(item.scenario.rules) if isinstance(item, LoadedScenario) else []
    return CaseResult(item.id, rules, "error", message)
