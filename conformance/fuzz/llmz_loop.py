"""llmz cases around ``options.loop``, and what the documents fix about them.

One family: a worker execution with ``options.loop`` from 1 to 6 whose script answers with some programs
that end without an exit (each returns a number, so its iteration continues) and then one that exits,
plus a spare exit. The exit lands one before, at, or one after the last allowed iteration.

The documents fix (``llmz.configuration.loop-bounds-iterations``, ``llmz.errors.iteration-limit``):
``options.loop`` is the most model iterations a run takes; a run that has not exited by then fails with
the critical ITERATION_LIMIT. So an exit at iteration ``n <= loop`` ends the run successfully after ``n``
model calls, and with no exit among the first ``loop`` answers the run fails after exactly ``loop``.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from conformance.fuzz.engine import GeneratorBug
from conformance.fuzz.facts import Fact

Case = dict[str, Any]
Record = dict[str, Any]

EXIT = 'return exit("done", { success: true })'
BOUNDS = "llmz.configuration.loop-bounds-iterations"
LIMIT = "llmz.errors.iteration-limit"


@st.composite
def loop_case(draw: st.DrawFn) -> Case:
    loop = draw(st.integers(1, 6))
    before = draw(st.one_of(st.sampled_from((loop - 2, loop - 1, loop)), st.integers(0, 7)))
    before = max(before, 0)
    script = [{"tool_calls": [{"code": f"return {n}"}]} for n in range(1, before + 1)]
    script += [{"tool_calls": [{"code": EXIT}]}, {"tool_calls": [{"code": EXIT}]}]
    return {
        "system": "llmz",
        "setup": {},
        "script": script,
        "steps": [
            {"op": "append", "messages": [{"role": "user", "content": "Count, then finish."}]},
            {"op": "execute", "mode": "worker", "options": {"loop": loop}},
        ],
    }


def loop_facts(case: Case, record: Record) -> list[Fact]:
    loop = case["steps"][1]["options"]["loop"]
    exits_at = next(n for n, e in enumerate(case["script"], start=1) if "exit(" in e["tool_calls"][0]["code"])
    results = [e for e in record["events"] if e["type"] == "result"]
    where = f"options.loop {loop}, the first exit in answer {exits_at}"
    if exits_at <= loop:
        if not results or results[0].get("status") != "success":
            raise GeneratorBug(f"the reference did not finish a run that exits in time ({where})")
        return [
            Fact(BOUNDS, "events[type=model_request]", "count", exits_at, where),
            Fact(LIMIT, "events[type=result][0]", "subset", {"status": "success", "exit": "done"}, where),
        ]
    if not results or results[0].get("error_code") != "ITERATION_LIMIT":
        raise GeneratorBug(f"the reference did not stop a run that never exits in time ({where})")
    return [
        Fact(BOUNDS, "events[type=model_request]", "count", loop, where),
        Fact(
            LIMIT,
            "events[type=result][0]",
            "subset",
            {"status": "error", "error_code": "ITERATION_LIMIT"},
            where,
        ),
    ]
