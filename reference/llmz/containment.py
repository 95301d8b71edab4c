"""Running one program in a worker process with hard limits: the host side of ``jsworker``.

Theory of operation. ``run`` hands the kernel setup and the program to an idle worker process and
answers its host calls until it reports the program's end. Meanwhile it keeps two clocks:

* the JavaScript budget, ``options.timeout`` (llmz.configuration.timeout-bounds-javascript): time the
  worker spends running the program, not counting the host's own work on its calls. When it is used up
  the worker is killed and the program ends as ``timeout`` (the caller reports EXECUTION_ABORTED);
* a backstop on wall time, the budget plus a grace period, which holds even if the budget policy is
  broken (see the ``llmz-timeout-not-enforced`` mutant). A program stopped by it, or a worker that died
  on its own, ends as ``died`` with the reason in words.

Memory is bounded in the worker: the QuickJS heap limit (``HEAP_BYTES``; exhausting it is an ordinary
JavaScript ``out of memory`` error the caller classifies), an address-space limit on the whole process
(``ADDRESS_SPACE_BYTES``) and, per host call, the size of what a program may hand the host
(``MAX_PAYLOAD_CHARS``; larger payloads reach the host as ``None`` and are refused as invalid input).

Workers are kept in a small pool and reused, so an ordinary program costs a few pipe round trips, not a
process start: one message for the request, one per host call and its answer, one for the report. A
worker keeps the kernel source it was sent last, so the kernel crosses the pipe once per worker, not once
per program. A killed worker is replaced on the next program.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import importlib.util
import math
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

# The worker's framing, its pipe ends and the order of a request's raw parts: jsworker imports only the
# standard library (it runs without the project on its path), so the host takes them from it rather than
# spelling them twice.
from reference.llmz.jsworker import PARTS, Pipe, pack, unpack

DEFAULT_TIMEOUT_MS: Final = 10_000
"""The JavaScript budget when ``options.timeout`` is not given. Our choice: the documents state no
default (see the open question on llmz.configuration.timeout-bounds-javascript)."""

GRACE_SECONDS: Final = 2.0
"""How long past the budget the backstop waits before it stops a worker regardless."""

HEAP_BYTES: Final = 256 * 1024 * 1024
"""QuickJS heap limit per program: room for the 16 MiB default session memory several times over (it is
installed, decoded and re-encoded within one program)."""

ADDRESS_SPACE_BYTES: Final = 1024 * 1024 * 1024
"""Address-space limit of a worker process: the backstop behind the heap limit."""

STACK_BYTES: Final = 1024 * 1024
"""QuickJS stack limit: deep recursion is a JavaScript error, never a crash."""

MAX_PAYLOAD_CHARS: Final = 4 * 1024 * 1024
"""The largest JSON text one host call may carry (a tool input, an exit payload, an inspected value)."""

STARTUP_SECONDS: Final = 30.0
"""How long a new worker may take to start before it counts as dead (a backstop; it takes well under 1 s)."""

_WORKER = Path(__file__).with_name("jsworker.py")

Dispatch = Callable[[str, list[str | None]], str]
"""Answers one host call: the operation and its JSON-text arguments (None for one that was too large)."""


def javascript_budget(timeout_ms: int | None) -> float | None:
    """Seconds a program may run: ``options.timeout``, or our default when it is not set
    (llmz.configuration.timeout-bounds-javascript)."""
    return (DEFAULT_TIMEOUT_MS if timeout_ms is None else timeout_ms) / 1000


def backstop(timeout_ms: int | None) -> float:
    """Wall seconds after which a worker is stopped whatever the budget says."""
    return (DEFAULT_TIMEOUT_MS if timeout_ms is None else timeout_ms) / 1000 + GRACE_SECONDS


@dataclass(frozen=True)
class Limits:
    budget: float | None
    backstop: float
    heap: int = HEAP_BYTES
    stack: int = STACK_BYTES
    max_payload: int = MAX_PAYLOAD_CHARS


def limits_for(
    timeout_ms: int | None, budget: Callable[[int | None], float | None] = javascript_budget
) -> Limits:
    """The limits of one program; ``budget`` turns ``options.timeout`` into its JavaScript budget."""
    return Limits(budget=budget(timeout_ms), backstop=backstop(timeout_ms))


@dataclass
class RunResult:
    answers: list[str] = field(default_factory=list)
    syntax: str | None = None
    """The first line of a SyntaxError: the program did not compile."""
    failure: str | None = None
    """A failure of the evaluation itself, outside the program's promise (e.g. out of memory in setup)."""
    stopped: Literal["timeout", "died"] | None = None
    reason: str = ""


def _signal_words(returncode: int | None) -> str:
    if returncode is None:
        return "still running"
    if returncode < 0:
        try:
            return f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    return f"exited with status {returncode}"


@functools.cache
def _interpreter() -> tuple[list[str], dict[str, str] | None]:
    """Interpreter options and environment for a worker: without ``site`` (``-S``), with only the folders
    that hold the ``quickjs`` binding on its path. A worker imports nothing else outside the standard
    library, and ``site`` would run every ``.pth`` file of the environment first (an editable install of
    this project imports ``pathlib`` and ``re`` there), a quarter of a worker's start. Where the binding
    cannot be located without importing it, the worker starts the ordinary way."""
    try:
        specs = [importlib.util.find_spec(name) for name in ("quickjs", "_quickjs")]
    except (ImportError, ValueError):
        return [], None
    folders: list[str] = []
    for spec in specs:
        if spec is None or not spec.origin or not spec.has_location:
            return [], None
        origin = Path(spec.origin).parent
        folder = str(origin.parent if spec.submodule_search_locations else origin)
        if folder not in folders:
            folders.append(folder)
    return ["-S"], {**os.environ, "PYTHONPATH": os.pathsep.join(folders)}


class _Process:
    """One worker process and its two pipes."""

    def __init__(self) -> None:
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        try:
            options, env = _interpreter()
            fds = [str(to_child_r), str(from_child_w)]
            self.popen = subprocess.Popen(
                [sys.executable, *options, str(_WORKER), *fds, str(ADDRESS_SPACE_BYTES)],
                pass_fds=(to_child_r, from_child_w),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env=env,
            )
        finally:
            os.close(to_child_r)
            os.close(from_child_w)
        self.owner = os.getpid()
        # The worker's own pipe ends (the framing of ``multiprocessing.connection``), not that module's
        # Connection: it reads a large report (a 16 MiB memory) in small pieces and copies it once more.
        self.to_child = Pipe(to_child_w)
        self.from_child = Pipe(from_child_r)
        self.waiting = select.poll()
        self.waiting.register(from_child_r, select.POLLIN)
        self.open = True
        self.ready = False
        """Whether the worker said it has started (``["ready"]``): its start-up is not the program's time."""
        self.kernel: str | None = None
        """The kernel source this worker holds (the last one sent to it)."""

    def alive(self) -> bool:
        return self.owner == os.getpid() and self.popen.poll() is None

    def close(self) -> None:
        if self.popen.poll() is None:
            self.popen.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(timeout=5)
        self.close_pipes()

    def close_pipes(self) -> None:
        """Close this side's pipe ends, once: a second close could hit a descriptor number reused since.
        Alone (without stopping the worker) for a worker that is already gone or belongs to a parent."""
        if self.open:
            self.open = False
            os.close(self.to_child.fd)
            os.close(self.from_child.fd)

    def _poll(self, seconds: float) -> bool:
        """Whether the worker has written (or closed its end) within ``seconds``."""
        return bool(self.waiting.poll(math.ceil(seconds * 1000)))

    def _await_ready(self) -> None:
        """Wait for a new worker's ``["ready"]``, so that starting Python and importing QuickJS (tens of
        milliseconds, far more on a loaded machine) is not charged to the first program's JavaScript budget
        (llmz.configuration.timeout-bounds-javascript counts the program's time only)."""
        if self.ready:
            return
        if not self._poll(STARTUP_SECONDS):
            raise OSError(f"it did not start within {STARTUP_SECONDS:g}s")
        if unpack(self.from_child.recv_bytes())[0] != ["ready"]:
            raise ValueError("its first message was not ready")
        self.ready = True

    def run(self, request: dict[str, Any], dispatch: Dispatch, limits: Limits) -> RunResult:
        try:
            self._await_ready()
        except (EOFError, OSError, ValueError) as exc:
            self.close()
            words = _signal_words(self.popen.returncode)
            return RunResult(stopped="died", reason=f"the worker {words} ({exc})")
        started = time.monotonic()
        javascript = 0.0
        try:
            names = [name for name in PARTS if name != "kernel" or request[name] != self.kernel]
            header = {key: value for key, value in request.items() if key not in PARTS and key != "texts"}
            parts = [*(request[name] for name in names), *request["texts"]]
            self.to_child.send_bytes(pack([{**header, "parts": names}], parts))
            self.kernel = request["kernel"]
            while True:
                budget_left = math.inf if limits.budget is None else limits.budget - javascript
                wall_left = limits.backstop - (time.monotonic() - started)
                waited = time.monotonic()
                ready = self._poll(max(0.0, min(budget_left, wall_left)))
                javascript += time.monotonic() - waited
                if not ready:
                    self.close()
                    if budget_left <= wall_left:
                        return RunResult(stopped="timeout", reason="the JavaScript budget was used up")
                    return RunResult(stopped="died", reason="the worker was stopped by the backstop")
                message, parts = unpack(self.from_child.recv_bytes())
                if message[0] == "done":
                    done = message[1]
                    answers = [part for part in parts if part is not None]
                    return RunResult(answers=answers, syntax=done["syntax"], failure=done["failure"])
                self.to_child.send_bytes(dispatch(message[1], parts).encode("ascii"))
        except (EOFError, OSError, ValueError) as exc:
            self.close()
            words = _signal_words(self.popen.returncode)
            return RunResult(stopped="died", reason=f"the worker {words} ({exc})")
        except BaseException:
            self.close()  # mid-conversation: the worker cannot be reused
            raise


_idle: list[_Process] = []
_lock = threading.Lock()


def _acquire() -> _Process:
    with _lock:
        while _idle:
            process = _idle.pop()
            if process.alive():
                return process
            process.close_pipes()
    return _Process()


def _release(process: _Process) -> None:
    if not process.alive():
        process.close_pipes()
        return
    with _lock:
        _idle.append(process)


@atexit.register
def shutdown() -> None:
    """Stop the idle workers (they would also go with this process, or at their next read)."""
    with _lock:
        while _idle:
            process = _idle.pop()
            if process.owner == os.getpid():
                process.close()


def run(
    kernel: str,
    setup: str,
    program: str,
    dispatch: Dispatch,
    limits: Limits,
    *,
    memory: str = "",
    texts: Sequence[str] = (),
) -> RunResult:
    """Run one program in a worker within ``limits``; see the module docstring for the outcomes. ``kernel``
    is evaluated first in a fresh context (workers do that ahead of time), then ``memory`` becomes the
    string global ``__host_memory`` and each of ``texts`` the global ``__host_text_<i>``, then ``setup``
    runs, then ``program``."""
    request = {
        "kernel": kernel,
        "setup": setup,
        "memory": memory,
        "program": program,
        "texts": list(texts),
        "heap": limits.heap,
        "stack": limits.stack,
        "cpu_seconds": limits.backstop,
        "max_payload": limits.max_payload,
    }
    process = _acquire()
    try:
        return process.run(request, dispatch, limits)
    finally:
        _release(process)
