"""Generated code is contained: time and memory are bounded, hostile values never crash the host, and the
host's plumbing cannot be reached or forged from the program.

Heavy cases run under small explicit limits (``SMALL``: a 0.5 s budget, a 32 MiB heap) and assert the
outcome, never a duration. The memory cap of the worker process is checked from its peak resident size.
"""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from reference.llmz import containment, kernel
from reference.llmz.preview import UNDEFINED
from reference.llmz.sandbox import PayloadError, decode, encode_value, load_bounded, run_program

SMALL = containment.Limits(budget=0.5, backstop=10.0, heap=32 * 1024 * 1024)
WORKER_PEAK_CAP = 160 * 1024 * 1024
"""Peak resident size a worker may reach running a 32 MiB-heap program (the interpreter itself included)."""


class Recording:
    """A bridge that records what reaches the host and answers every tool with ``ok``."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.failures: list[str] = []

    def tool(self, name: str, input_json: str | None, line: int | None) -> str:
        self.calls.append((name, input_json))
        return encode_value("ok")

    def exit(self, name: str, payload_json: str | None) -> str:
        self.calls.append(("exit:" + name, payload_json))
        return encode_value(UNDEFINED)

    def component(self, name: str, props_json: str | None) -> str:
        return encode_value(UNDEFINED)

    def inspect(self, value_json: str | None) -> str | None:
        self.calls.append(("inspect", value_json))
        return None

    def internal_failure(self, message: str) -> None:
        self.failures.append(message)


def run(code: str, bridge: Any = None, limits: containment.Limits = SMALL) -> Any:
    return run_program(code, bridge or Recording(), ["t"], chat=False, limits=limits)


def _worker_pids() -> list[int]:
    """This process's worker children, from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == os.getpid() and b"jsworker.py" in cmdline:
            found.append(int(entry.name))
    return found


def _peak_rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM")


# -- time -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "code",
    [
        "while (true) {}",
        "try { while (true) {} } catch (e) {}\nreturn 1",
        "const spin = () => { Promise.resolve().then(spin) }\nspin()\nawait new Promise(() => {})",
        "while (true) await null",
    ],
    ids=["busy-loop", "caught-busy-loop", "microtask-storm", "await-loop"],
)
def test_a_program_that_keeps_running_is_stopped_by_its_budget(code: str) -> None:
    outcome = run(code)
    assert outcome.stopped == "timeout"
    assert not outcome.settled


def test_without_a_budget_the_backstop_stops_the_worker_and_says_so() -> None:
    outcome = run("while (true) {}", limits=containment.Limits(budget=None, backstop=0.5))
    assert outcome.stopped == "died"
    assert "backstop" in outcome.stop_reason


def test_a_worker_that_dies_is_reported_in_words_and_replaced() -> None:
    killed: list[int] = []

    class Killer(Recording):
        def tool(self, name: str, input_json: str | None, line: int | None) -> str:
            for pid in _worker_pids():
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            return super().tool(name, input_json, line)

    outcome = run("await t({})\nwhile (true) {}", Killer(), limits=containment.Limits(budget=30, backstop=30))
    assert outcome.stopped == "died"
    assert "killed by SIGKILL" in outcome.stop_reason
    # The kill also hit idle workers; under load one may not have finished dying when the next program
    # asks for a worker, and would be handed out as alive. Wait until each is dead (a zombie or gone), so
    # what is checked next is the replacement, not that race.
    for pid in killed:
        _wait_dead(pid)
    assert run("return 41 + 1").value == 42


def _wait_dead(pid: int, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return
        if state in ("Z", "X"):
            return
        time.sleep(0.01)


def test_the_budget_is_the_configured_timeout_or_the_default() -> None:
    assert containment.javascript_budget(1500) == 1.5
    assert containment.javascript_budget(None) == containment.DEFAULT_TIMEOUT_MS / 1000
    assert containment.backstop(1500) > 1.5


# -- memory -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "code",
    [
        "const hoard = []\nwhile (true) hoard.push(new Array(100000).fill(1.5))",
        "let text = 'x'\nwhile (true) text += text",
        "const hoard = []\nwhile (true) hoard.push(new ArrayBuffer(4 * 1024 * 1024))",
    ],
    ids=["arrays", "string-doubling", "buffers"],
)
def test_an_allocation_bomb_ends_as_out_of_memory_under_the_cap(code: str) -> None:
    # A worker serves one program after another, and its peak size is that of its whole life: a worker
    # that earlier played a 50 MiB text for another test would fail this check for that test's sake. Stop
    # the idle ones, so the program below starts the worker whose peak is measured.
    containment.shutdown()
    before = set(_worker_pids())
    outcome = run(code, limits=containment.Limits(budget=30, backstop=30, heap=32 * 1024 * 1024))
    assert outcome.stopped is None
    assert outcome.error is not None
    assert outcome.error["name"] == "InternalError" and "out of memory" in outcome.error["message"]
    assert not outcome.error["host"]
    pids = set(_worker_pids()) - before
    assert pids and all(_peak_rss(pid) < WORKER_PEAK_CAP for pid in pids)


def test_a_huge_inspect_reaches_the_host_as_refused_not_as_fifty_megabytes() -> None:
    bridge = Recording()
    run("inspect('x'.repeat(50 * 1024 * 1024))", bridge, limits=containment.Limits(budget=30, backstop=30))
    assert bridge.calls == [("inspect", None)]
    with pytest.raises(PayloadError, match="larger than"):
        decode(None)


def test_deep_values_are_refused_without_recursion_errors() -> None:
    deep = "[" * 5000 + "]" * 5000
    with pytest.raises(PayloadError, match="nested deeper"):
        load_bounded(deep)
    with pytest.raises(PayloadError, match="nested deeper"):
        decode(json.dumps({"value": json.loads("[" * 100 + "]" * 100)}))
    assert decode(json.dumps({"value": json.loads("[" * 60 + "]" * 60)})) is not None


def test_deep_memory_values_are_unsupported_not_a_crash() -> None:
    outcome = run("let v = {}\nfor (let i = 0; i < 500; i++) v = { v }\nreturn v")
    assert outcome.result_problem is not None and "nested deeper" in outcome.result_problem
    assert "nested deeper" in outcome.captured["v"]["error"]


def test_deep_recursion_is_a_javascript_error() -> None:
    outcome = run("const dive = (n) => dive(n + 1) + 1\ndive(0)")
    assert outcome.error is not None and not outcome.error["host"]


# -- nothing the program sends can crash the host -------------------------------------------------


def test_a_replaced_json_stringify_does_not_reach_the_host() -> None:
    bridge = Recording()
    outcome = run("JSON.stringify = () => undefined\nJSON.parse = () => 1\nreturn await t({ a: 1 })", bridge)
    assert bridge.calls == [("t", json.dumps({"value": {"a": 1}}, separators=(",", ":")))]
    assert outcome.value == "ok"


def test_lone_surrogates_cross_as_valid_text() -> None:
    bridge = Recording()
    outcome = run('exit("\\ud800", { s: "\\udc00" })', bridge)
    assert outcome.error is None
    ((name, payload),) = bridge.calls
    assert name == "exit:\ud800" and json.loads(payload or "")["value"] == {"s": "\udc00"}


def test_a_bridge_that_raises_becomes_a_typed_internal_error() -> None:
    class Broken(Recording):
        def tool(self, name: str, input_json: str | None, line: int | None) -> str:
            raise RecursionError("too deep for the host")

    bridge = Broken()
    outcome = run("await t({})", bridge)
    assert outcome.error is not None
    assert outcome.error["code"] == "INTERNAL_ERROR" and outcome.error["host"]
    assert bridge.failures and "RecursionError" in bridge.failures[0]


def test_a_bridge_answer_that_is_not_ascii_json_is_refused() -> None:
    class Odd(Recording):
        def tool(self, name: str, input_json: str | None, line: int | None) -> str:
            return json.dumps({"value": "é"}, ensure_ascii=False)

    outcome = run("await t({})", Odd())
    assert outcome.error is not None and outcome.error["code"] == "INTERNAL_ERROR"


# -- the plumbing is out of reach -----------------------------------------------------------------


def test_the_host_callables_are_not_globals() -> None:
    names = ["__host_call", "__host_settle", "__host_capture", "__host_memory", "__llmz_run", "__llmz_kernel"]
    outcome = run(f"return {json.dumps(names)}.map((n) => typeof globalThis[n])")
    assert outcome.value == ["undefined"] * len(names)


@pytest.mark.parametrize(
    "code",
    [
        "Promise.prototype.then = function (ok) { ok(42) }\nthrow new Error('boom')",
        "Object.prototype.toJSON = function () { return { ok: true, none: true } }\nthrow new Error('boom')",
        "Array.prototype.toJSON = () => []\n"
        "Object.defineProperty(Object.prototype, 'ok', { get: () => true })\nthrow new Error('boom')",
        "Object.defineProperty(Promise.prototype, 'constructor', { get() { throw new Error('x') } })\n"
        "throw new Error('boom')",
        "try { __llmz_capture({}) } catch (e) {}\nthrow new Error('boom')",
    ],
    ids=["then", "object-to-json", "array-to-json", "species", "capture-hook"],
)
def test_a_program_that_threw_stays_failed_whatever_it_replaced(code: str) -> None:
    outcome = run(code)
    assert outcome.settled
    assert outcome.error is not None and outcome.error["message"] == "boom"


def test_the_run_hook_is_one_shot() -> None:
    outcome = run("return typeof __llmz_run")
    assert outcome.value == "undefined"


@pytest.mark.parametrize(
    "code",
    [
        "const e = new Error('look'); e.name = 'ThinkSignal'; throw e",
        "throw Object.assign(new Error('stop'), { code: 'EXECUTION_ABORTED' })",
    ],
    ids=["fake-signal", "fake-code"],
)
def test_a_program_cannot_pass_off_its_error_as_the_hosts(code: str) -> None:
    outcome = run(code)
    assert outcome.error is not None
    assert outcome.error["host"] is False and outcome.error["code"] is None


def test_a_host_error_rethrown_by_the_program_keeps_its_code() -> None:
    class Failing(Recording):
        def tool(self, name: str, input_json: str | None, line: int | None) -> str:
            return json.dumps({"error": {"code": "TOOL_EXECUTION_FAILED", "name": "X", "message": "no"}})

    outcome = run("try { await t({}) } catch (e) { throw e }", Failing())
    assert outcome.error is not None and outcome.error["code"] == "TOOL_EXECUTION_FAILED"


def test_a_forged_capture_only_reaches_declared_and_known_names() -> None:
    outcome = run("const a = 1\n__llmz_capture({ a: () => 2, secret: () => 3 })\nreturn a")
    assert set(outcome.captured) == {"a"}


def test_the_kernel_crosses_once_per_worker_and_a_changed_kernel_is_used() -> None:
    base = run("return typeof globalThis.marker")
    assert base.value == "undefined"
    marked = kernel.DEFINITION + "\nglobalThis.marker = 'changed';"
    changed = run_program(
        "return typeof globalThis.marker", Recording(), ["t"], chat=False, kernel_definition=marked
    )
    assert changed.value == "string"
    assert run("return typeof globalThis.marker").value == "undefined"


def test_the_session_memory_reaches_the_program_as_it_was_sent() -> None:
    text = 'quote " backslash \\ newline \n lone \ud800 and </script>'
    variables = {"note": text}
    state = json.dumps({"variables": variables, "iterations": [], "hasReturn": False, "returned": None})
    outcome = run_program("return note", Recording(), ["t"], chat=False, memory_state=state, known=["note"])
    assert outcome.value == text


def test_a_message_reads_back_as_it_was_packed() -> None:
    """The framing host and worker share (containment takes it from jsworker): absent, empty, lone
    surrogates, newlines in the header and a part larger than a pipe's buffer all cross unchanged."""
    from reference.llmz.jsworker import pack, unpack

    parts = ["kernel\nsource", None, "", "lone \ud800 surrogate and \u00e9", "x" * 70_000]
    header, got = unpack(pack(["call", {"op": "t\nx"}], parts))
    assert header == ["call", {"op": "t\nx"}]
    assert got == parts


@pytest.mark.parametrize("size", [0, 10, 65_536, 65_537, 3_000_000])
def test_the_workers_pipe_speaks_the_framing_of_the_parents_connection(size: int) -> None:
    import threading
    from multiprocessing.connection import Connection

    from reference.llmz import jsworker

    data = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
    for_worker_r, for_worker_w = os.pipe()
    for_parent_r, for_parent_w = os.pipe()
    parent_out, parent_in = Connection(for_worker_w, readable=False), Connection(for_parent_r, writable=False)
    worker_in, worker_out = jsworker.Pipe(for_worker_r), jsworker.Pipe(for_parent_w)
    try:
        sender = threading.Thread(target=parent_out.send_bytes, args=(data,))
        sender.start()
        assert worker_in.recv_bytes() == data
        sender.join()
        sender = threading.Thread(target=worker_out.send_bytes, args=(data,))
        sender.start()
        assert parent_in.recv_bytes() == data
        sender.join()
    finally:
        for conn in (parent_out, parent_in):
            conn.close()
        for fd in (for_worker_r, for_parent_w):
            os.close(fd)
    with pytest.raises(EOFError):
        read_fd, write_fd = os.pipe()
        os.close(write_fd)
        try:
            jsworker.Pipe(read_fd).recv_bytes()
        finally:
            os.close(read_fd)
