"""The process that runs generated JavaScript: QuickJS behind a pipe, so a program can be stopped.

Why a process. The ``quickjs`` binding refuses every Python callback once a CPU time limit is set, and
the host API is made of callbacks, so the binding cannot bound a busy loop or a microtask storm by
itself; nothing inside the process can interrupt it either. The parent (``reference.llmz.containment``)
therefore runs each program here and kills this process when the program's time is up. The process
also holds the heap limit (``set_memory_limit``), an address-space limit and a per-program CPU limit
as backstops, and it dies with its parent.

Protocol (``multiprocessing.connection`` framing over two inherited pipes, JSON messages):

* parent -> worker: ``{"setup", "program", "heap", "stack", "cpu_seconds", "max_payload"}``;
* worker -> parent, any number of times: ``["call", op, [args]]``, answered with one JSON text that the
  kernel decodes (a value, an error to throw, or "never settles");
* worker -> parent, once: ``["done", {"answers", "syntax", "failure"}]``.

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
    def __init__(self, inbox: Connection, outbox: Connection) -> None:
        self.inbox = inbox
        self.outbox = outbox

    def _send(self, message: Any) -> None:
        self.outbox.send_bytes(json.dumps(message).encode("utf-8"))

    def serve(self) -> None:
        while True:
            try:
                request = json.loads(self.inbox.recv_bytes())
            except (EOFError, OSError):
                return
            self._send(["done", self.run(request)])

    def run(self, request: dict[str, Any]) -> dict[str, Any]:
        answers: list[str] = []
        max_payload = int(request["max_payload"])

        def host_call(*args: Any) -> str:
            try:
                if not args or not all(isinstance(a, str) for a in args):
                    return REFUSED
                parts = [a if len(a) <= max_payload else None for a in args[1:]]
                self._send(["call", args[0], parts])
                answer = self.inbox.recv_bytes().decode("utf-8")
                return answer if answer.isascii() else REFUSED
            except (EOFError, OSError):
                os._exit(0)  # the parent is gone; nothing is waiting for this program
            except BaseException:
                return REFUSED

        def keep(prefix: str) -> Any:
            def record(text: Any = None) -> None:
                try:
                    if isinstance(text, str):
                        answers.append(prefix + text)
                except BaseException:
                    return None
                return None

            return record

        _limit_cpu(float(request["cpu_seconds"]))
        context = quickjs.Context()
        context.set_memory_limit(int(request["heap"]))
        context.set_max_stack_size(int(request["stack"]))
        context.add_callable("__host_call", host_call)
        context.add_callable("__host_settle", keep(""))
        context.add_callable("__host_capture", keep("capture:"))
        syntax: str | None = None
        failure: str | None = None
        try:
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
        return {"answers": answers, "syntax": syntax, "failure": failure}


def main(argv: list[str]) -> int:
    _die_with_parent()
    read_fd, write_fd, address_space = int(argv[0]), int(argv[1]), int(argv[2])
    if address_space > 0:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
    Worker(Connection(read_fd, writable=False), Connection(write_fd, readable=False)).serve()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
