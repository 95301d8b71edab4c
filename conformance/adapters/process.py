"""A child process speaking newline-delimited JSON, read and written without ever blocking the harness.

Why each piece is the way it is (every one of them answers a way a real implementation hung a run):

* Two daemon threads drain the child's stdout (into a queue, one line per item) and stderr (into a
  bounded tail kept for error messages). The harness waits on the queue with a deadline, so a child that
  hangs, floods stderr or never flushes costs at most the case's timeout. The threads own their streams
  and close them themselves at end of file: closing a stream another thread is reading would block (or
  raise in that thread), so ``kill`` never does it.
* Lines are capped (``MAX_LINE_BYTES``): a child that writes gigabytes without a newline costs a bounded
  amount of memory and its answer is reported as oversized.
* Writes go straight to the non-blocking stdin descriptor, polled against the deadline, so a child that
  stops reading can never block the harness, however large the scenario.
* The child leads its own process group, and ``kill`` kills the whole group even when the leader has
  already exited: a grandchild that inherited stdout would otherwise keep the pipe open (and run) forever.
  To make that safe the leader is never reaped before the group is killed (its exit is observed with
  ``waitid(WNOWAIT)``), so its pid, which is the group id, cannot be reused by an unrelated process.
* Once the leader has exited, ``receive`` gives up after a short grace even if a grandchild holds stdout
  open, instead of waiting for the case's whole timeout.
* The child does not outlive the harness (issue 23): a live child is listed in ``stopping.LIVE``, whose
  SIGTERM, SIGHUP and Ctrl-C handler kills its group; for a harness killed by SIGKILL, which runs no
  handler, the Linux kernel sends the leader SIGKILL itself (``PR_SET_PDEATHSIG``, set in the child
  between fork and exec). Only for children started from the main thread: the kernel sends that signal
  when the *thread* that started the child ends.
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import queue
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import IO, Any

from conformance import stopping

EOF_MARK = object()
MAX_LINE_BYTES = 256 * 1024 * 1024
"""The longest stdout line read (an answer, with its record); longer ones are discarded and reported."""
EXIT_GRACE = 1.0
"""Seconds ``receive`` keeps reading after the leader exited (to collect what it wrote last)."""
_STDERR_LINES = 40
_STDERR_CHARS = 2_000
_STDERR_PIECE = 8192
_DISCARD_CHUNK = 1024 * 1024
_KILL_WAIT = 5.0
_PUMP_JOIN = 1.0
_POLL = 0.05


@dataclass(frozen=True)
class OversizedLine:
    """Stands in the queue for a stdout line longer than the cap (its bytes were discarded)."""

    size: int


class UnsendableMessage(ValueError):
    """The message cannot be written as strict JSON (NaN, infinities, nesting too deep)."""


def encode_message(message: dict[str, Any]) -> bytes:
    """One strict JSON line: NaN and infinities are refused, since other languages' parsers reject them."""
    try:
        return (json.dumps(message, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")
    except ValueError as exc:
        raise UnsendableMessage(f"not valid JSON: {exc}") from exc
    except RecursionError:
        raise UnsendableMessage("nested too deeply to write as JSON") from None


def describe_exit(code: int | None) -> str:
    """How a process ended, in words: ``exited (code 3)``, ``was killed by SIGSEGV (signal 11)``."""
    if code is None:
        return "exited"
    if code < 0:
        return f"was killed by {_signal_name(-code)} (signal {-code})"
    if 128 < code < 128 + signal.NSIG and _signal_name(code - 128).startswith("SIG"):
        return f"exited (code {code}, as a shell reports a process killed by {_signal_name(code - 128)})"
    return f"exited (code {code})"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


_PR_SET_PDEATHSIG = 1  # linux/prctl.h


@cache
def _prctl() -> Any:
    """libc's ``prctl`` (Linux only; None elsewhere or when it cannot be found), loaded before any fork."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


def die_with_parent() -> Callable[[], None] | None:
    """A ``preexec_fn`` that has the kernel SIGKILL the child when the harness dies, or None where that
    cannot be promised (not Linux, or not the main thread: see the module docstring)."""
    prctl = _prctl()
    if prctl is None or threading.current_thread() is not threading.main_thread():
        return None
    parent = os.getpid()

    def in_child() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # the harness died before the line above took effect
            os._exit(1)

    return in_child


def signal_on_parent_death(number: int) -> None:
    """Have the kernel send this process ``number`` when the thread that started it ends (Linux only; a
    no-op elsewhere). The worker processes of ``run --jobs`` use it, so none outlives the harness."""
    prctl = _prctl()
    if prctl is not None:
        prctl(_PR_SET_PDEATHSIG, number, 0, 0, 0)


class ChildProcess:
    def __init__(
        self,
        argv: list[str],
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        *,
        max_line_bytes: int = MAX_LINE_BYTES,
    ) -> None:
        self.argv = argv
        self._max_line = max_line_bytes
        self._proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=env,
            start_new_session=True,
            preexec_fn=die_with_parent(),
        )
        stopping.LIVE.add(self)
        self._pgid = self._proc.pid  # start_new_session: the leader's pid is the group id
        assert self._proc.stdin is not None and self._proc.stdout is not None
        assert self._proc.stderr is not None
        self._stdin_fd: int | None = self._proc.stdin.fileno()
        os.set_blocking(self._stdin_fd, False)
        self._lines: queue.Queue[object] = queue.Queue()
        self._eof = False
        self._exited_at: float | None = None
        self._stderr: collections.deque[str] = collections.deque(maxlen=_STDERR_LINES)
        self._pumps = [
            threading.Thread(target=self._pump_stdout, args=(self._proc.stdout,), daemon=True),
            threading.Thread(target=self._pump_stderr, args=(self._proc.stderr,), daemon=True),
        ]
        for pump in self._pumps:
            pump.start()

    # -- reading -------------------------------------------------------------------------------------
    def _pump_stdout(self, stream: IO[bytes]) -> None:
        try:
            while raw := stream.readline(self._max_line + 1):
                if len(raw) > self._max_line and not raw.endswith(b"\n"):
                    self._lines.put(OversizedLine(len(raw) + self._discard_rest_of_line(stream)))
                else:
                    self._lines.put(raw.decode("utf-8", errors="replace"))
        except (OSError, ValueError):
            pass  # the stream broke; end of output is all the harness needs to know
        finally:
            self._lines.put(EOF_MARK)
            with contextlib.suppress(OSError):
                stream.close()

    @staticmethod
    def _discard_rest_of_line(stream: IO[bytes]) -> int:
        skipped = 0
        while chunk := stream.readline(_DISCARD_CHUNK):
            skipped += len(chunk)
            if chunk.endswith(b"\n"):
                break
        return skipped

    def _pump_stderr(self, stream: IO[bytes]) -> None:
        try:
            while raw := stream.readline(_STDERR_PIECE):
                self._stderr.append(raw.decode("utf-8", errors="replace").rstrip("\n"))
        except (OSError, ValueError):
            pass
        finally:
            with contextlib.suppress(OSError):
                stream.close()

    def receive(self, deadline: float) -> str | OversizedLine | None:
        """The next stdout line; None at end of output, or once the leader has exited and nothing more
        came for ``EXIT_GRACE`` seconds; raises TimeoutError once ``deadline`` passes."""
        if self._eof:
            return None
        while True:
            now = time.monotonic()
            if now >= deadline:
                raise TimeoutError
            try:
                item = self._lines.get(timeout=min(deadline - now, _POLL * 4))
            except queue.Empty:
                if self.exit_code() is not None:
                    self._exited_at = self._exited_at or now
                    if now - self._exited_at >= EXIT_GRACE:
                        return None
                continue
            if item is EOF_MARK:
                self._eof = True
                return None
            return item if isinstance(item, OversizedLine) else str(item)

    def drain(self) -> list[str | OversizedLine]:
        """Lines already waiting (written when nobody asked); sets ``at_eof`` if the output ended."""
        pending: list[str | OversizedLine] = []
        while not self._eof:
            try:
                item = self._lines.get_nowait()
            except queue.Empty:
                break
            if item is EOF_MARK:
                self._eof = True
            else:
                pending.append(item if isinstance(item, OversizedLine) else str(item))
        return pending

    @property
    def at_eof(self) -> bool:
        return self._eof

    # -- writing -------------------------------------------------------------------------------------
    def send(self, message: dict[str, Any], deadline: float | None = None) -> None:
        """Write one JSON line. Raises ``UnsendableMessage`` (nothing written) for a message JSON cannot
        carry, OSError when the child is gone, TimeoutError when it stops reading before ``deadline``."""
        data = memoryview(encode_message(message))
        fd = self._stdin_fd
        if fd is None:
            raise BrokenPipeError("the process's stdin is closed")
        if deadline is not None and time.monotonic() >= deadline:
            raise TimeoutError
        # Usually the whole message fits in the pipe at once: one write, no poll.
        try:
            data = data[os.write(fd, data) :]
        except BlockingIOError:
            pass  # the pipe is full: wait for room below
        except BrokenPipeError:
            raise BrokenPipeError("the process closed its stdin") from None
        if not data:
            return
        poller = select.poll()
        poller.register(fd, select.POLLOUT)
        while data:
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                raise TimeoutError
            events = poller.poll(None if remaining is None else max(1, int(remaining * 1000)))
            if not events:
                raise TimeoutError
            if any(flag & (select.POLLERR | select.POLLNVAL) for _, flag in events):
                raise BrokenPipeError("the process closed its stdin")
            try:
                written = os.write(fd, data)
            except BlockingIOError:
                continue
            data = data[written:]

    # -- the process ---------------------------------------------------------------------------------
    def exit_code(self) -> int | None:
        """The leader's exit status (negative: the signal that killed it); None while it runs.

        Observed without reaping the leader, so its pid (the group id) stays ours until ``kill``.
        """
        if self._proc.returncode is not None:
            return self._proc.returncode
        if not hasattr(os, "waitid"):  # pragma: no cover - macOS: reaping is the only way to look
            return self._proc.poll()
        try:
            info = os.waitid(os.P_PID, self._proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return self._proc.poll()
        if info is None or info.si_pid == 0:
            return None
        return int(info.si_status) if info.si_code == os.CLD_EXITED else -int(info.si_status)

    @property
    def alive(self) -> bool:
        return self.exit_code() is None

    @property
    def returncode(self) -> int | None:
        return self.exit_code()

    def wait_exit(self, timeout: float) -> int | None:
        """The exit status once the leader exits, or None if it still runs after ``timeout`` seconds."""
        end = time.monotonic() + timeout
        while True:
            code = self.exit_code()
            if code is not None or time.monotonic() >= end:
                return code
            time.sleep(min(_POLL / 5, max(0.0, end - time.monotonic())))

    def stderr_tail(self) -> str:
        # A child that just died may still have its last words in the pipe: wait (briefly) for them.
        self._pumps[1].join(_PUMP_JOIN / 2 if self.exit_code() is not None else 0.05)
        text = "\n".join(self._stderr)
        return text if len(text) <= _STDERR_CHARS else "..." + text[-_STDERR_CHARS:]

    def kill_group(self) -> None:
        """SIGKILL the whole group now, without waiting or reaping (safe inside a signal handler)."""
        if self._proc.returncode is None:  # not reaped, so the group id is still ours
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self._pgid, signal.SIGKILL)

    def kill(self) -> None:
        """Kill the whole process group, reap the leader and end the reader threads, in bounded time.

        Safe to call more than once. A grandchild that left the group (``setsid``) and still holds
        stdout open is beyond reach; its reader thread is abandoned (it is a daemon) rather than waited for.
        """
        if self._proc.returncode is None:  # not reaped yet, so the group id is still ours
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self._pgid, signal.SIGKILL)
            with contextlib.suppress(ProcessLookupError):
                self._proc.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._proc.wait(timeout=_KILL_WAIT)
        stopping.LIVE.discard(self)
        if self._stdin_fd is not None and self._proc.stdin is not None:
            self._stdin_fd = None
            with contextlib.suppress(OSError):
                self._proc.stdin.close()  # non-blocking and never buffered by us: cannot hang
        for pump in self._pumps:
            pump.join(_PUMP_JOIN)
