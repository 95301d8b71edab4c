"""Reliability: what a generated program does to values cannot crash the worker or grow the host without
bound (issue 23, item 2).

A value nested 30,000 deep used to crash the QuickJS worker (its JSON.stringify recurses in C without a
stack check), ending the execution as a critical INTERNAL_ERROR. Such a value is one the runtime cannot
keep: the documented answer is the recoverable INVALID_MEMORY_VALUE (llmz-1.0.1-ERRORS.md, catalogue),
and the execution goes on to its next iteration.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reference.llmz import Chat, Component, Session, Tool, execute, host_ceiling
from reference.llmz.containment import Limits
from reference.llmz.sandbox import run_program
from reference.providers import ModelResponse, ScriptedProvider, ToolCall

sys.path.insert(0, str(Path(__file__).parent))
from test_llmz_containment import Recording

pytestmark = pytest.mark.reliability

DEEP = "let v = []; for (let i = 0; i < 30000; i++) v = [v];\n"
LIMITS = Limits(budget=20, backstop=40, heap=256 * 1024 * 1024)


def _program(code: str) -> ModelResponse:
    return ModelResponse(tool_calls=[ToolCall(code=code)])


@pytest.mark.parametrize("use", ["return v", "return inspect(v)", "const x = v; return 1"])
def test_a_value_nested_30000_deep_is_the_recoverable_memory_error(use: str) -> None:
    session = Session()
    session.append([{"role": "user", "content": "go"}])
    model = ScriptedProvider([_program(DEEP + use), _program('return exit("done", {success: true})')])
    result = execute(session, model)
    first = result.iterations[0]
    codes = [getattr(e, "code", None) for e in first.errors] + [getattr(first.exception, "code", None)]
    assert "INTERNAL_ERROR" not in codes
    assert "INVALID_MEMORY_VALUE" in codes, (first.status, first.errors, first.exception)
    assert result.status == "success", "the execution went on to the next iteration"


@pytest.mark.parametrize(
    "use",
    ["return inspect(v)", "await t(v); return 1", "return exit('done', v)", "JSON.stringify(v); return 1",
     "JSON.stringify(v, null, 2); return 1", "JSON.stringify(v, ['a']); return 1",
     "JSON.stringify(v, (k, x) => x); return 1"],
)  # fmt: skip
def test_no_deep_value_crashes_the_worker(use: str) -> None:
    outcome = run_program(DEEP + use, Recording(), ["t"], chat=False, limits=LIMITS)
    assert outcome.stopped is None, outcome.stop_reason


def test_the_guest_stringify_still_gives_the_engines_answer() -> None:
    code = (
        "return JSON.stringify({b: [1, {c: 'x'}], a: undefined}, null, 1) + '|' + "
        "JSON.stringify({a: 1, b: 2, c: 3}, ['c', 'a']) + '|' + "
        "JSON.stringify([1, 2], (k, x) => typeof x === 'number' ? x * 10 : x)"
    )
    outcome = run_program(code, Recording(), [], chat=False, limits=LIMITS)
    assert outcome.value == '{\n "b": [\n  1,\n  {\n   "c": "x"\n  }\n ]\n}|{"c":3,"a":1}|[10,20]'


# -- the host's ceiling -----------------------------------------------------------------------------------

AMPLIFY = {
    "tool": "await echo({ blob: big })",
    "inspect": "inspect(big)",
    "component": "chat.card({ text: big })",
}
HARNESS_PEAK = 1024 * 1024 * 1024
"""Peak resident size allowed to the harness, and to the stdio server, under the worst amplification
found (4 MiB values handed to the host in a loop for 30 s): the ceiling lets an execution hand the host
64 MiB (reference.llmz.host_ceiling); measured 2026-12-06: harness 690 MiB and server 503 MiB over stdio,
harness 364 MiB in-process, where the harness alone reached 2.7 GB without the ceiling."""


@pytest.mark.parametrize("how", sorted(AMPLIFY))
def test_passing_the_ceiling_ends_the_execution_with_memory_capacity(
    how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(host_ceiling, "FLOOR", 0)  # the ceiling of a 256 KiB memory limit: 1 MiB
    session = Session(max_bytes=256 * 1024)
    session.append([{"role": "user", "content": "go"}])
    code = f"const big = 'x'.repeat(300 * 1024)\nfor (let i = 0; i < 1000; i++) {AMPLIFY[how]}"
    model = ScriptedProvider([_program(code), _program('return exit("done", {success: true})')])
    seen: list[object] = []
    result = execute(
        session,
        model,
        tools=[Tool("echo", lambda value: "ok", input={"type": "object"})],
        chat=Chat(components=[Component("card", seen.append, props={"type": "object"})]),
    )
    first = result.iterations[0]
    assert getattr(first.exception, "code", None) == "MEMORY_CAPACITY", (first.status, first.exception)
    assert result.status == "error", "MEMORY_CAPACITY is critical: no further model call"
    if how == "component":
        assert len(seen) == 3, "the delivery that would pass the ceiling never reached its handler"


def _scenario(how: str) -> str:
    tool = "tools:\n    - name: echo\n      behaviour: {returns: ok}\n"
    component = "components:\n    - name: card\n      props: {type: object}\n"
    return (
        "system: llmz\ntitle: amplification\nrules: [llmz.errors.recoverable-feedback]\n"
        f"setup:\n  {tool if how != 'component' else component}"
        "script:\n  - tool_calls:\n      - code: |-\n"
        '          const big = "x".repeat(4 * 1024 * 1024 - 100)\n'
        f"          for (let i = 0; i < 100000; i++) {AMPLIFY[how]}\n"
        "steps:\n  - op: append\n    messages: [{role: user, content: Go}]\n"
        "  - op: execute\n    mode: worker\n    options: {timeout: 30s}\n"
        "expect:\n  - rule: llmz.errors.recoverable-feedback\n    path: events[type=result][0].error_code\n"
        "    equals: MEMORY_CAPACITY\n"
    )


def _peaks(command: list[str]) -> tuple[int, dict[str, int]]:
    """Run ``command``; its exit status and the peak resident size of it and of each descendant by name."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    peaks: dict[int, tuple[int, str]] = {}
    while process.poll() is None:
        for pid in _descendants(process.pid):
            try:
                status = Path(f"/proc/{pid}/status").read_text()
                line = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            rss = next((int(s.split()[1]) * 1024 for s in status.splitlines() if s.startswith("VmHWM")), 0)
            if rss > peaks.get(pid, (0, ""))[0]:
                peaks[pid] = (rss, line)
        time.sleep(0.05)
    process.communicate()
    named: dict[str, int] = {}
    for rss, line in peaks.values():
        name = "harness" if " conformance run " in line else "worker" if "jsworker" in line else "server"
        named[name] = max(named.get(name, 0), rss)
    return process.returncode, named


def _descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                parent = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            children.setdefault(parent, []).append(int(entry))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return found


@pytest.mark.timeout(600)
def test_the_worst_amplification_keeps_harness_and_server_under_their_ceiling(tmp_path: Path) -> None:
    for how in ("tool", "inspect"):
        path = tmp_path / "scenarios" / "llmz" / "hostile" / f"amplify-{how}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_scenario(how), encoding="utf-8")
    server = f"stdio:{sys.executable} -m conformance.players.server"
    status, peaks = _peaks(
        [sys.executable, "-m", "conformance", "run", "--impl", server, "--timeout", "300",
         "--scenarios", str(tmp_path / "scenarios"), "--report-dir", str(tmp_path / "out")]
    )  # fmt: skip
    report = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))
    assert status == 0, [s["message"][:300] for s in report["scenarios"]]
    assert peaks["harness"] < HARNESS_PEAK and peaks["server"] < HARNESS_PEAK, peaks
