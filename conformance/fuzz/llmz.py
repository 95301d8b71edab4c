"""llmz cases around the token budget, and the llmz generator (budget, compaction and memory families).

The budget family: a worker execution whose single answer exits at once, with one model or a fallback list
of two (input windows either side of where a tenth of the window meets the reserve's floor and its ceiling,
and output limits either side of both), perhaps an ``options.maxTokens`` cap, and a user message of a few
words or of many ``lorem ipsum`` units.

The documents fix (``llmz.budget.*``): the effective window is the smallest of the cap and the models' input
limits; the output reserve is a tenth of it, at least the floor, at most the ceiling (both read from the
rules' params), at most the smallest model output limit, leaving at least one token for input; it is the
request's ``max_tokens``; a request whose input exceeds the rest fails with TOKEN_OVERFLOW (phase ``input``)
before any model call. They leave open how the tenth is rounded (so a window that is not a multiple of ten
accepts both roundings, as ``between``), how the input is measured (tokenizer, system prompt, message
framing), and whether the reserve gives way as the input nears the budget. So whether the request is
dispatched is stated only when the input budget is far above what any implementation's prompt and the
message could need (2,000 tokens plus the message at 1.3 times the reference's count) or below what the
message alone needs (0.85 times).
"""

from __future__ import annotations

import math
from typing import Any

from hypothesis import strategies as st

from conformance.catalogue.params import number
from conformance.fuzz.engine import GeneratorBug
from conformance.fuzz.facts import Fact
from conformance.fuzz.llmz_compaction import compaction_case, compaction_facts
from conformance.fuzz.llmz_loop import is_loop_case, loop_case, loop_facts
from conformance.fuzz.llmz_memory import memory_case, memory_facts

Case = dict[str, Any]
Record = dict[str, Any]

#: The reserve's floor and ceiling, from the rules' params (one place per documented number).
FLOOR = int(number("llmz.budget.output-reserve.floor", "floor_tokens"))
CEILING = int(number("llmz.budget.output-reserve.ceiling", "ceiling_tokens"))
#: Windows where a tenth meets the floor and the ceiling.
LOW, HIGH = 10 * FLOOR, 10 * CEILING


def _around(centre: int, offsets: tuple[int, ...]) -> set[int]:
    return {centre + offset for offset in offsets}


INPUT_LIMITS = tuple(
    sorted(
        {1_000, 2_000, 4_000, 8_000, 32_000, 128_000, 200_000, 400_000}
        | _around(LOW, (-260, -160, -5, -1, 0, 1, 5, 10))
        | _around(HIGH, (-10, -1, 0, 1, 5, 10))
    )
)
OUTPUT_LIMITS = tuple(
    sorted({100, 1_000, 4_096, 16_384, 100_000} | _around(FLOOR, (-1, 0, 1)) | _around(CEILING, (-1, 0, 1)))
)
CAPS = tuple(
    sorted(
        {2_000, 8_000, 100_000} | _around(LOW, (-260, -160, -5, -1, 0, 1, 5)) | _around(HIGH, (-1, 0, 1, 5))
    )
)
#: The message: a short request plus this many units of ``lorem ipsum `` (two tokens each in cl100k_base).
UNITS = (0, 0, 100, 1_000, 5_000, 20_000)
UNIT = "lorem ipsum "
UNIT_TOKENS = 2
#: Room an implementation's instructions and declarations fit in: llmz 1.0.1 sends about 1,500 tokens, and
#: the suite already expects a 2,000-token window to take a short request (budget/reserve-floor-small-window).
PROMPT_ALLOWANCE = 2_000
#: How much more, or less, another tokenizer may count than the reference's (permitted: about 20 % more,
#: 10 % fewer).
MORE, FEWER = 1.3, 0.85
EXIT = 'return exit("done", { success: true })'


@st.composite
def budget_case(draw: st.DrawFn) -> Case:
    limit = st.one_of(st.sampled_from(INPUT_LIMITS), st.integers(2, 500_000))
    output = st.one_of(st.sampled_from(OUTPUT_LIMITS), st.integers(1, 200_000))
    # The first model's window is always a boundary value; a second (a fallback list) may be anything.
    models = [
        {
            "id": f"m{n}",
            "input_tokens": draw(st.sampled_from(INPUT_LIMITS) if n == 1 else limit),
            "output_tokens": draw(output),
        }
        for n in range(1, draw(st.sampled_from((1, 1, 2))) + 1)
    ]
    setup: dict[str, Any] = {"models": models}
    cap = draw(st.one_of(st.none(), st.none(), st.sampled_from(CAPS), st.integers(2, 500_000)))
    if cap is not None:
        setup["options"] = {"max_tokens": cap}
    units = draw(st.one_of(st.sampled_from(UNITS), st.integers(0, 3_000), st.integers(0, 30_000)))
    return {
        "system": "llmz",
        "setup": setup,
        "script": [{"tool_calls": [{"code": EXIT}]}],
        "steps": [
            {"op": "append", "messages": [{"role": "user", "content": "Check the stock. " + UNIT * units}]},
            {"op": "execute", "mode": "worker"},
        ],
    }


def _reserve(limit: int, output: int, tenth: int) -> int:
    return min(max(tenth, FLOOR), CEILING, output, limit - 1)


def _binding(limit: int, output: int, case: Case) -> str:
    """The rule whose term decides the reserve here (the reference's reading of the tenth)."""
    tenth = limit // 10
    reserve = _reserve(limit, output, tenth)
    if reserve == limit - 1 and limit - 1 < min(max(tenth, FLOOR), CEILING, output):
        return "llmz.budget.output-reserve.room-for-input"
    if reserve == output and output < min(max(tenth, FLOOR), CEILING):
        return "llmz.budget.output-reserve.model-output-limit"
    if tenth < FLOOR:
        return "llmz.budget.output-reserve.floor"
    if tenth > CEILING:
        return "llmz.budget.output-reserve.ceiling"
    models = case["setup"]["models"]
    cap = case["setup"].get("options", {}).get("max_tokens")
    if cap is not None and cap < min(m["input_tokens"] for m in models):
        return "llmz.budget.max-tokens.caps-context-window"
    if len(models) > 1:
        return "llmz.budget.effective-limit.fallback-list"
    return "llmz.budget.output-reserve.fraction"


def budget_facts(case: Case, record: Record) -> list[Fact]:
    setup = case["setup"]
    models = setup["models"]
    cap = setup.get("options", {}).get("max_tokens")
    limit = min([m["input_tokens"] for m in models] + ([cap] if cap is not None else []))
    output = min(m["output_tokens"] for m in models)
    if limit < 2:
        return []
    low = _reserve(limit, output, limit // 10)
    high = _reserve(limit, output, math.ceil(limit / 10))
    message_tokens = UNIT_TOKENS * case["steps"][0]["messages"][0]["content"].count(UNIT)
    budget_low, budget_high = limit - high, limit - low
    window = f"window {limit:,} (output limit {output:,}), a message of about {message_tokens:,} tokens"
    requests = [e for e in record["events"] if e["type"] == "model_request"]
    if budget_low >= PROMPT_ALLOWANCE + MORE * message_tokens:
        if not requests:
            raise GeneratorBug(f"the reference did not dispatch a request that fits easily ({window})")
        sent = requests[0]["max_tokens"]
        if not low <= sent <= high:
            raise GeneratorBug(
                f"the reference reserved {sent} output tokens, outside [{low}, {high}] ({window})"
            )
        rule = _binding(limit, output, case)
        path = "events[type=model_request][0].max_tokens"
        why = f"the output reserve for {window}"
        if low == high:
            return [Fact(rule, path, "equals", sent, why)]
        return [Fact(rule, path, "between", [low, high], why + "; a tenth rounded either way")]
    if budget_high < FEWER * message_tokens:
        why = f"the input budget is at most {budget_high:,} tokens: {window}"
        errors = [e for e in record["events"] if e["type"] == "error"]
        if requests or not errors:
            raise GeneratorBug(f"the reference dispatched a request that cannot fit ({window})")
        return [
            Fact("llmz.budget.overflow.before-dispatch", "events[type=model_request]", "count", 0, why),
            Fact(
                "llmz.errors.token-overflow",
                "events[type=error][0]",
                "subset",
                {"code": "TOKEN_OVERFLOW", "phase": "input"},
                why,
            ),
            Fact(
                "llmz.errors.token-overflow",
                "events[type=error][0].limit",
                "between",
                [budget_low, budget_high],
                "the limit reported is the input budget: " + why,
            ),
        ]
    return []


FAMILIES = ("budget", "memory", "loop", "compaction")


def family(case: Case) -> str:
    """Which family a case is from, read from it: ``memory`` sets maxBytes, ``compaction`` sets
    compaction controls (perhaps none), ``loop`` cases set ``options.loop``, the rest are ``budget``
    cases."""
    setup = case["setup"]
    if "memory" in setup:
        return "memory"
    if "compaction" in setup:
        return "compaction"
    return "loop" if is_loop_case(case) else "budget"


class LlmzGenerator:
    """The four llmz families: token budget (this module), compaction (``llmz_compaction``), memory
    (``llmz_memory``) and the iteration limit, alone or mixed with ThinkSignals (``llmz_loop``).
    ``families`` narrows the mix (a test proving one family finds the mutant of its boundary)."""

    system = "llmz"

    def __init__(self, families: tuple[str, ...] = FAMILIES) -> None:
        unknown = set(families) - set(FAMILIES)
        if unknown or not families:
            raise ValueError(f"llmz fuzz families are {', '.join(FAMILIES)}; got {', '.join(families)}")
        self.families = families

    def cases(self) -> st.SearchStrategy[Case]:
        strategies = {
            "budget": budget_case(),
            "memory": memory_case(),
            "loop": loop_case(),
            "compaction": compaction_case(),
        }
        mix = [strategies[name] for name in self.families]
        if self.families == FAMILIES:
            # Compaction cases cost a few turns each: budget cases come twice as often instead.
            mix.insert(3, budget_case())
        return st.one_of(*mix)

    def area(self, case: Case) -> str:
        return family(case)

    def facts(self, case: Case, record: Record) -> list[Fact]:
        kind = family(case)
        if kind == "memory":
            return memory_facts(case, record)
        if kind == "compaction":
            return compaction_facts(case, record)
        if kind == "loop":
            return loop_facts(case, record)
        return budget_facts(case, record)
