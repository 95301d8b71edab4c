"""The process that runs generated JavaScript: QuickJS behind a pipe, so a program can be stopped.

Why a process. The ``quickjs`` binding refuses every Python callback once a CPU time limit is set, and
the host API is made of callbacks, so the binding cannot bound a busy loop or a microtask storm by
itself; nothing inside the process can interrupt it either. The parent (``reference.llmz.containment``)
therefore runs each program here and kills this process when the program's time is up. The process
also holds the heap limit (``set_memory_limit``), an address-space limit and a per-program CPU limit
as backstops, and it dies with its parent.

Protocol. Each message is one ``multiprocessing.connection`` message (``Pipe`` here) over two inherited
pipes, framed by ``pack``: a JSON header, a newline, then raw UTF-8 parts (``surrogatepass``, so any
Python string arrives as it was sent) whose byte lengths the header lists last. Large texts (sources, a
session's memory of up to 16 MiB, tool inputs, answers) travel raw, not inside the JSON: wrapping them
would escape and unescape every byte once more in each direction. One message per request and per
report, because every message wakes the other process once.

* parent -> worker: ``[{"heap", "stack", "cpu_seconds", "max_payload", "parts"}, sizes]`` with the parts
  named in ``parts``, in that order: ``kernel`` (only when it differs from the one this worker already
  holds: the worker keeps the last kernel it was sent), ``setup``, ``memory`` and ``program``; any parts
  after those are the memory's long texts (see ``texts`` below);
* worker -> parent, once when it has started: ``["ready", []]``;
* worker -> parent, any number of times: ``["call", op, sizes]`` with the call's arguments as parts (a
  size of ``null`` for an argument too large to send), answered with one plain JSON text that the kernel
  decodes (a value, an error to throw, or "never settles");
* worker -> parent, once per program: ``["done", {"syntax", "failure"}, sizes]`` with the answers (JSON
  texts from the settle and capture hooks) as parts.

The ``memory`` part becomes the string global ``__host_memory`` before ``setup`` runs, which takes it off
the global object and hands it to the kernel: setting a string costs a tenth of parsing the same text as
a string literal inside the setup source. Each long text the memory's JSON refers to instead of holding
it (``texts``) becomes the global ``__host_text_<i>`` the same way.

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
import struct
import sys
from collections.abc import Sequence
from typing import Any

quickjs: Any = None
"""The QuickJS binding, loaded by ``main``: the host imports this module for its framing (``pack``,
``unpack``, ``PARTS``) and must not load the engine with it."""


def _load_binding() -> Any:
    try:  # the binding itself: its wrapper package imports concurrent.futures, a third of a worker's start
        import _quickjs as binding
    except ImportError:  # pragma: no cover - a binding that no longer ships its module under that name
        import quickjs as binding
    return binding


PARTS = ("kernel", "setup", "memory", "program")
"""The parts a request may carry, in this order (``kernel`` only when it changed)."""


def pack(header: list[Any], parts: Sequence[str | None]) -> bytes:
    """One message: ``header`` with the parts' byte lengths appended, a newline, the parts (None: absent)."""
    raw = [None if part is None else part.encode("utf-8", "surrogatepass") for part in parts]
    sizes = [None if data is None else len(data) for data in raw]
    return b"".join([json.dumps([*header, sizes]).encode("utf-8"), b"\n", *(data for data in raw if data)])


def unpack(message: bytes | bytearray) -> tuple[list[Any], list[str | None]]:
    """The header (without the sizes) and the parts of a message made by ``pack``."""
    end = message.index(b"\n")
    *header, sizes = json.loads(message[:end])
    view, at = memoryview(message), end + 1
    parts: list[str | None] = []
    for size in sizes:
        if size is None:
            parts.append(None)
            continue
        parts.append(str(view[at : at + size], "utf-8", "surrogatepass"))
        at += size
    return header, parts


class Pipe:
    """One direction of the conversation, in the framing of ``multiprocessing.connection`` that the parent
    uses (a 4-byte big-endian signed length, or -1 and an 8-byte length past 2 GiB, then the bytes).
    Importing that module would cost a worker more than a third of its start (it brings sockets, pickling
    and temporary files), for two calls."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def send_bytes(self, data: bytes) -> None:
        size = len(data)
        header = struct.pack("!i", size) if size <= 0x7FFFFFFF else struct.pack("!iQ", -1, size)
        if size <= 65536:  # one write, so the parent wakes once
            self._write(header + data)
        else:  # no copy of a large message
            self._write(header)
            self._write(data)

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self.fd, view) :]

    def recv_bytes(self) -> bytearray:
        (size,) = struct.unpack("!i", self._read(4))
        if size == -1:
            (size,) = struct.unpack("!Q", self._read(8))
        return self._read(size)

    def _read(self, size: int) -> bytearray:
        """Exactly ``size`` bytes, read into one buffer (no copy of a large message)."""
        data = bytearray(size)
        view, at = memoryview(data), 0
        while at < size:
            got = os.readv(self.fd, [view[at:]])
            if not got:
                raise EOFError("the parent closed the pipe")
            at += got
        return data


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

    def __init__(self, inbox: Pipe, outbox: Pipe) -> None:
        self.inbox = inbox
        self.outbox = outbox
        self.answers: list[str] = []
        self.max_payload = 0
        self.kernel = ""
        """The kernel source the parent sent last; it sends a new one only when it changes."""
        self.prepared: tuple[str, Any] | None = None

    def _send(self, header: list[Any], parts: Sequence[str | None] = ()) -> None:
        self.outbox.send_bytes(pack(header, parts))

    def _receive(self) -> dict[str, Any]:
        (header,), parts = unpack(self.inbox.recv_bytes())
        request: dict[str, Any] = dict(header)
        names = request.pop("parts")
        named = dict(zip(names, parts[: len(names)], strict=True))
        request["texts"] = parts[len(names) :]
        self.kernel = named.get("kernel") or self.kernel
        request.update((name, named.get(name) or "") for name in PARTS[1:])
        request["kernel"] = self.kernel
        return request

    def serve(self) -> None:
        while True:
            try:
                request = self._receive()
            except (EOFError, OSError):
                return
            done = self.run(request)
            answers: list[str | None] = done.pop("answers")
            self._send(["done", done], answers)
            self.prepared = None  # the used context goes before the next one is made
            with contextlib.suppress(Exception):
                self.prepared = (self.kernel, self._fresh(self.kernel))

    def host_call(self, *args: Any) -> str:
        """The one callable generated code reaches (through the kernel) for host operations."""
        try:
            if not args or not all(isinstance(a, str) for a in args):
                return REFUSED
            parts = [a if len(a) <= self.max_payload else None for a in args[1:]]
            self._send(["call", args[0]], parts)
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
            context.set("__host_memory", request["memory"])
            for index, text in enumerate(request["texts"]):
                context.set(f"__host_text_{index}", text)
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
    global quickjs
    quickjs = _load_binding()
    worker = Worker(Pipe(read_fd), Pipe(write_fd))
    worker._send(["ready"])  # started and imported: the parent's clocks start only now
    worker.serve()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
