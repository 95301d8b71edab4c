"""A child process speaking newline-delimited JSON, read without ever blocking the harness.

Two daemon threads drain the child's stdout (into a queue, one line per item) and stderr (into a bounded
tail kept for error messages). The harness then waits on the queue with a deadline, so a child that
hangs, floods stderr or never flushes costs at most the case's timeout. The child gets its own process
group so killing it also kills anything it spawned (``npm``, shells, bridges).
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import queue
import signal
import subprocess
import threading
import time
from typing import IO, Any

EOF_MARK = object()
_STDERR_LINES = 40
_STDERR_CHARS = 2_000
#: Linux pipes buffer 64 KiB; the child has read everything before (it answered), so this much cannot block.
_DIRECT_WRITE_BYTES = 16 * 1024


class ChildProcess:
    def __init__(self, argv: list[str], cwd: str | None = None, env: dict[str, str] | None = None) -> None:
        self.argv = argv
        self._proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=env,
            start_new_session=True,
        )
        self._lines: queue.Queue[object] = queue.Queue()
        self._stderr: collections.deque[str] = collections.deque(maxlen=_STDERR_LINES)
        assert self._proc.stdout is not None and self._proc.stderr is not None
        threading.Thread(target=self._pump_stdout, args=(self._proc.stdout,), daemon=True).start()
        threading.Thread(target=self._pump_stderr, args=(self._proc.stderr,), daemon=True).start()

    def _pump_stdout(self, stream: IO[bytes]) -> None:
        for raw in iter(stream.readline, b""):
            self._lines.put(raw.decode("utf-8", errors="replace"))
        self._lines.put(EOF_MARK)

    def _pump_stderr(self, stream: IO[bytes]) -> None:
        for raw in iter(stream.readline, b""):
            self._stderr.append(raw.decode("utf-8", errors="replace").rstrip("\n"))

    @property
    def alive(self) -> bool:
        return self._proc.poll() is None

    @property
    def returncode(self) -> int | None:
        return self._proc.poll()

    def send(self, message: dict[str, Any], deadline: float | None = None) -> None:
        """Write one JSON line. Raises OSError when the child is gone, TimeoutError when it stops reading.

        The write happens on a helper thread: a child that never reads its stdin would otherwise block
        the harness forever once the pipe buffer (64 KiB) is full, and scenarios can be larger than that.
        """
        data = (json.dumps(message, ensure_ascii=False) + "\n").encode("utf-8")
        if len(data) <= _DIRECT_WRITE_BYTES:  # fits the (empty) pipe buffer: cannot block, skip the thread
            assert self._proc.stdin is not None
            try:
                self._proc.stdin.write(data)
                self._proc.stdin.flush()
            except ValueError as exc:  # the pipe was already closed by kill()
                raise BrokenPipeError(str(exc)) from exc
            return
        failure: list[OSError] = []

        def write() -> None:
            assert self._proc.stdin is not None
            try:
                self._proc.stdin.write(data)
                self._proc.stdin.flush()
            except (OSError, ValueError) as exc:
                failure.append(exc if isinstance(exc, OSError) else BrokenPipeError(str(exc)))

        writer = threading.Thread(target=write, daemon=True)
        writer.start()
        writer.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
        if writer.is_alive():
            raise TimeoutError
        if failure:
            raise failure[0]

    def receive(self, deadline: float) -> str | None:
        """The next stdout line, None at end of output; raises TimeoutError once ``deadline`` passes."""
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError
        try:
            item = self._lines.get(timeout=remaining)
        except queue.Empty:
            raise TimeoutError from None
        return None if item is EOF_MARK else str(item)

    def wait_exit(self, timeout: float) -> int | None:
        try:
            return self._proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def stderr_tail(self) -> str:
        time.sleep(0.02)  # let the stderr thread catch the last words of a child that just died
        text = "\n".join(self._stderr)
        return text if len(text) <= _STDERR_CHARS else "..." + text[-_STDERR_CHARS:]

    def kill(self) -> None:
        if self.alive:
            try:
                os.killpg(self._proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                self._proc.kill()
        self._proc.wait()
        for stream in (self._proc.stdin, self._proc.stdout, self._proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
