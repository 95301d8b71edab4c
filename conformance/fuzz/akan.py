"""Akan cases around the documented boundaries, and the Akan facts a record is compared on.

Two families of case:

- **compaction**: ``compact.at`` (the default, zero, or a few hundred to a few thousand tokens) and
  ``keep`` (1 to 4), then two to four messages whose generated filler puts the posted conversation
  somewhere between half and twice the threshold. Each turn request is one decision: compact first or not.
- **attachments**: one to three rounds of files added at the paperclip (sizes either side of 10^6- and
  2^20-byte megabytes around the per-file and per-message ceilings, up to seven files a round, sometimes
  an exact copy of a file already attached), with a message sent between rounds.

Every documented number here (the default threshold, the three attachment ceilings and the boundary sizes
around them) is read from the rules' ``params`` (``conformance.catalogue.params``), not written again: a
change to a ceiling in spec/ moves the generated boundaries with it.

What the documents leave open decides which facts are stated:

- The estimate is characters of the posted JSON over four, but the JSON shape of a message is the
  implementation's own and "past" the threshold may include it (``akan.compaction.estimate.*`` and
  ``threshold.past`` open questions; the default "24k" read as thousands or as 1024s). A decision is stated
  only when the reference's estimate is a fifth or more clear of the threshold after allowing 20 extra
  tokens a message (for ids or timestamps); the first decision that is not, and everything after the first
  compaction, is left out.
- Where the cut lands when the kept tail holds several user messages is open (earliest or newest), so
  whether a summary is asked for at all is stated only when ``keep`` is 1 or 2 or the history is longer
  than ``keep``.
- Whether MB means 10^6 or 2^20 bytes, and whether a size exactly at a ceiling is allowed, is open: a file's
  fate is stated only when all four readings agree on it (the rounds are replayed under each reading).
  Which reason a refusal gives when several ceilings apply is not stated; that it was refused is.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from conformance.catalogue.params import number
from conformance.fuzz.facts import Fact

Case = dict[str, Any]
Record = dict[str, Any]

# --- compaction ----------------------------------------------------------------------------------------

THRESHOLDS = (None, 0, 200, 300, 500, 1000, 2000)
_AT = int(number("akan.compaction.threshold.default", "at_default_tokens"))
#: Where the reference reads 24k, and the other reading (akan.compaction.threshold.default#open_question):
#: the param counts thousands, the other reading 1024s.
DEFAULT_AT = (_AT, _AT // 1000 * 1024)
#: How far the posted conversation may grow against the threshold, in steps of the whole threshold.
RATIOS = (0.3, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.5, 2.0)
#: A fifth inside or outside the threshold (the project's convention for open JSON shapes).
CLEARANCE = 0.2
#: Tokens an implementation may add to each posted message (an id, a timestamp) beyond the reference's.
EXTRA_TOKENS_PER_MESSAGE = 20
SUMMARY = "Summary of the earlier conversation."
REPLY = "ok"


@st.composite
def compaction_case(draw: st.DrawFn) -> Case:
    at = draw(st.sampled_from(THRESHOLDS))
    keep = draw(st.integers(1, 4))
    sends = draw(st.integers(2, 4))
    scale = DEFAULT_AT[0] if at is None else max(at, 200)
    chunk = st.one_of(
        st.integers(0, 100), st.sampled_from(RATIOS).map(lambda ratio: int(ratio * scale * 4 / sends))
    )
    big = st.sampled_from(RATIOS).map(lambda ratio: int(ratio * scale * 4))
    fillers = [draw(st.one_of(chunk, big)) for _ in range(sends)]
    compact: dict[str, int] = {"keep": keep}
    if at is not None:
        compact["at"] = at
    return {
        "system": "akan",
        "setup": {"compact": compact},
        "script": [{"purpose": "turn", "text": REPLY} for _ in range(sends)]
        + [{"purpose": "summary", "text": SUMMARY} for _ in range(sends)],
        "steps": [
            {"op": "send", "text": f"message {n} ", "filler_chars": filler}
            for n, filler in enumerate(fillers, start=1)
        ],
    }


def estimate(messages: list[dict[str, Any]]) -> int:
    """The reference's estimate of a posted conversation: compact JSON characters over four, rounded up."""
    return math.ceil(len(json.dumps(messages, separators=(",", ":"), ensure_ascii=False)) / 4)


@dataclass(frozen=True)
class Decision:
    """One turn request and whether a compaction was attempted just before it."""

    request: int
    """Index of the turn request among all model requests."""
    estimate: int
    messages: int
    compaction: dict[str, Any] | None


def _decisions(record: Record) -> list[Decision]:
    decisions: list[Decision] = []
    requests = 0
    pending: dict[str, Any] | None = None
    for event in record["events"]:
        if event["type"] == "compaction":
            pending = event
        elif event["type"] == "model_request":
            if event["purpose"] == "turn":
                turn = len(decisions)
                before = pending.get("estimate_before") if pending else None
                decisions.append(
                    Decision(
                        requests,
                        before if before is not None else estimate(event["messages"]),
                        2 * turn + 1,
                        pending,
                    )
                )
                pending = None
            requests += 1
    return decisions


def compaction_facts(case: Case, record: Record) -> list[Fact]:
    compact = case["setup"]["compact"]
    at, keep = compact.get("at"), compact["keep"]
    low, high = DEFAULT_AT if at is None else (at, at)
    rule = {None: "akan.compaction.threshold.default", 0: "akan.compaction.disabled-at-zero"}.get(
        at, "akan.compaction.threshold.past"
    )
    purposes = [e["purpose"] for e in record["events"] if e["type"] == "model_request"]
    facts: list[Fact] = []
    stated = 0  # model requests whose purpose is stated
    settled = True
    for decision in _decisions(record):
        threshold = "24k" if at is None else str(at)
        why = f"the reference estimates {decision.estimate} tokens against compact.at = {threshold}"
        clear_below = (decision.estimate + EXTRA_TOKENS_PER_MESSAGE * decision.messages) <= low * (
            1 - CLEARANCE
        )
        clear_above = decision.estimate >= high * (1 + CLEARANCE)
        if at != 0 and not clear_below and not clear_above:
            settled = False
            break
        if at != 0 and clear_above and keep > 2 and decision.messages <= keep:
            settled = False  # the cut may land on the first or the newest user message: open
            break
        facts += [
            Fact(rule, f"events[type=model_request][{index}].purpose", "equals", purposes[index], why)
            for index in range(stated, decision.request + 1)
        ]
        stated = decision.request + 1
        if decision.compaction is not None:
            facts += _compaction_facts(decision, keep, record)
            settled = False
            break
    if settled:
        facts.append(Fact(rule, "events[type=compaction]", "count", 0, "no request was past the threshold"))
    return facts


def _compaction_facts(decision: Decision, keep: int, record: Record) -> list[Fact]:
    event = decision.compaction or {}
    facts = [
        Fact(
            "akan.compaction.before-the-turn",
            "events[type=compaction][0].trigger",
            "equals",
            event["trigger"],
        ),
        Fact(
            "akan.compaction.summary-replaces-history",
            "events[type=compaction][0].outcome",
            "equals",
            event["outcome"],
        ),
    ]
    if event["outcome"] == "summarized":
        kept = Fact(
            "akan.compaction.summary-replaces-history",
            "events[type=compaction][0].kept",
            "between",
            [1, keep],
            f"the newest {keep} messages at most, the cut moved onto a user message",
        )
        if keep <= 2:
            kept = Fact(
                "akan.compaction.cut.prefers-user",
                "events[type=compaction][0].kept",
                "equals",
                event["kept"],
                "the kept tail holds one user message, the new one: the cut lands on it",
            )
        facts += [
            kept,
            Fact(
                "akan.compaction.summary-replaces-history",
                f"events[type=model_request][{decision.request}].messages[0].content",
                "equals",
                SUMMARY,
                "the summary opens the compacted request",
            ),
        ]
    return facts


# --- attachments ---------------------------------------------------------------------------------------

MB = {"decimal": 10**6, "binary": 2**20}
#: The ceilings in megabytes: the params are bytes under the reference's 2^20 reading, and the cases are
#: replayed under both readings of a megabyte.
PER_FILE_MB = number("akan.attachments.ceiling.per-file", "max_file_bytes") / MB["binary"]
PER_MESSAGE_MB = number("akan.attachments.ceiling.per-message-bytes", "max_message_bytes") / MB["binary"]
PER_MESSAGE_FILES = int(number("akan.attachments.ceiling.per-message-files", "max_files"))


def boundary_sizes(per_file_mb: float, per_message_mb: float) -> tuple[int, ...]:
    """File sizes where the ceilings' readings part: a byte either side of the per-file ceiling and just
    under and at the per-message one under both megabytes, halves of the per-file ceiling and a third of
    the per-message one (two or three such files meet a ceiling), a decimal megabyte past each, tiny ones."""
    decimal, binary = MB["decimal"], MB["binary"]
    file_edges = {round(per_file_mb * unit) + step for unit in (decimal, binary) for step in (-1, 0, 1)}
    message = round(per_message_mb * decimal)
    sizes = {1, 1_000, decimal - 1, decimal, *file_edges, message - 1, message}
    sizes |= {round(per_file_mb * unit) // 2 for unit in (decimal, binary)}
    sizes |= {-(-round(per_message_mb * binary) // 3), round(per_message_mb * binary)}
    sizes |= {round(per_file_mb * decimal) + decimal, message + decimal}
    return tuple(sorted(sizes))


SIZES = boundary_sizes(PER_FILE_MB, PER_MESSAGE_MB)
#: The largest size a round near the limits draws: a decimal megabyte past the per-message ceiling.
LARGEST = SIZES[-1]
#: Five of these stay under the per-message ceiling under either reading of a megabyte
#: (tests/test_defaults_agree.py).
SMALL_SIZES = (1, 1_000, 100_000, 1_000_000, 1_500_000)
REASON_RULES = {
    "duplicate": "akan.attachments.duplicate-refused",
    "file-too-large": "akan.attachments.ceiling.per-file",
    "too-many-files": "akan.attachments.ceiling.per-message-files",
    "message-too-large": "akan.attachments.ceiling.per-message-bytes",
}


@st.composite
def attachments_case(draw: st.DrawFn) -> Case:
    near_limits = st.one_of(st.sampled_from(SIZES), st.integers(1, LARGEST))
    small = st.sampled_from(SMALL_SIZES)
    steps: list[dict[str, Any]] = []
    made = 0
    for round_number in range(draw(st.integers(1, 3))):
        if round_number:
            steps.append({"op": "send", "text": f"message {round_number}"})
        # A round of small files reaches the five-file ceiling; a round near the limits, the byte ceilings.
        size = draw(st.sampled_from((near_limits, small)))
        files: list[dict[str, Any]] = []
        for _ in range(draw(st.integers(1, 7))):
            if files and draw(st.integers(0, 5)) == 0:
                files.append(dict(draw(st.sampled_from(files))))  # an exact copy
                continue
            made += 1
            files.append({"name": f"f{made}", "type": "image/png", "size": draw(size)})
        steps.append({"op": "attach", "files": files})
    sends = sum(1 for step in steps if step["op"] == "send")
    return {
        "system": "akan",
        "script": [{"purpose": "turn", "text": REPLY} for _ in range(sends)],
        "steps": steps,
    }


def _admit(composer: list[tuple[str, int]], name: str, size: int, unit: int, inclusive: bool) -> bool:
    """One reading of the documented ceilings: is this file taken into the composer?"""

    def over(value: int, limit: int) -> bool:
        return value > limit if inclusive else value >= limit

    if (name, size) in composer:
        return False
    if over(size, round(PER_FILE_MB * unit)) or len(composer) + 1 > PER_MESSAGE_FILES:
        return False
    return not over(sum(s for _, s in composer) + size, round(PER_MESSAGE_MB * unit))


def _fates(case: Case) -> list[tuple[str, set[bool]]]:
    """Every file added, in order, with the fates the readings give it (one element: the documents agree)."""
    readings = [(unit, inclusive) for unit in MB.values() for inclusive in (True, False)]
    composers: list[list[tuple[str, int]]] = [[] for _ in readings]
    fates: list[tuple[str, set[bool]]] = []
    for step in case["steps"]:
        if step["op"] == "send":
            composers = [[] for _ in readings]
            continue
        for file in step["files"]:
            outcome: set[bool] = set()
            for (unit, inclusive), composer in zip(readings, composers, strict=True):
                admitted = _admit(composer, file["name"], file["size"], unit, inclusive)
                outcome.add(admitted)
                if admitted:
                    composer.append((file["name"], file["size"]))
            fates.append((file["name"], outcome))
    return fates


def attachments_facts(case: Case, record: Record) -> list[Fact]:
    fates = _fates(case)
    refused = [e for e in record["events"] if e["type"] == "attachment_refused"]
    added = [e for e in record["events"] if e["type"] == "attachment_added"]
    facts: list[Fact] = []
    for name in dict.fromkeys(name for name, _ in fates):
        if any(len(outcome) > 1 for n, outcome in fates if n == name):
            continue  # the readings of a megabyte, or of "at most", disagree about this file
        reasons = [e["reason"] for e in refused if e["name"] == name]
        rule = (
            REASON_RULES.get(reasons[0], "akan.attachments.refusal-at-paperclip")
            if reasons
            else _closest(name, case)
        )
        why = f"{name}: {_size(name, case):,} bytes"
        facts += [
            Fact(
                rule,
                f"events[type=attachment_added][name={name}]",
                "count",
                sum(1 for e in added if e["name"] == name),
                why,
            ),
            Fact(rule, f"events[type=attachment_refused][name={name}]", "count", len(reasons), why),
        ]
    if all(len(outcome) == 1 for _, outcome in fates):
        facts.append(
            Fact(
                "akan.attachments.refusal-at-paperclip",
                "final.composer",
                "equals",
                record["final"]["composer"],
                "every ceiling is applied as a file is added; the files that fit stay",
            )
        )
    return facts


def _size(name: str, case: Case) -> int:
    sizes = [f["size"] for s in case["steps"] if s["op"] == "attach" for f in s["files"] if f["name"] == name]
    return int(sizes[0])


def _closest(name: str, case: Case) -> str:
    """The ceiling an accepted file came nearest to, to name the rule its acceptance pins."""
    size = _size(name, case)
    if size > PER_FILE_MB * MB["decimal"] * 3 / 4:  # within a quarter of the per-file ceiling
        return "akan.attachments.ceiling.per-file"
    composer: list[int] = []
    for step in case["steps"]:
        if step["op"] == "send":
            composer = []
            continue
        for file in step["files"]:
            if file["name"] == name:
                if len(composer) == PER_MESSAGE_FILES - 1:
                    return "akan.attachments.ceiling.per-message-files"
                return "akan.attachments.ceiling.per-message-bytes"
            composer.append(file["size"])
    return "akan.attachments.ceiling.per-message-bytes"


class AkanGenerator:
    system = "akan"

    def cases(self) -> st.SearchStrategy[Case]:
        families = {"compaction": compaction_case(), "attachments": attachments_case()}
        return st.sampled_from(("compaction", "attachments")).flatmap(families.__getitem__)

    def area(self, case: Case) -> str:
        return "compaction" if "compact" in case.get("setup", {}) else "attachments"

    def facts(self, case: Case, record: Record) -> list[Fact]:
        if self.area(case) == "compaction":
            return compaction_facts(case, record)
        return attachments_facts(case, record)
