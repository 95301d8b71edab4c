"""Worker processes, each with its own adapters, playing tasks the harness sends them (issue 26).

Why one module. ``run --jobs N`` plays scenarios on N workers (``conformance.parallel``) and ``fuzz --jobs
N`` plays generated comparisons on N workers (``conformance.fuzz.ahead``); both need the same hard parts:
a crash or a hang that stays local, a dead worker replaced, workers that die with the harness, and a stop
that reaches every implementation process. They live here once; what a worker *does* is a :class:`Job`.

Theory of operation. A :class:`Job` is built in the harness and reaches each worker by ``fork`` (so a
loaded suite or a case generator is inherited, never pickled). A worker calls ``job.open()``, which starts
and greets its own adapters and returns a :class:`Player`; then it answers each ``(key, task)`` it is sent
with ``(key, player.play(task))`` until it is sent ``None``. Tasks and answers cross a pipe, so they must
pickle; a run's task is an index into the inherited suite, a fuzz task a generated case.

The :class:`Pool` is driven from the harness's one thread: ``submit`` queues a task, ``collect`` hands
out queued tasks (``_IN_FLIGHT`` at a worker, so a worker never idles between two), starts workers as
there is work for them (at most ``jobs``), waits for at least one answer and returns what arrived, in
whatever order. ``drop_waiting`` forgets queued tasks no worker holds yet (a search that no longer needs
what it asked for ahead).

Failures stay local. A worker whose implementation crashes or hangs restarts it itself (the stdio adapter
does). A worker process that dies (a ``python:`` adapter calling ``os._exit``, a segfault in an extension)
costs the task it was playing: its answer is ``job.lost(key, why)``; the tasks queued behind it go to a
fresh worker. After ``MAX_WORKER_DEATHS`` deaths in a row without an answer in between, nothing more is
played: every task waiting, or submitted later, is answered ``job.lost(key, "not played: ...")``. A worker
whose ``open`` fails ends the run as a failed start (``AdapterError``), as the first hello does.

Stopping. Every worker is in ``conformance.stopping.LIVE``: a Ctrl-C, SIGTERM or SIGHUP sends it SIGTERM,
on which it (running the handler it inherited) kills its own implementation's process groups and exits;
whatever is still alive when the pool closes is killed. A worker also gets SIGTERM from the kernel if the
harness dies (``PR_SET_PDEATHSIG``), so none outlives a harness killed by SIGKILL.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import queue
import signal
import sys
import threading
from collections import deque
from collections.abc import Hashable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any, Protocol

from conformance import stopping
from conformance.adapters.base import AdapterError
from conformance.adapters.process import signal_on_parent_death

_IN_FLIGHT = 2
"""Tasks queued at a worker at once: the one it plays and the next, so it never idles between them."""
HELLO = "hello"
"""The task asking a worker for its implementation's hello (``run`` and ``fuzz`` alike): the harness takes
the run's hello from a worker instead of starting a copy of the implementation of its own. No case's task
is this string (a run's are indices, a fuzz run's JSON objects)."""
MAX_WORKER_DEATHS = 3
"""Worker processes that may die in a row (no answer in between) before the pool stops playing."""
_JOIN = 2.0
"""Seconds a worker gets to close its implementation after the last task before it is killed."""
_LOOK_FOR_STOPS = 0.5
"""Seconds between two looks at whether a stop was requested (``stopping.check``) while waiting."""


class Player(Protocol):
    """A worker's adapters, started and greeted: plays one task at a time."""

    def play(self, task: Any) -> Any: ...

    def close(self) -> None: ...


class Job(Protocol):
    """What every worker does; built in the harness, inherited by each worker's fork."""

    @property
    def harness(self) -> int:
        """The harness's process id (a worker whose parent is another process outlived it)."""
        ...

    def open(self) -> Player:
        """In the worker: start and greet its own adapters (raise ``AdapterError`` when it cannot)."""
        ...

    def lost(self, key: Any, why: str) -> Any:
        """In the harness: the answer for a task whose worker died, or that was never played."""
        ...


# -- the worker side --------------------------------------------------------------------------------------
def _serve(job: Job, conn: Connection, inherited: list[Connection]) -> None:
    """A worker's whole life: open its player, answer each task it is sent until told to stop."""
    for other in inherited:  # the harness's ends of the pipes: a harness that is gone must read as EOF
        other.close()
    stopping.LIVE.clear()  # the harness's children, not this worker's
    signal_on_parent_death(signal.SIGTERM)
    if os.getppid() != job.harness:  # the harness died before the line above took effect
        os._exit(1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the harness decides; it sends SIGTERM
    try:
        player = job.open()
    except BaseException as exc:  # even SystemExit: the harness reports it as a failed start
        if not isinstance(exc, stopping.Stopped):
            with contextlib.suppress(OSError):
                why = str(exc) if isinstance(exc, AdapterError) else f"{type(exc).__name__}: {exc}"
                conn.send(("hello", why))
        return
    try:
        _answer_sent(player, conn)
    except (stopping.Stopped, EOFError, OSError):
        pass  # the harness stopped the run, or went away: nothing left to answer
    finally:
        with contextlib.suppress(BaseException):  # every answer is sent: a failing close changes none
            player.close()
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


def _answer_sent(player: Player, conn: Connection) -> None:
    """Answer each ``(key, task)`` the harness sends with ``(key, answer)``; ``None`` ends the run.

    A thread of its own reads the tasks into a queue as they come. Tasks and answers can each be larger
    than a pipe holds (a generated case runs to tens of kB): were the worker to read only between
    answers, a harness sending the next task and a worker sending its answer could each wait for the
    other to read, forever. The reading thread always reads, so the harness's send always ends."""
    inbox: queue.SimpleQueue[Any] = queue.SimpleQueue()

    def read() -> None:
        try:
            while True:
                message = conn.recv()
                inbox.put(message)
                if message is None:
                    return
        except (EOFError, OSError):
            inbox.put(_GONE)

    threading.Thread(target=read, name="conformance-worker-reader", daemon=True).start()
    while True:
        message = inbox.get()
        if message is None:
            return
        if message is _GONE:
            raise EOFError("the harness went away")
        key, task = message
        conn.send(("answer", key, player.play(task)))


_GONE = object()
"""What the reading thread queues when the harness's end of the pipe is gone."""


# -- the harness side -------------------------------------------------------------------------------------
@dataclass(eq=False)
class _Worker:
    """One worker process, its end of the pipe and the tasks it holds. Killable (``stopping.LIVE``)."""

    process: BaseProcess
    conn: Connection
    held: list[tuple[Hashable, Any]] = field(default_factory=list)

    def kill_group(self) -> None:
        """Ask the worker to end (it kills its implementation's groups first): safe in a signal handler."""
        if self.process.pid is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(self.process.pid, signal.SIGTERM)


class Pool:
    """Up to ``jobs`` worker processes playing ``job``'s tasks; see the module's theory of operation."""

    def __init__(self, job: Job, jobs: int) -> None:
        self.job = job
        self.jobs = max(1, jobs)
        self.workers: list[_Worker] = []
        self.waiting: deque[tuple[Hashable, Any]] = deque()
        self.deaths = 0
        self.stopped_playing: str | None = None
        self._answers: dict[Hashable, Any] = {}
        self.start_failure = (
            "a worker process could not start its own copy of the implementation "
            "(run with --jobs 1 to use one)"
        )
        """What a worker whose ``job.open()`` failed is reported as (its reason follows)."""
        self._context = multiprocessing.get_context("fork")

    def warm(self) -> None:
        """Start every worker now, so their start-up runs beside what the harness does meanwhile."""
        while self.stopped_playing is None and len(self.workers) < self.jobs:
            self._start()

    def submit(self, key: Hashable, task: Any) -> None:
        """Queue ``task``; its answer comes from a later ``collect`` under ``key``."""
        if self.stopped_playing is not None:
            self._answers[key] = self.job.lost(key, self.stopped_playing)
        else:
            self.waiting.append((key, task))

    def drop_waiting(self) -> list[Hashable]:
        """Forget the tasks no worker holds yet; returns their keys."""
        keys = [key for key, _ in self.waiting]
        self.waiting.clear()
        return keys

    @property
    def pending(self) -> int:
        """Tasks submitted whose answer ``collect`` has not returned yet."""
        return len(self.waiting) + sum(len(w.held) for w in self.workers) + len(self._answers)

    def collect(self) -> dict[Hashable, Any]:
        """Wait for at least one answer (none when nothing is pending) and return every answer that came."""
        while not self._answers and (self.waiting or any(w.held for w in self.workers)):
            stopping.check()
            self._hand_out()
            ready = wait(
                [w.conn for w in self.workers] + [w.process.sentinel for w in self.workers], _LOOK_FOR_STOPS
            )
            for worker in list(self.workers):
                if worker.conn in ready or worker.process.sentinel in ready:
                    self._take(worker)
        answers, self._answers = self._answers, {}
        return answers

    def _hand_out(self) -> None:
        while self.waiting:
            if len(self.workers) < self.jobs and all(w.held for w in self.workers):
                self._start()  # a worker for every task, up to ``jobs``, before any holds two
            room = [w for w in self.workers if len(w.held) < _IN_FLIGHT]
            if not room:
                return
            worker = min(room, key=lambda w: len(w.held))
            key, task = self.waiting.popleft()
            worker.held.append((key, task))
            try:
                worker.conn.send((key, task))
            except OSError:  # it died since its last task was sent: take what it answered, then bury it
                self._take(worker)

    def _start(self) -> _Worker:
        ours, theirs = self._context.Pipe()
        inherited = [w.conn for w in self.workers] + [ours]
        process = self._context.Process(
            target=_serve, args=(self.job, theirs, inherited), name=f"conformance-worker-{len(self.workers)}"
        )
        process.daemon = True
        process.start()
        theirs.close()
        worker = _Worker(process, ours)
        stopping.LIVE.add(worker)
        self.workers.append(worker)
        return worker

    def _take(self, worker: _Worker) -> None:
        """Take what ``worker`` sent; bury it if it died."""
        try:
            while worker.conn.poll():
                message = worker.conn.recv()
                if message[0] == "hello":
                    raise AdapterError(f"{self.start_failure}: {message[1]}")
                _, key, answer = message
                worker.held = [(k, t) for k, t in worker.held if k != key]
                self._answers[key] = answer
                self.deaths = 0
            if worker.process.is_alive() or worker.process.exitcode is None:
                return
        except (EOFError, OSError):
            pass
        self._bury(worker)

    def _bury(self, worker: _Worker) -> None:
        """A worker died: its current task is lost, the tasks queued behind it go back to the queue."""
        self.deaths += 1
        worker.process.join(_JOIN)
        code = worker.process.exitcode
        how = (
            f"was killed by signal {-code}" if code is not None and code < 0 else f"exited with status {code}"
        )
        if worker.held:
            (first, _), *rest = worker.held
            self._answers[first] = self.job.lost(first, f"the worker process playing this case {how}")
            self.waiting.extendleft(reversed(rest))
            worker.held = []
        self._retire(worker)
        if self.deaths >= MAX_WORKER_DEATHS:
            self.stopped_playing = (
                f"not played: {self.deaths} worker processes died in a row, so the run stopped playing"
            )
            for key, _ in self.waiting:  # the live workers still answer for the tasks they hold
                self._answers[key] = self.job.lost(key, self.stopped_playing)
            self.waiting.clear()

    def _retire(self, worker: _Worker) -> None:
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
            self._retire(worker)

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
