"""The process that runs generated JavaScript: QuickJS behind a pipe, so a program can be stopped.

Why a process. The ``quickjs`` binding refuses every Python callback once a CPU time limit is set, and
the host API is made of callbacks, so the binding cannot bound a busy loop or a microtask storm by
itself; nothing inside the process can interrupt it either. The parent (``reference.llmz.containment``)
therefore runs each program here and kills this process when the program's time is up. The process
also holds the heap limit (``set_memory_limit``), an address-space limit and a per-program CPU limit
as backstops, and it dies with its parent.

Protocol (``multiprocessing.connection`` framing over two inherited pipes, JSON messages):

* parent -> worker: ``{"heap", "stack", "cpu_seconds", "max_payload"}``, then the three sources
  (``SOURCES``: kernel, setup, program) as one raw UTF-8 message each;
* worker -> parent, once when it has started: ``["ready"]``;
* worker -> parent, any number of times: ``["call", op, [args]]``, answered with one JSON text that the
  kernel decodes (a value, an error to throw, or "never settles");
* worker -> parent, once: ``["done", {"answers": n, "syntax", "failure"}]``, then the ``n`` answers (JSON
  texts) as one raw UTF-8 message each.

Sources and answers travel raw, not inside the JSON message, because they can be large (a session's
memory is up to 16 MiB of JSON inside the setup script): wrapping them would escape and unescape every
byte once more in each direction. Raw messages use ``surrogatepass``, so any Python string arrives as
it was sent.

Every callback registered with QuickJS catches everything and answers with a string: a Python exception
escaping into the binding corrupts it (and has crashed the whole process). Arguments are only ever the
kernel's own JSON text, which is valid UTF-8; anything else is refused. This module imports nothing from
the project, so the process starts quickly and runs no project code.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import resource
import signal
import sys
from multiprocessing.connection import Connection
from typing import Any

import quickjs

SOURCES = ("kernel", "setup", "program")
"""The request's parts sent as raw messages after its JSON header, in this order."""

REFUSED = json.dumps(
    {"error": {"code": "INTERNAL_ERROR", "name": "InternalError", "message": "the host could not answer"}}
)


def _die_with_parent() -> None:
    """Linux: be killed when the parent goes away, even in the middle of a busy loop."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _limit_cpu(seconds: float) -> None:
    """A CPU backstop for this program: the soft limit, counted from what the process used so far."""
    used = resource.getrusage(resource.RUSAGE_SELF)
    total = used.ru_utime + used.ru_stime
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    soft = int(total + seconds) + 1
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


class Worker:
    """Serves programs one at a time. Between programs it prepares the next fresh context with the kernel
    already defined, so that parsing overlaps the host's own work."""

    def __init__(self, inbox: Connection, outbox: Connection) -> None:
        self.inbox = inbox
        self.outbox = outbox
        self.answers: list[str] = []
        self.max_payload = 0
        self.prepared: tuple[str, Any] | None = None

    def _send(self, message: Any) -> None:
        self.outbox.send_bytes(json.dumps(message).encode("utf-8"))

    def _receive(self) -> dict[str, Any]:
        request: dict[str, Any] = json.loads(self.inbox.recv_bytes())
        for name in SOURCES:
            request[name] = self.inbox.recv_bytes().decode("utf-8", "surrogatepass")
        return request

    def serve(self) -> None:
        while True:
            try:
                request = self._receive()
            except (EOFError, OSError):
                return
            done = self.run(request)
            answers: list[str] = done.pop("answers")
            self._send(["done", {**done, "answers": len(answers)}])
            for answer in answers:
                self.outbox.send_bytes(answer.encode("utf-8", "surrogatepass"))
            self.prepared = None  # the used context goes before the next one is made
            with contextlib.suppress(Exception):
                self.prepared = (request["kernel"], self._fresh(request["kernel"]))

    def host_call(self, *args: Any) -> str:
        """The one callable generated code reaches (through the kernel) for host operations."""
        try:
            if not args or not all(isinstance(a, str) for a in args):
                return REFUSED
            parts = [a if len(a) <= self.max_payload else None for a in args[1:]]
            self._send(["call", args[0], parts])
            answer = self.inbox.recv_bytes().decode("utf-8")
            return answer if answer.isascii() else REFUSED
        except (EOFError, OSError):
            os._exit(0)  # the parent is gone; nothing is waiting for this program
        except BaseException:
            return REFUSED

    def settle(self, text: Any = None) -> None:
        with contextlib.suppress(BaseException):
            if isinstance(text, str):
                self.answers.append(text)

    def capture(self, text: Any = None) -> None:
        with contextlib.suppress(BaseException):
            if isinstance(text, str):
                self.answers.append("capture:" + text)

    def _fresh(self, kernel: str) -> Any:
        context = quickjs.Context()
        context.add_callable("__host_call", self.host_call)
        context.add_callable("__host_settle", self.settle)
        context.add_callable("__host_capture", self.capture)
        context.eval(kernel)
        return context

    def run(self, request: dict[str, Any]) -> dict[str, Any]:
        self.answers = []
        self.max_payload = int(request["max_payload"])
        syntax: str | None = None
        failure: str | None = None
        _limit_cpu(float(request["cpu_seconds"]))
        try:
            prepared, self.prepared = self.prepared, None
            if prepared is not None and prepared[0] == request["kernel"]:
                context = prepared[1]
            else:
                context = self._fresh(request["kernel"])
            context.set_memory_limit(int(request["heap"]))
            context.set_max_stack_size(int(request["stack"]))
            context.eval(request["setup"])
            context.eval(request["program"])
            while context.execute_pending_job():
                pass
        except quickjs.JSException as exc:
            text = str(exc)
            if text.startswith("SyntaxError"):
                syntax = text.splitlines()[0]
            else:
                failure = text.splitlines()[0] if text else type(exc).__name__
        except Exception as exc:  # the binding's own failures (conversion, memory) end this program only
            failure = f"{type(exc).__name__}: {exc}"
        return {"answers": self.answers, "syntax": syntax, "failure": failure}


def main(argv: list[str]) -> int:
    _die_with_parent()
    read_fd, write_fd, address_space = int(argv[0]), int(argv[1]), int(argv[2])
    if address_space > 0:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
    worker = Worker(Connection(read_fd, writable=False), Connection(write_fd, readable=False))
    worker._send(["ready"])  # started and imported: the parent's clocks start only now
    worker.serve()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
