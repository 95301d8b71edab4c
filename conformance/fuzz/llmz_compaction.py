"""llmz cases around automatic compaction, and what the documents fix about them.

One family: a session with a context window cap (``options.max_tokens``, 3,000 to 20,000 tokens, small
so that cases stay cheap to play) and perhaps its own compaction controls (``trigger_ratio``,
``keep_recent_iterations``, ``max_summary_tokens``; a ``target_ratio`` below a low trigger, so the
controls are valid), then two to six worker turns. Each turn's answer is a program carrying a comment of
``lorem ipsum`` units (two tokens each in cl100k_base) that exits at once, so the history grows by a known
amount per turn. The script holds one answer per turn and a few summary answers (addressed by purpose,
however many summary calls a runtime makes). Three shapes: a *jump* (slivers and one large program), a
*ramp* (programs of any size) and a *keep* shape: one or two older programs, then the kept iterations
with the newest of them a little above the target on its own, so compaction must choose between the
target and the kept iterations (where the documents put the kept iterations first); its window is just
large enough for the kept iterations to fit under every reading (a lower target and a small summary
ceiling keep it small).

The documents fix: compaction starts once the measured input reaches the trigger ratio of the input budget
(``llmz.compaction.trigger-ratio``, its default); the summary comes from a model call made before the
request that needed it (``summary-is-model-call``); that call's output allowance is at most
``maxSummaryTokens`` (``max-summary-tokens``, its default); and the newest ``keepRecentIterations``
(its default) iterations are kept when the request then fits the input budget (``keep-recent-iterations``).
They leave open the tokenizer, the fixed prompt and the message framing, so a decision is stated only
when it holds for every such choice the suite allows elsewhere: another tokenizer counting a tenth fewer
or a fifth more, a fixed prompt of up to ``PROMPT_ALLOWANCE`` tokens, ``FRAMING`` tokens per message, a
tenth rounded either way. A summary is expected only when some iteration is older than the kept ones and
either the kept ones alone clearly come under the target ratio (its default) or the older history is a
fifth of the budget and the kept ones fit with room: whether dropping a sliver of old history is worth a
summary call is a choice the documents leave open. It is also expected only when every older iteration
fits a summary request under every reading: an iteration is summarized whole, and one that cannot be may
make compaction fail (COMPACTION_FAILED) instead. Decisions are walked turn by turn and stop at the first
one that is not clear, or at the first compaction (what follows depends on the summary a runtime kept).
"""

from __future__ import annotations

import math
from typing import Any

from hypothesis import strategies as st

from conformance.catalogue.params import number
from conformance.fuzz.engine import GeneratorBug
from conformance.fuzz.facts import Fact

Case = dict[str, Any]
Record = dict[str, Any]

#: Defaults the documents give, read from the rules' params (one place per documented number).
TRIGGER_RATIO = number("llmz.compaction.trigger-ratio", "trigger_ratio")
TARGET_RATIO = number("llmz.compaction.target-ratio", "target_ratio")
KEEP_RECENT = int(number("llmz.compaction.keep-recent-iterations", "keep_recent_iterations"))
MAX_SUMMARY_TOKENS = int(number("llmz.compaction.max-summary-tokens", "default_tokens"))
FLOOR = int(number("llmz.budget.output-reserve.floor", "floor_tokens"))
CEILING = int(number("llmz.budget.output-reserve.ceiling", "ceiling_tokens"))
OUTPUT_LIMIT = 16_384
MODEL_WINDOW = 128_000
UNIT, UNIT_TOKENS = "lorem ipsum ", 2
PROMPT_ALLOWANCE = 1_700
FRAMING = 40
"""Tokens a message may take beyond its ``lorem ipsum`` units (role, framing, ids, the short texts)."""
MORE, FEWER = 1.2, 0.9
SUMMARY = "Summary: the earlier batches were logged."
SUMMARY_ANSWERS = 4
#: Trigger ratios, a hundredth either side of the default among them.
TRIGGERS = tuple(
    sorted(
        {0.5, 0.6, 0.7, 0.75, 0.8, 0.9, 0.95, 1.0} | {round(TRIGGER_RATIO + d, 2) for d in (-0.01, 0, 0.01)}
    )
)
#: Summary ceilings, one token either side of the default among them.
SUMMARY_CEILINGS = (
    64,
    128,
    256,
    512,
    MAX_SUMMARY_TOKENS - 1,
    MAX_SUMMARY_TOKENS,
    MAX_SUMMARY_TOKENS + 1,
    2_048,
)
CAPS = (4_000, 6_000, 8_000, 12_000, 20_000)
EXIT = 'return exit("done", { success: true })'
TRIGGER = "llmz.compaction.trigger-ratio"
SUBSTANTIAL = 0.2
"""A share of the input budget the droppable history must reach when the kept iterations alone stay above
the target: then compaction is clearly worth a summary, and keeps the recent iterations."""
SHARES = (0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.05, 0.1)
#: Shares of ``trigger x window``: under it by more than any reading's margin (down to where a trigger
#: of one half would fire), or over it.
NEAR = (1.0, 0.6, 1.1, 0.65, 0.55, 1.2, 1.4)
SHAPES = ("jump", "jump", "ramp", "keep")
KEEP_CAP = 20_000
KEEP_TARGETS = (0.4, 0.5, None)
KEEP_SUMMARY_TOKENS = (64, 128, 256)
#: The keep shape: how far above the target the newest kept program alone is (shares of the budget), and
#: how far the history before the deciding turn goes beyond the trigger (under a tokenizer counting fewer).
OVER = (0.03, 0.05, 0.08, 0.12)
MARGIN = (0.02, 0.05)


@st.composite
def compaction_case(draw: st.DrawFn) -> Case:
    cap = draw(st.one_of(st.sampled_from(CAPS), st.integers(3_000, 20_000)))
    controls: dict[str, Any] = {}
    trigger = draw(st.one_of(st.none(), st.sampled_from(TRIGGERS)))
    if trigger is not None:
        controls["trigger_ratio"] = trigger
        if trigger <= TARGET_RATIO:
            controls["target_ratio"] = round(trigger * 0.7, 2)
    keep = draw(st.one_of(st.none(), st.integers(0, 3)))
    if keep is not None:
        controls["keep_recent_iterations"] = keep
    summary = draw(st.one_of(st.none(), st.sampled_from(SUMMARY_CEILINGS)))
    if summary is not None:
        controls["max_summary_tokens"] = summary
    kept = KEEP_RECENT if keep is None else keep
    # Units per program. A jump: slivers, and one program (mostly the newest one older than the kept
    # iterations, so compaction can drop it) at a share of the trigger's part of the window, so the last
    # turn lands clearly on one side of it. A ramp: each a share of the window.
    share = st.sampled_from(SHARES).map(lambda f: int(f * cap / UNIT_TOKENS))
    sliver = st.integers(0, 50)
    shape = draw(st.sampled_from(SHAPES))
    if shape == "keep":
        if keep == 0:  # nothing kept, nothing to see: keep one to three instead
            kept = controls["keep_recent_iterations"] = draw(st.integers(1, 3))
        lower = draw(st.sampled_from(KEEP_TARGETS))
        if lower is not None and lower < (trigger or TRIGGER_RATIO):
            controls["target_ratio"] = lower
        # A small summary ceiling leaves the kept iterations room in a small window (cheap to play).
        controls["max_summary_tokens"] = draw(st.sampled_from(KEEP_SUMMARY_TOKENS))
        cap, units = _keep_shape(draw, controls, trigger or TRIGGER_RATIO, kept)
        turns = len(units)
    elif shape == "jump":
        turns = draw(st.integers(min(kept + 3, 5), 5))
        jump = draw(st.one_of(st.just(max(turns - 1 - kept, 1)), st.integers(1, turns - 1)))
        near = draw(st.sampled_from(NEAR))
        big = int(near * (trigger or TRIGGER_RATIO) * cap / UNIT_TOKENS)
        units = [big if n == jump else draw(sliver) for n in range(1, turns + 1)]
    else:
        turns = draw(st.integers(2, 5))
        units = [
            draw(st.one_of(share, sliver, st.integers(0, cap // (2 * UNIT_TOKENS)))) for _ in range(turns)
        ]
    script: list[dict[str, Any]] = [
        {"purpose": "turn", "tool_calls": [{"id": f"turn-{n}", "code": f"// {UNIT * u}\n{EXIT}"}]}
        for n, u in enumerate(units, start=1)
    ]
    script += [{"purpose": "summary", "text": SUMMARY} for _ in range(SUMMARY_ANSWERS)]
    steps: list[dict[str, Any]] = []
    for n in range(1, turns + 1):
        steps.append({"op": "append", "messages": [{"role": "user", "content": f"Log batch {n}."}]})
        steps.append({"op": "execute", "mode": "worker"})
    return {
        "system": "llmz",
        "setup": {
            "models": [{"id": "m1", "input_tokens": MODEL_WINDOW, "output_tokens": OUTPUT_LIMIT}],
            "options": {"max_tokens": cap},
            "compaction": controls,
        },
        "script": script,
        "steps": steps,
    }


def _keep_shape(
    draw: st.DrawFn, controls: dict[str, Any], trigger: float, kept: int
) -> tuple[int, list[int]]:
    """The window and the units per program for the keep shape: ``old`` older programs sharing enough
    history that the turn after the kept iterations reaches the trigger, ``kept`` kept programs (slivers,
    then the newest above the target on its own) and a sliver for the turn that follows compaction. The
    window is a little more than the least in which, under every reading, the kept iterations fit, each
    older program fits a summary request, and the turns before the deciding one stay below the trigger
    (so the facts are stated; they still decide)."""
    target = controls.get("target_ratio", TARGET_RATIO)
    history = trigger / FEWER + draw(st.sampled_from(MARGIN))
    # The newest program carries at least half the history, so neither side needs a large window.
    share = max(target + draw(st.sampled_from(OVER)), history / 2)
    older_share = max(history - share, SUBSTANTIAL * 1.1)
    old = draw(st.integers(1, 2))
    framing = MORE * FRAMING * 3 * (old + kept + 1)
    summary = 2 * controls["max_summary_tokens"]
    least = max(
        (PROMPT_ALLOWANCE + framing + summary) / max(1 - MORE * share, 0.05),
        (PROMPT_ALLOWANCE + framing + summary) / max(1 - MORE * older_share / old, 0.05),
        (PROMPT_ALLOWANCE + framing + MORE * 50 * kept) / max(trigger - MORE * older_share, 0.05),
    )
    cap = min(int(least / 0.9 * draw(st.sampled_from((1.05, 1.15, 1.25)))), KEEP_CAP)
    budget = _budgets(cap)[0]
    tokens = [older_share * budget / old] * old
    tokens += [float(draw(st.integers(0, 50)))] * (kept - 1) + [share * budget]
    return cap, [int(t / UNIT_TOKENS) for t in tokens] + [draw(st.integers(0, 50))]


def _budgets(limit: int) -> tuple[int, int]:
    """The input budget, low and high (the tenth rounded up or down)."""

    def reserve(tenth: int) -> int:
        return min(max(tenth, FLOOR), CEILING, OUTPUT_LIMIT, limit - 1)

    return limit - reserve(math.ceil(limit / 10)), limit - reserve(limit // 10)


def _units(code: str) -> int:
    return code.count(UNIT)


def compaction_facts(case: Case, record: Record) -> list[Fact]:
    setup = case["setup"]
    controls = setup["compaction"]
    ratio = controls.get("trigger_ratio", TRIGGER_RATIO)
    target = controls.get("target_ratio", TARGET_RATIO)
    keep = controls.get("keep_recent_iterations", KEEP_RECENT)
    ceiling = controls.get("max_summary_tokens", MAX_SUMMARY_TOKENS)
    budget_low, budget_high = _budgets(min(setup["options"]["max_tokens"], MODEL_WINDOW))
    programs = [
        UNIT_TOKENS * _units(entry["tool_calls"][0]["code"])
        for entry in case["script"]
        if entry["purpose"] == "turn"
    ]
    requests = [e for e in record["events"] if e["type"] == "model_request"]
    purposes = [e["purpose"] for e in requests]
    facts: list[Fact] = []
    for turn in range(1, len(programs) + 1):
        # Request ``turn`` carries every earlier turn (input, call, result) and the new input.
        least = sum(programs[: turn - 1])
        most = least + FRAMING * (3 * (turn - 1) + 1)
        index = turn - 1  # no summary call before this one yet
        where = (
            f"turn {turn}: about {least:,} tokens of history against {ratio} of a {budget_low:,}-token budget"
        )
        if MORE * most + PROMPT_ALLOWANCE < ratio * budget_low:
            if purposes[index : index + 1] != ["turn"]:
                raise GeneratorBug(f"the reference compacted well below the trigger ({where})")
            facts.append(
                Fact(TRIGGER, f"events[type=model_request][{index}].purpose", "equals", "turn", where)
            )
            continue
        protected = range(max(turn - keep, 1), turn)
        kept_most = sum(programs[n - 1] for n in protected) + FRAMING * (3 * len(protected) + 2)
        older = programs[: max(turn - keep, 1) - 1]
        droppable = sum(older)
        reachable = MORE * kept_most + PROMPT_ALLOWANCE <= target * budget_low or (
            droppable >= SUBSTANTIAL * budget_high
            and MORE * kept_most + PROMPT_ALLOWANCE + 2 * ceiling <= budget_low
        )
        # An iteration is summarized whole: one too large for a summary request under some reading
        # (its own prompt, the previous segment's summary and the output allowance beside it) may make
        # compaction fail instead, which the documents allow.
        summarizable = all(
            MORE * (program + 3 * FRAMING) + PROMPT_ALLOWANCE + 2 * ceiling <= budget_low for program in older
        )
        if FEWER * least >= ratio * budget_high and turn - 1 > keep and reachable and summarizable:
            if purposes[index : index + 1] != ["summary"]:
                raise GeneratorBug(f"the reference did not compact well above the trigger ({where})")
            facts.append(
                Fact(TRIGGER, f"events[type=model_request][{index}].purpose", "equals", "summary", where)
            )
            facts.append(
                Fact(
                    "llmz.compaction.max-summary-tokens",
                    f"events[type=model_request][{index}].max_tokens",
                    "between",
                    [1, ceiling],
                    f"the summary's output allowance is at most maxSummaryTokens ({ceiling:,})",
                )
            )
            facts += _kept(programs, turn, keep, ceiling, budget_low, requests)
        break
    return facts


def _kept(
    programs: list[int], turn: int, keep: int, ceiling: int, budget: int, requests: list[dict[str, Any]]
) -> list[Fact]:
    """The newest ``keep`` iterations are in the next turn request, when they fit with room to spare."""
    kept = list(range(max(turn - keep, 1), turn))
    if not kept:
        return []
    most = sum(programs[n - 1] for n in kept) + FRAMING * (3 * len(kept) + 2)
    if MORE * most + PROMPT_ALLOWANCE + 2 * ceiling > budget:
        return []
    after = [n for n, e in enumerate(requests) if e["purpose"] == "turn"]
    if len(after) < turn:
        raise GeneratorBug(f"the reference made no turn request after compacting before turn {turn}")
    path = f"events[type=model_request][purpose=turn][{turn - 1}].messages[*].toolCalls[0].id"
    why = (
        f"keepRecentIterations {keep}: turns {kept[0]} to {kept[-1]} fit the input budget with room to spare"
    )
    return [Fact("llmz.compaction.keep-recent-iterations", path, "contains", f"turn-{n}", why) for n in kept]
