"""Stopping a run on request, and only on request: a real Ctrl-C, SIGTERM or SIGHUP (issue 23, items 3-4).

Why. The harness contains everything an implementation does, including ``BaseException`` from a Python
adapter (``SystemExit``, a ``KeyboardInterrupt`` it raises itself, ``GeneratorExit``): that is one case's
``error``, never the end of the run. A stop the *user* asks for must still end the run, so the two have to
be told apart. ``handling_stops`` installs handlers that note the request (``requested``) before raising
``Stopped``; the containment in ``conformance.runner`` and the adapters lets an exception through only when
a stop was requested.

What a stop does. The handler first kills every child process group the harness started that is still
alive (``ChildProcess`` registers itself in ``LIVE``), so even a harness that is stuck, or killed right
after, leaves no implementation running; then ``Stopped`` unwinds the run, whose ``finally`` blocks close
the adapter and release the report directory. The command prints one line naming the signal and exits
with ``128 + signal``, as a shell reports it, without a traceback. Report files are only ever replaced
whole (``conformance.report.files``), so the last complete report stays intact. SIGKILL cannot be
handled: there ``PR_SET_PDEATHSIG`` in the launched child does the work (``conformance.adapters.process``).
"""

from __future__ import annotations

import contextlib
import signal
import threading
import weakref
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Protocol


class Killable(Protocol):
    def kill_group(self) -> None: ...


#: The child processes alive now (the one piece of process-wide state here: a signal handler cannot be
#: handed anything, and must reach every child wherever the run is stuck).
LIVE: weakref.WeakSet[Killable] = weakref.WeakSet()
_requested = threading.Event()
_by: list[int] = []
"""The signal of the requested stop (the last one, when several came)."""
_STOP_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


class Stopped(BaseException):
    """The user asked the run to stop (a signal); carries the signal's number."""

    def __init__(self, number: int) -> None:
        super().__init__(f"stopped by {signal.Signals(number).name}")
        self.number = number


def requested() -> bool:
    """Whether a stop was requested: an interrupting exception seen now is the user's, not the adapter's."""
    return _requested.is_set()


def let_through(exc: BaseException) -> bool:
    """Whether containment must re-raise ``exc``: a requested stop, never an adapter's own exception."""
    return isinstance(exc, Stopped) or (isinstance(exc, KeyboardInterrupt) and requested())


def kill_children() -> None:
    for child in list(LIVE):
        with contextlib.suppress(Exception):
            child.kill_group()


def _on_signal(number: int, _frame: FrameType | None) -> None:
    _by[:] = [number]
    _requested.set()
    kill_children()
    raise Stopped(number)


def check() -> None:
    """Raise the requested stop (again): for a loop that may have lost it.

    Python runs a signal handler wherever the main thread is, and an exception raised inside a
    garbage-collector callback or a ``__del__`` is printed ("Exception ignored in") and dropped, not
    propagated. hypothesis times every collection with such a callback, so a stop arriving then would be
    lost and the run would go on. Loops that wait on child processes call this; it ends them all first."""
    if _requested.is_set():
        kill_children()
        raise Stopped(_by[0] if _by else signal.SIGTERM)


@contextlib.contextmanager
def handling_stops() -> Iterator[None]:
    """Stop on SIGINT, SIGTERM and SIGHUP while the block runs (main thread only; elsewhere a no-op)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _requested.clear()
    _by.clear()
    previous: dict[int, Callable[[int, FrameType | None], object] | int | None] = {}
    for number in _STOP_SIGNALS:
        previous[number] = signal.signal(number, _on_signal)
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler if handler is not None else signal.SIG_DFL)


def exit_status(stop: Stopped) -> int:
    """128 + the signal, as a shell reports a process ended by it."""
    return 128 + stop.number


def describe(stop: Stopped) -> str:
    return f"{stop}; child processes ended, no new report written"
