"""llmz cases around ``maxBytes``, and what the documents fix about them.

One family: a session with ``memory.max_bytes`` set (boundary values and anything from 1,000 to 100,000
bytes) whose worker execution keeps one long string in a named variable and exits; or, half the time, a
registered object with a writable ``note`` property that the first answer fills with a long string (and
does not exit), the second answer then keeping another string in a variable and exiting.

The documents fix (``llmz.memory.limit-scope``, ``llmz.errors.memory-capacity``): retained memory counts
named variables, object memory and result records against ``maxBytes``; going over it is the critical
MEMORY_CAPACITY, which ends the run with that error. They leave open how values are encoded (the
reference measures compact UTF-8 JSON), so an outcome is stated only when every encoding agrees: over the
limit when the characters alone, at one byte each, reach it; within it when they leave ``SLACK`` bytes
for the encoding's quotes, tags, names and the small result record (``OBJECT_SLACK`` with an object). A
case between the two says nothing. The critical error is ``memory-capacity``'s; that object memory was
counted (the variable refused after a property that fitted alone) is ``limit-scope``'s.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from conformance.fuzz.engine import GeneratorBug
from conformance.fuzz.facts import Fact

Case = dict[str, Any]
Record = dict[str, Any]

#: Room for what an encoding adds around the characters (quotes, type tags, names, the result record).
SLACK = 1_024
#: The same with a registered object, whose own encoding (name, property, schema) is the implementation's:
#: llmz 1.0.1 weighs the ``ledger`` object at between 2 and 4 KB before anything is written to it.
OBJECT_SLACK = 4_096
LIMITS = (1_000, 1_024, 2_000, 4_096, 5_000, 8_000, 8_192, 16_384, 65_536)
OBJECT_LIMITS = (8_192, 10_000, 16_384, 65_536)
CAPACITY = "llmz.errors.memory-capacity"
SCOPE = "llmz.memory.limit-scope"
PARTIAL = "llmz.memory.partial-retention-reported"
EXIT = 'return exit("done", { success: true })'


@st.composite
def memory_case(draw: st.DrawFn) -> Case:
    plain = draw(st.booleans())
    if plain:
        limit = draw(st.one_of(st.sampled_from(LIMITS), st.integers(1_000, 100_000)))
    else:  # an object's own encoding takes a few KB: smaller limits say nothing
        limit = draw(st.one_of(st.sampled_from(OBJECT_LIMITS), st.integers(2 * OBJECT_SLACK, 100_000)))
    slack = SLACK if plain else OBJECT_SLACK
    near = st.one_of(
        st.sampled_from((-slack - 1, -slack, -1, 0, 1, slack)).map(lambda d: max(limit + d, 0)),
        st.integers(0, 2 * limit),
    )
    value = draw(near)
    setup: dict[str, Any] = {"memory": {"max_bytes": limit}}
    if plain:
        script = [{"tool_calls": [{"code": f'const note = "x".repeat({value})\n{EXIT}'}]}]
    else:
        held = draw(st.one_of(near, st.integers(0, limit)))
        value = draw(st.one_of(st.just(max(limit - held, 0)), st.just(limit - held + 1), near))
        value = max(value, 0)
        setup["objects"] = [
            {
                "name": "ledger",
                "properties": [{"name": "note", "value": "", "writable": True, "schema": {"type": "string"}}],
            }
        ]
        script = [
            {"tool_calls": [{"code": f'ledger.note = "x".repeat({held})'}]},
            {"tool_calls": [{"code": f'const copy = "y".repeat({value})\n{EXIT}'}]},
        ]
    script.append({"tool_calls": [{"code": EXIT}]})  # a spare answer: a run that stopped leaves it unused
    return {
        "system": "llmz",
        "setup": setup,
        "script": script,
        "steps": [
            {"op": "append", "messages": [{"role": "user", "content": "Keep a note."}]},
            {"op": "execute", "mode": "worker"},
        ],
    }


def _repeat(code: str) -> int:
    return int(code.split(".repeat(", 1)[1].split(")", 1)[0])


def _over(why: str, requests: int) -> list[Fact]:
    """Over the limit: the critical MEMORY_CAPACITY ends the run after ``requests`` model calls."""
    return [
        Fact(
            CAPACITY,
            "events[type=error][0]",
            "subset",
            {"code": "MEMORY_CAPACITY", "recoverable": False},
            why,
        ),
        Fact(
            CAPACITY, "events[type=result][0]", "subset", {"status": "error", "error_code": "MEMORY_CAPACITY"}
        ),
        Fact(CAPACITY, "events[type=model_request]", "count", requests, "the critical failure stops the run"),
    ]


def _within(why: str, rule: str, variable: str) -> list[Fact]:
    return [
        Fact(rule, "events[type=result][0]", "subset", {"status": "success", "exit": "done"}, why),
        Fact(rule, "final.variables", "contains", variable, why),
    ]


def memory_facts(case: Case, record: Record) -> list[Fact]:
    limit = case["setup"]["memory"]["max_bytes"]
    codes = [entry["tool_calls"][0]["code"] for entry in case["script"][:-1]]
    sizes = [_repeat(code) for code in codes]
    capacity_errors = [
        e for e in record["events"] if e["type"] == "error" and e.get("code") == "MEMORY_CAPACITY"
    ]
    if len(sizes) == 1:
        (size,) = sizes
        window = f"a {size:,}-character variable against maxBytes {limit:,}"
        if size >= limit:
            facts = _over(f"{window}: over the limit in any encoding", 1)
            facts.append(Fact(PARTIAL, "final.variables", "equals", [], f"{window}: it is not retained"))
        elif size + SLACK <= limit:
            facts = _within(f"{window}: within the limit in any reasonable encoding", CAPACITY, "note")
        else:
            return []
    else:
        held, size = sizes
        window = (
            f"a {held:,}-character object property, then a {size:,}-character variable, maxBytes {limit:,}"
        )
        if held >= limit:
            facts = _over(f"{window}: the property alone is over the limit", 1)
        elif held + OBJECT_SLACK > limit:
            return []
        elif held + size >= limit:
            together = f"{window}: object memory and the variable together are over it"
            facts = [
                Fact(
                    SCOPE,
                    "events[type=iteration][0].status",
                    "equals",
                    "continued",
                    "the property alone fits",
                ),
                Fact(SCOPE, "final.variables", "equals", [], together + ", so the variable is not retained"),
                *_over(together, 2),
            ]
        elif held + size + OBJECT_SLACK <= limit:
            facts = _within(f"{window}: both fit together", SCOPE, "copy")
        else:
            return []
    over = any(fact.value == "MEMORY_CAPACITY" or "MEMORY_CAPACITY" in str(fact.value) for fact in facts)
    if over != bool(capacity_errors):
        raise GeneratorBug(f"the reference disagrees with the byte arithmetic ({window})")
    return facts
