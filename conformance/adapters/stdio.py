"""``stdio:<command>``: an implementation in any language, as a long-lived child process.

The conversation follows ``conformance.protocol``: hello (the protocol version is negotiated: we offer
``PROTOCOL_VERSIONS`` and the child picks one), then one ``run`` per case, then ``stop``. Anything other
than a well-formed, correctly numbered answer within the case's timeout (a crash, a hang, a line that is
not JSON, a wrong ``seq``, a record that breaks the record schema) becomes that case's ``error`` outcome;
the child is then killed, because its state can no longer be trusted, and a fresh one is started (and
greeted again) for the next case. The reason includes the tail of the child's stderr, and a death by
signal is named (``killed by SIGSEGV``).

Answers are matched to cases by ``seq``, so a stray line can never be taken for the next case's answer:

* lines written between cases (nobody asked) are dropped before the next ``run`` is sent;
* during a case, an answer to an earlier case (a smaller ``seq``) is dropped as stale;
* a line that is not an answer at all (a log line on stdout) is tolerated for ``STRAY_GRACE`` seconds in
  case the real answer follows; if it does not, the case is an error quoting that line.

Dropped lines are kept in ``diagnostics`` (the most recent ``_DIAGNOSTICS``) and quoted in later errors.

A circuit breaker stops a run from spending the timeout on every remaining case of an implementation
that is dead: after ``max_failures`` consecutive cases in which the child had to be killed or could not
be started, the remaining cases are not played and each is an ``error`` with one reason.
"""

from __future__ import annotations

import collections
import contextlib
import itertools
import json
import shlex
import time
from typing import Any

from pydantic import ValidationError

from conformance.adapters.base import DEFAULT_TIMEOUT, AdapterError, Outcome
from conformance.adapters.process import (
    MAX_LINE_BYTES,
    ChildProcess,
    OversizedLine,
    UnsendableMessage,
    describe_exit,
)
from conformance.protocol import PROTOCOL_VERSIONS, HelloResponse, ImplementationInfo, RunResponse
from conformance.record import Record

_EXCERPT = 200
_DIAGNOSTICS = 20
STRAY_GRACE = 2.0
"""Seconds a case keeps waiting for its answer after the child wrote a line that is not one."""
MAX_CONSECUTIVE_FAILURES = 5
"""The circuit breaker's default: this many killed-or-unstartable cases in a row stop the run asking."""


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
        max_failures: int = MAX_CONSECUTIVE_FAILURES,
        max_line_bytes: int = MAX_LINE_BYTES,
        stray_grace: float = STRAY_GRACE,
    ) -> None:
        self.argv = argv
        self.hello_timeout = hello_timeout
        self.max_failures = max_failures
        self.max_line_bytes = max_line_bytes
        self.stray_grace = stray_grace
        """Consecutive killed-or-unstartable cases that open the circuit breaker (0: never)."""
        self._cwd, self._env = cwd, env
        self._child: ChildProcess | None = None
        self._info: ImplementationInfo | None = None
        self._seq = itertools.count(1)
        self._failures = 0
        self._broken: str | None = None
        self.starts = 0
        """How many times a child was started (1 + the restarts after crashes and timeouts)."""
        self.diagnostics: collections.deque[str] = collections.deque(maxlen=_DIAGNOSTICS)
        """Lines the child wrote that answered nothing (stray or stale), newest last."""

    # -- lifecycle -----------------------------------------------------------------------------------
    def _start(self) -> ChildProcess:
        try:
            child = ChildProcess(self.argv, self._cwd, self._env, max_line_bytes=self.max_line_bytes)
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
            code = child.wait_exit(1)
            raise AdapterError(f"{where}: the process {describe_exit(code)}{self._tail(child)}")
        if isinstance(line, OversizedLine):
            raise AdapterError(f"{where}: an answer of {line.size:,} bytes, over the limit")
        try:
            answer = HelloResponse.model_validate(_strict_json(line))
        except (ValidationError, ValueError) as exc:
            raise AdapterError(
                f"{where}: unexpected answer {line.strip()[:_EXCERPT]!r}: {_problem(exc)}"
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
            with contextlib.suppress(OSError, TimeoutError):
                child.send({"cmd": "stop"}, time.monotonic() + 1.0)
            child.wait_exit(2.0)
        child.kill()

    # -- one case ------------------------------------------------------------------------------------
    def run(self, payload: dict[str, Any], timeout: float) -> Outcome:
        if self._broken is not None:
            return Outcome(error=self._broken)
        outcome, died = self._play(payload, timeout)
        self._failures = self._failures + 1 if died else 0
        if died and self.max_failures and self._failures >= self.max_failures:
            last = (outcome.error or "").splitlines()[0]
            self._broken = (
                f"not played: the implementation failed {self._failures} cases in a row (it crashed, "
                f"hung, broke the protocol or could not start), so the run stopped asking it; "
                f"the last failure: {last}"
            )
            self.close()
        return outcome

    def _play(self, payload: dict[str, Any], timeout: float) -> tuple[Outcome, bool]:
        """The case's outcome, and whether the child died or had to be killed for it."""
        child = self._child
        if child is not None:
            self._note_stray(child.drain(), "between cases")
            if child.at_eof or not child.alive:
                child.kill()  # it died after its last answer: not this case's fault, start afresh
                self._child = child = None
        if child is None:
            try:
                child = self._start()
            except AdapterError as exc:
                return Outcome(error=f"could not (re)start the implementation: {exc}"), True
            fresh = True
        else:
            fresh = False
        seq = next(self._seq)
        deadline = time.monotonic() + timeout
        try:
            child.send({"cmd": "run", "seq": seq, "case": payload}, deadline)
        except UnsendableMessage as exc:
            return Outcome(error=f"the scenario cannot be sent: {exc}"), False
        except TimeoutError:
            return self._abandon(child, f"timeout: the process read nothing for {timeout:g}s"), True
        except OSError as exc:
            if not fresh:  # it went away after its last answer, before this case: not this case's fault
                self._abandon(child, "")
                return self._play(payload, timeout)
            return self._abandon(child, f"cannot write to the process ({exc})"), True
        return self._await_answer(child, seq, deadline, timeout)

    def _await_answer(
        self, child: ChildProcess, seq: int, deadline: float, timeout: float
    ) -> tuple[Outcome, bool]:
        strays: list[str] = []
        grace_end: float | None = None
        while True:
            try:
                line = self._next_line(child, deadline if grace_end is None else min(deadline, grace_end))
            except TimeoutError:
                if strays:
                    return self._abandon(child, f"no answer: {_quote_strays(strays)}"), True
                return self._abandon(child, f"timeout: no answer within {timeout:g}s"), True
            if line is None:
                code = child.wait_exit(1)
                extra = f"; before that: {_quote_strays(strays)}" if strays else ""
                reason = f"the process {describe_exit(code)} before answering{extra}"
                return self._abandon(child, reason), True
            if isinstance(line, OversizedLine):
                return self._abandon(
                    child, f"the answer is {line.size:,} bytes, over the {self.max_line_bytes:,}-byte limit"
                ), True
            kind, detail, parsed = _classify(line, seq)
            if kind == "answer":
                return self._interpret(child, line, parsed)
            if kind == "stale":
                self._note_stray([line], f"stale answer during seq {seq}")
                continue
            if kind == "ahead":
                return self._abandon(child, detail), True
            strays.append(f"{detail}: {line.strip()[:_EXCERPT]!r}")
            self._note_stray([line], f"during seq {seq}")
            if grace_end is None:
                grace_end = time.monotonic() + self.stray_grace

    def _interpret(self, child: ChildProcess, line: str, parsed: Any) -> tuple[Outcome, bool]:
        """``parsed``: the line as ``_classify`` parsed it (``_NOT_JSON`` when it is not strict JSON), so a
        large record is decoded once."""
        excerpt = line.strip()[:_EXCERPT]
        try:
            raw = _strict_json(line) if parsed is _NOT_JSON else parsed
            answer = _run_response(raw)
        except (ValidationError, ValueError) as exc:
            reason = f"answer is not a valid run answer: {_problem(exc)}; line: {excerpt!r}"
            return self._abandon(child, reason), True
        given = [name for name in ("record", "skip", "error") if getattr(answer, name) is not None]
        if len(given) != 1:
            return self._abandon(
                child, f"answer must hold exactly one of record, skip, error; got {given or 'none'}"
            ), True
        if answer.skip is not None:
            return Outcome(skip=answer.skip.reason), False
        if answer.error is not None:
            return Outcome(error=f"the implementation reported: {answer.error.message}"), False
        record: dict[str, Any] = raw["record"]
        return Outcome(record=record), False

    @staticmethod
    def _next_line(child: ChildProcess, deadline: float) -> str | OversizedLine | None:
        while True:
            line = child.receive(deadline)
            if line is None or isinstance(line, OversizedLine) or line.strip():
                return line

    def _note_stray(self, lines: list[str | OversizedLine], when: str) -> None:
        for line in lines:
            if isinstance(line, str) and not line.strip():
                continue
            text = f"<{line.size:,} bytes>" if isinstance(line, OversizedLine) else line.strip()[:_EXCERPT]
            self.diagnostics.append(f"{when}: {text}")

    def _abandon(self, child: ChildProcess, reason: str) -> Outcome:
        """Kill the child (it is restarted on the next case) and describe why, with its stderr tail."""
        tail = self._tail(child)
        child.kill()
        self._child = None
        return Outcome(error=reason + tail)

    @staticmethod
    def _tail(child: ChildProcess) -> str:
        tail = child.stderr_tail()
        return f"\nstderr (tail):\n{tail}" if tail else ""


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _strict_json(line: str) -> Any:
    """Parse one line as strict JSON (no NaN or infinities); ValueError says why it is not."""
    try:
        return json.loads(line, parse_constant=_reject_constant)
    except RecursionError:
        raise ValueError("not JSON (nested too deeply for this harness)") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON: {exc}") from None


def _plain_record(record: Any) -> bool:
    """Whether ``record`` passes ``conformance.record.Record`` as it is: an object of ``events`` (objects
    with a non-empty text ``type``) and optionally a ``final`` object, nothing else."""
    if type(record) is not dict or not record.keys() <= {"events", "final"}:
        return False
    events, final = record.get("events"), record.get("final", {})
    return (
        type(events) is list
        and type(final) is dict
        and all(type(e) is dict and type(e.get("type")) is str and e["type"] for e in events)
    )


_SET_ASIDE = Record.model_construct(events=[], final={})
"""Stands for a record that ``_run_response`` checked by hand and left as parsed (never read)."""


def _run_response(raw: Any) -> RunResponse:
    """``RunResponse.model_validate(raw)``, without building a model of every event of a record that
    plainly passes (the record is used as parsed, and the runner checks it against the record schema):
    the answer is validated with the record set aside, and the record put back unchanged."""
    if type(raw) is dict and _plain_record(raw.get("record")):
        if raw.keys() == {"seq", "record"} and type(raw["seq"]) is int:
            # The usual answer, which the model can only accept: nothing left to validate.
            return RunResponse.model_construct(seq=raw["seq"], record=_SET_ASIDE)
        answer = RunResponse.model_validate({**raw, "record": None})
        answer.record = _SET_ASIDE
        return answer
    return RunResponse.model_validate(raw)


_NOT_JSON: Any = object()
"""``_classify``'s parsed value for a line that is not strict JSON."""


def _classify(line: str, seq: int) -> tuple[str, str, Any]:
    """answer | stale | ahead | stray, for the last two what is wrong with the line, and the line parsed
    (``_NOT_JSON`` when it is not strict JSON)."""
    try:
        value = _strict_json(line)
    except ValueError as exc:
        # Meant as this case's answer (its seq matches) but not strict JSON: the answer is broken, say
        # so now rather than waiting for another one.
        if _lenient_seq(line) == seq:
            return "answer", "", _NOT_JSON
        return "stray", str(exc).split(":", 1)[0], _NOT_JSON
    if not isinstance(value, dict) or "seq" not in value:
        return "stray", "not a protocol answer (no seq)", value
    got = value["seq"]
    if not isinstance(got, int) or isinstance(got, bool):
        return "stray", f"seq {got!r} is not an integer", value
    if got == seq:
        return "answer", "", value
    if got < seq:
        return "stale", "", value
    return "ahead", f"answer has seq {got}, expected {seq}", value


def _lenient_seq(line: str) -> object:
    """The ``seq`` of a line that is almost JSON (NaN and the like), else None."""
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return value.get("seq") if isinstance(value, dict) else None


def _quote_strays(strays: list[str]) -> str:
    more = f" (+{len(strays) - 1} more)" if len(strays) > 1 else ""
    return f"the process wrote a line that is not an answer ({strays[0]}){more}"


def _problem(exc: Exception) -> str:
    return _validation_summary(exc) if isinstance(exc, ValidationError) else str(exc)
