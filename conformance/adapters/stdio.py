"""``stdio:<command>``: an implementation in any language, as a long-lived child process.

The conversation follows ``conformance.protocol``: hello (the protocol version is negotiated: we offer
``PROTOCOL_VERSIONS`` and the child picks one), then one ``run`` per case, then ``stop``. Anything other
than a well-formed, correctly numbered answer within the case's timeout (a crash, a hang, a line that is
not JSON, a wrong ``seq``, a record that breaks the record schema) becomes that case's ``error`` outcome;
the child is then killed, because its state can no longer be trusted, and a fresh one is started (and
greeted again) for the next case. The reason includes the tail of the child's stderr.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import shlex
import time
from typing import Any

from pydantic import ValidationError

from conformance.adapters.base import DEFAULT_TIMEOUT, AdapterError, Outcome
from conformance.adapters.process import ChildProcess
from conformance.protocol import PROTOCOL_VERSIONS, HelloResponse, ImplementationInfo, RunResponse

_EXCERPT = 200


def command_argv(command: str) -> list[str]:
    """Split the command as a POSIX shell would; the program is found on PATH like any other.

    ``python3`` is whatever ``python3`` the user's PATH gives, never silently this interpreter (under nox,
    PATH starts with the session's environment). docs/testing-your-runtime.md says so.
    """
    argv = shlex.split(command)
    if not argv:
        raise AdapterError("stdio adapter needs a command: stdio:<command>")
    return argv


def _validation_summary(exc: ValidationError) -> str:
    parts = [f"field {'.'.join(map(str, e['loc'])) or '(message)'}: {e['msg']}" for e in exc.errors()[:3]]
    more = f" (+{exc.error_count() - 3} more)" if exc.error_count() > 3 else ""
    return "; ".join(parts) + more


class StdioAdapter:
    def __init__(
        self,
        argv: list[str],
        *,
        hello_timeout: float = DEFAULT_TIMEOUT,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        self.argv = argv
        self.hello_timeout = hello_timeout
        self._cwd, self._env = cwd, env
        self._child: ChildProcess | None = None
        self._info: ImplementationInfo | None = None
        self._seq = itertools.count(1)
        self.starts = 0
        """How many times a child was started (1 + the restarts after crashes and timeouts)."""

    # -- lifecycle -----------------------------------------------------------------------------------
    def _start(self) -> ChildProcess:
        try:
            child = ChildProcess(self.argv, self._cwd, self._env)
        except OSError as exc:
            raise AdapterError(f"cannot start {shlex.join(self.argv)}: {exc}") from exc
        self.starts += 1
        try:
            self._info = self._handshake(child)
        except AdapterError:
            child.kill()
            raise
        self._child = child
        return child

    def _handshake(self, child: ChildProcess) -> ImplementationInfo:
        where = f"{shlex.join(self.argv)}: hello"
        try:
            deadline = time.monotonic() + self.hello_timeout
            child.send({"cmd": "hello", "protocol": list(PROTOCOL_VERSIONS)}, deadline)
            line = self._next_line(child, deadline)
        except TimeoutError:
            raise AdapterError(
                f"{where}: no answer within {self.hello_timeout:g}s{self._tail(child)}"
            ) from None
        except OSError as exc:
            raise AdapterError(f"{where}: cannot write ({exc}){self._tail(child)}") from exc
        if line is None:
            raise AdapterError(f"{where}: the process exited (code {child.wait_exit(1)}){self._tail(child)}")
        try:
            answer = HelloResponse.model_validate_json(line)
        except ValidationError as exc:
            raise AdapterError(
                f"{where}: unexpected answer {line.strip()[:_EXCERPT]!r}: {_validation_summary(exc)}"
            ) from exc
        if answer.protocol not in PROTOCOL_VERSIONS:
            raise AdapterError(
                f"{where}: chose protocol {answer.protocol}, we offered {list(PROTOCOL_VERSIONS)}"
            )
        return answer.implementation

    def hello(self) -> ImplementationInfo:
        """Start the child and greet it, once; after a restart the first greeting's answer stands."""
        if self._info is None:
            self._start()
        assert self._info is not None
        return self._info

    def close(self) -> None:
        child, self._child = self._child, None
        if child is None:
            return
        if child.alive:
            with contextlib.suppress(OSError):
                child.send({"cmd": "stop"})
            child.wait_exit(2.0)
        child.kill()

    # -- one case ------------------------------------------------------------------------------------
    def run(self, payload: dict[str, Any], timeout: float) -> Outcome:
        child = self._child
        if child is None or not child.alive:
            if child is not None:
                child.kill()
            try:
                child = self._start()
            except AdapterError as exc:
                return Outcome(error=f"could not (re)start the implementation: {exc}")
        seq = next(self._seq)
        try:
            deadline = time.monotonic() + timeout
            child.send({"cmd": "run", "seq": seq, "case": payload}, deadline)
            line = self._next_line(child, deadline)
        except TimeoutError:
            return self._abandon(child, f"timeout: no answer within {timeout:g}s")
        except OSError as exc:
            return self._abandon(child, f"cannot write to the process ({exc})")
        if line is None:
            return self._abandon(child, f"the process exited (code {child.wait_exit(1)}) before answering")
        return self._interpret(child, line, seq)

    def _interpret(self, child: ChildProcess, line: str, seq: int) -> Outcome:
        excerpt = line.strip()[:_EXCERPT]
        try:
            answer = RunResponse.model_validate_json(line)
        except ValidationError as exc:
            kind = "not JSON" if exc.errors()[0]["type"] == "json_invalid" else "not a valid run answer"
            return self._abandon(child, f"answer is {kind}: {_validation_summary(exc)}; line: {excerpt!r}")
        if answer.seq != seq:
            return self._abandon(child, f"answer has seq {answer.seq}, expected {seq}")
        given = [name for name in ("record", "skip", "error") if getattr(answer, name) is not None]
        if len(given) != 1:
            return self._abandon(
                child, f"answer must hold exactly one of record, skip, error; got {given or 'none'}"
            )
        if answer.skip is not None:
            return Outcome(skip=answer.skip.reason)
        if answer.error is not None:
            return Outcome(error=f"the implementation reported: {answer.error.message}")
        raw: dict[str, Any] = json.loads(line)["record"]
        return Outcome(record=raw)

    def _next_line(self, child: ChildProcess, deadline: float) -> str | None:
        while True:
            line = child.receive(deadline)
            if line is None or line.strip():
                return line

    def _abandon(self, child: ChildProcess, reason: str) -> Outcome:
        """Kill the child (it is restarted on the next case) and describe why, with its stderr tail."""
        child.kill()
        self._child = None
        return Outcome(error=reason + self._tail(child))

    @staticmethod
    def _tail(child: ChildProcess) -> str:
        tail = child.stderr_tail()
        return f"\nstderr (tail):\n{tail}" if tail else ""
