"""llmz cases around ``options.loop``, alone or mixed with ThinkSignals, and what the documents fix.

One family: a worker execution with ``options.loop`` from 1 to 6 whose script answers with some programs
that do not complete the run and then one that exits, plus a spare exit. The exit lands one before, at,
or one after the last allowed iteration. In a *plain* case the programs before it return a number (so
their iteration continues). In a *mixed* case the host has a tool whose handler produces a ThinkSignal
(returned or thrown), and each program before the exit either returns a number, calls that tool and
returns a value from its context, or calls that tool and then attempts an exit of its own (``early``,
beside the completing ``done``). Every exit payload carries the number of its answer, so the record shows
which exit ended the run.

The documents fix (``llmz.configuration.loop-bounds-iterations``, ``llmz.errors.iteration-limit``,
``llmz.think-signal.beats-exit``): ``options.loop`` is the most model iterations a run takes, and a run
that has not exited by then fails with the critical ITERATION_LIMIT; an iteration whose program raised a
signal ends in a forced inspection even when it attempted an exit, so that exit is not applied and the
run goes on to another model call (an iteration like any other, counted against ``options.loop``). So the
run is completed by the first answer that exits without a signal: at answer ``n <= loop`` it succeeds
after ``n`` model calls with that answer's payload, and otherwise it fails after exactly ``loop`` model
calls; an ``early`` exit is never applied. What a signalling iteration reports, and its status, is
pinned elsewhere (the think-signal scenarios): 1.0.1 reaches the same outcome by other means.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from conformance.fuzz.engine import GeneratorBug
from conformance.fuzz.facts import Fact

Case = dict[str, Any]
Record = dict[str, Any]

BOUNDS = "llmz.configuration.loop-bounds-iterations"
LIMIT = "llmz.errors.iteration-limit"
BEATS_EXIT = "llmz.think-signal.beats-exit"
TOOL = "checkStock"
#: What a program before the completing exit does: continue, signal and continue, signal and try to exit.
KINDS = ("plain", "signal", "signal-exit")


EXITS = [
    {
        "name": name,
        "description": description,
        "schema": {"type": "object", "properties": {"result": {"type": "number"}}, "required": ["result"]},
    }
    for name, description in (("done", "The count is finished."), ("early", "Stop counting at once."))
]


def _exit(n: int, name: str = "done", mixed: bool = False) -> str:
    payload = f"{{ result: {n} }}" if mixed else f"{{ success: true, result: {n} }}"
    return f'return exit("{name}", {payload})'


def _program(kind: str, n: int) -> str:
    if kind == "plain":
        return f"return {n}"
    call = f"const stock = await {TOOL}({{}})\n"
    return call + ("return stock.level" if kind == "signal" else _exit(n, "early", mixed=True))


@st.composite
def loop_case(draw: st.DrawFn) -> Case:
    loop = draw(st.integers(1, 6))
    before = draw(st.one_of(st.sampled_from((loop - 2, loop - 1, loop)), st.integers(0, 7)))
    before = max(before, 0)
    mixed = draw(st.booleans())
    if mixed:
        kinds = [draw(st.sampled_from(KINDS)) for _ in range(before)]
        signal = {
            "reason": "Stock levels changed; look before finishing",
            "context": {"level": 3},
            "via": draw(st.sampled_from(("return", "throw"))),
        }
        setup: dict[str, Any] = {
            "tools": [{"name": TOOL, "behaviour": {"think_signal": signal}}],
            "exits": EXITS,
        }
    else:
        kinds, setup = ["plain"] * before, {}
    script = [{"tool_calls": [{"code": _program(kind, n)}]} for n, kind in enumerate(kinds, start=1)]
    script += [{"tool_calls": [{"code": _exit(n, mixed=mixed)}]} for n in (before + 1, before + 2)]
    return {
        "system": "llmz",
        "setup": setup,
        "script": script,
        "steps": [
            {"op": "append", "messages": [{"role": "user", "content": "Count, then finish."}]},
            {"op": "execute", "mode": "worker", "options": {"loop": loop}},
        ],
    }


def is_loop_case(case: Case) -> bool:
    """A loop case is the one family whose execution sets ``options.loop``."""
    return any(step.get("options", {}).get("loop") is not None for step in case["steps"])


def _kind(code: str) -> str:
    if TOOL not in code:
        return "exit" if "exit(" in code else "plain"
    return "signal-exit" if "exit(" in code else "signal"


def loop_facts(case: Case, record: Record) -> list[Fact]:
    loop = case["steps"][1]["options"]["loop"]
    kinds = [_kind(entry["tool_calls"][0]["code"]) for entry in case["script"]]
    ends_at = kinds.index("exit") + 1
    attempted = [n for n, kind in enumerate(kinds[: min(ends_at, loop)], start=1) if kind == "signal-exit"]
    results = [e for e in record["events"] if e["type"] == "result"]
    where = f"options.loop {loop}, the first exit without a signal in answer {ends_at}"
    if attempted:
        which = (
            f"answers {', '.join(map(str, attempted))} signal"
            if attempted[1:]
            else f"answer {attempted[0]} signals"
        )
        where += f"; {which} and attempt{'' if attempted[1:] else 's'} the early exit"
    facts: list[Fact] = []
    if attempted:
        why = where + ": a signal beats the exit attempted beside it"
        facts.append(Fact(BEATS_EXIT, "events[type=exit][name=early]", "count", 0, why))
    if ends_at <= loop:
        if not results or results[0].get("status") != "success":
            raise GeneratorBug(f"the reference did not finish a run that exits in time ({where})")
        done = "events[type=exit][name=done][*].payload.result"
        return [
            *facts,
            Fact(BOUNDS, "events[type=model_request]", "count", ends_at, where),
            Fact(BOUNDS, done, "equals", [ends_at], where + ": that answer's exit ends the run"),
            Fact(LIMIT, "events[type=result][0]", "subset", {"status": "success", "exit": "done"}, where),
        ]
    if not results or results[0].get("error_code") != "ITERATION_LIMIT":
        raise GeneratorBug(f"the reference did not stop a run that never exits in time ({where})")
    return [
        *facts,
        Fact(BOUNDS, "events[type=model_request]", "count", loop, where),
        Fact(
            LIMIT,
            "events[type=result][0]",
            "subset",
            {"status": "error", "error_code": "ITERATION_LIMIT"},
            where,
        ),
    ]
