"""Defaults in one place (issue 10, item 4): a rule's numeric ``params`` and the reference's constants agree.

Every number in a rule's ``params`` (thresholds, limits, defaults) is either

- in :data:`REFERENCE`, naming the reference attribute that implements it (the policy object's field where
  the runtime reads one, otherwise the owning module's constant), and the two must be equal; or
- in :data:`NOT_A_REFERENCE_DEFAULT`, with the reason no reference constant stands behind it (a count
  the suite observes, a sentinel written in the comparison itself).

A param with a number in neither table fails, so a new param cannot drift from the reference unnoticed;
an entry naming a rule or param that no longer exists fails too, so the tables stay honest.
:data:`VOCABULARY` covers the few limits the scenario vocabulary must restate (it validates scenarios and
may not import the reference): they are checked against the same params. A disagreement names the file
and line of the restating constant.

The fuzz generators' boundaries read the params themselves (``conformance.catalogue.params``) and the
mutants' descriptions derive from the reference's constants, so neither restates a number. Every other line
that does (a rule's title or open question, a scenario's description and values, a docstring) is recorded
in ``conformance/restated.yaml`` and checked by ``conformance.restated``, which names each file and line
still saying the old number (issue 24: one place per documented number).
"""

from __future__ import annotations

import importlib
import inspect
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from functools import reduce
from pathlib import Path
from typing import Any

import pytest
from conftest import the_catalogue

from conformance import restated
from conformance.paths import REPO_ROOT

Getter = Callable[[], Any]


def attribute(path: str) -> Getter:
    """``"module:NAME"`` or ``"module:OBJECT.field"``, read lazily (when the test runs)."""
    module_name, _, dotted = path.partition(":")

    def read() -> Any:
        module = importlib.import_module(module_name)
        return reduce(getattr, dotted.split("."), module)

    read.__qualname__ = path
    read.__doc__ = path  # where(): the attribute's file and line
    return read


def where(getter: Getter) -> str:
    """``file:line`` of the assignment behind ``module:NAME`` or ``module:OBJECT.field`` (the module when
    the line cannot be found), so a disagreement names the place to edit."""
    path = getter.__doc__ or ""
    module_name, _, dotted = path.partition(":")
    if not module_name:
        return "a derived value in tests/test_defaults_agree.py"
    source = inspect.getsourcefile(importlib.import_module(module_name)) or module_name
    name = dotted.split(".")[-1]
    assignment = re.compile(rf"^\s*(?:[A-Za-z_]\w*\s*,\s*)*{re.escape(name)}\b[^=\n]*=")
    lines = Path(source).read_text(encoding="utf-8").splitlines()
    number = next((n for n, line in enumerate(lines, 1) if assignment.match(line)), None)
    relative = os.path.relpath(source, REPO_ROOT)
    return f"{relative}:{number}" if number else relative


def _item(path: str, index: int) -> Getter:
    whole = attribute(path)

    def read() -> Any:
        return whole()[index]

    read.__doc__ = path
    return read


#: (rule id, param path) -> the reference value that implements it.
REFERENCE: dict[tuple[str, str], Getter] = {
    # akan
    ("akan.attachments.ceiling.per-file", "max_file_bytes"): attribute(
        "reference.akan.ceilings:FILE_MAX_BYTES"
    ),
    ("akan.attachments.ceiling.per-message-bytes", "max_message_bytes"): attribute(
        "reference.akan.ceilings:MESSAGE_MAX_BYTES"
    ),
    ("akan.attachments.ceiling.per-message-files", "max_files"): attribute(
        "reference.akan.ceilings:MESSAGE_MAX_FILES"
    ),
    ("akan.compaction.estimate.four-chars-per-token", "chars_per_token"): attribute(
        "reference.akan.policies:DEFAULT_POLICIES.chars_per_token"
    ),
    ("akan.compaction.threshold.default", "at_default_tokens"): attribute(
        "reference.akan.policies:DEFAULT_POLICIES.default_at_tokens"
    ),
    ("akan.compaction.summary-replaces-history", "keep_default_reference"): attribute(
        "reference.akan.policies:DEFAULT_POLICIES.default_keep"
    ),
    ("akan.compaction.command-keeps-nothing", "keep"): attribute(
        "reference.akan.policies:DEFAULT_POLICIES.command_keep"
    ),
    ("akan.compaction.summarizer.bounded-digest", "digest_max_chars_reference"): attribute(
        "reference.akan.policies:DEFAULT_POLICIES.digest_max_chars"
    ),
    ("akan.compaction.summarizer.bounded-digest", "per_message_chars_reference"): attribute(
        "reference.akan.policies:DEFAULT_POLICIES.digest_message_chars"
    ),
    ("akan.readscreen.character-limit", "max_chars"): attribute("reference.akan.screen:MAX_CHARS"),
    # falai
    ("falai.message.scores", "min_score"): attribute("reference.falai.messages:MIN_SCORE"),
    ("falai.message.scores", "max_score"): attribute("reference.falai.messages:MAX_SCORE"),
    ("falai.repeat.always-window", "kept"): attribute("reference.falai.repeat:ALWAYS_CLAIMS_KEPT"),
    **{
        (rule, "new_flow_min_score"): attribute(
            "reference.falai.policies:DEFAULT_POLICIES.new_flow_min_score"
        )
        for rule in (
            "falai.routing.takeover.min-score",
            "falai.routing.new-flow-min-score",
            "falai.routing.lone-candidate-scored",
            "falai.routing.constants",
        )
    },
    **{
        (rule, "takeover_margin"): attribute("reference.falai.policies:DEFAULT_POLICIES.takeover_margin")
        for rule in ("falai.routing.takeover.margin", "falai.routing.constants")
    },
    # llmz
    ("llmz.budget.max-tokens.positive-safe-integer", "maximum"): attribute(
        "reference.llmz.budget:MAX_SAFE_INTEGER"
    ),
    ("llmz.budget.output-reserve.fraction", "ratio"): lambda: (
        1 / attribute("reference.llmz.budget:RESERVE_DIVISOR")()
    ),
    ("llmz.budget.output-reserve.floor", "floor_tokens"): attribute("reference.llmz.budget:RESERVE_FLOOR"),
    ("llmz.budget.output-reserve.ceiling", "ceiling_tokens"): attribute(
        "reference.llmz.budget:RESERVE_CEILING"
    ),
    ("llmz.compaction.trigger-ratio", "trigger_ratio"): attribute(
        "reference.llmz.api:DEFAULT_COMPACTION.trigger_ratio"
    ),
    ("llmz.compaction.target-ratio", "target_ratio"): attribute(
        "reference.llmz.api:DEFAULT_COMPACTION.target_ratio"
    ),
    ("llmz.compaction.keep-recent-iterations", "keep_recent_iterations"): attribute(
        "reference.llmz.api:DEFAULT_COMPACTION.keep_recent_iterations"
    ),
    ("llmz.compaction.max-summary-tokens", "default_tokens"): attribute(
        "reference.llmz.api:DEFAULT_COMPACTION.max_summary_tokens"
    ),
    ("llmz.inspection.budget-integers", "max"): attribute("reference.llmz.preview:MAX_SAFE_INTEGER"),
    ("llmz.inspection.tool-result-default", "default_tokens"): attribute(
        "reference.llmz.policies:DEFAULT_POLICIES.default_result_budget"
    ),
    ("llmz.inspection.tool-result-range", "min"): _item("reference.llmz.definitions:RESULT_BUDGET_RANGE", 0),
    ("llmz.inspection.tool-result-range", "max"): _item("reference.llmz.definitions:RESULT_BUDGET_RANGE", 1),
    ("llmz.memory.default-limit", "max_bytes"): attribute("reference.llmz.memory:DEFAULT_MAX_BYTES"),
    ("llmz.sessions.event-preview-budget", "event_payload_preview_tokens"): attribute(
        "reference.llmz.policies:DEFAULT_POLICIES.event_preview_tokens"
    ),
}

_COUNT = "a count the scenarios observe in the record (calls, messages, runs), not a setting of the reference"

#: (rule id, param path) -> why no reference constant stands behind the number.
NOT_A_REFERENCE_DEFAULT: dict[tuple[str, str], str] = {
    ("akan.compaction.disabled-at-zero", "disabled_at"): "a sentinel: the comparison itself tests for 0",
    ("akan.speech.press-to-talk-into-composer", "utterances_per_press"): _COUNT,
    ("falai.event.zero-calls", "llm_calls_without_talk"): _COUNT,
    ("falai.event.zero-calls", "llm_calls_with_talk"): _COUNT,
    ("falai.mention.say-do-one-call", "llm_calls"): _COUNT,
    ("falai.mention.detector.code-only", "llm_calls"): _COUNT,
    ("falai.message.single-floor", "max_floor_holders"): "structural: the session has one floor slot",
    ("falai.routing.lone-candidate-no-call", "understand_calls"): _COUNT,
    ("falai.idle.silent", "llm_calls"): _COUNT,
    ("falai.idle.silent", "messages"): _COUNT,
    ("falai.silence.speaks-first", "llm_calls"): _COUNT,
    ("falai.start.say-no-call", "llm_calls"): _COUNT,
    ("falai.triggers.judged-by", "judging_calls_per_turn"): _COUNT,
    ("llmz.budget.max-tokens.positive-safe-integer", "minimum"): (
        "the bottom of 'positive', written in the check"
    ),
    ("llmz.budget.output-reserve.room-for-input", "minimum_input_budget"): (
        "what the reserve leaves, at least one token: the formula's ``limit - 1`` term, not a setting"
    ),
    ("llmz.inspection.budget-integers", "min"): "the bottom of 'nonnegative', written in the check",
    ("llmz.inspection.zero-hides", "budget"): "a sentinel: the comparison itself tests for 0",
    ("llmz.memory.single-native-tool", "native_tool_count"): _COUNT,
    ("llmz.memory.one-call-per-response", "max_javascript_calls"): _COUNT,
    ("llmz.tools.effects-run-once", "runs"): _COUNT,
}

_MB = 1024 * 1024

#: Limits the harness restates: the scenario vocabulary validating scenarios (it may not import the
#: reference), and the fuzz generators' boundaries, which read the params (checked here that they still do).
VOCABULARY: dict[tuple[str, str], list[Getter]] = {
    ("llmz.budget.max-tokens.positive-safe-integer", "maximum"): [
        attribute("conformance.scenario.invalid:MAX_SAFE_INTEGER")
    ],
    ("llmz.inspection.budget-integers", "max"): [attribute("conformance.scenario.invalid:MAX_SAFE_INTEGER")],
    ("llmz.inspection.tool-result-range", "max"): [attribute("conformance.scenario.llmz:RESULT_BUDGET_MAX")],
    ("llmz.budget.output-reserve.floor", "floor_tokens"): [
        attribute("conformance.fuzz.llmz:FLOOR"),
        attribute("conformance.fuzz.llmz_compaction:FLOOR"),
    ],
    ("llmz.budget.output-reserve.ceiling", "ceiling_tokens"): [
        attribute("conformance.fuzz.llmz:CEILING"),
        attribute("conformance.fuzz.llmz_compaction:CEILING"),
    ],
    ("llmz.compaction.trigger-ratio", "trigger_ratio"): [
        attribute("conformance.fuzz.llmz_compaction:TRIGGER_RATIO")
    ],
    ("llmz.compaction.target-ratio", "target_ratio"): [
        attribute("conformance.fuzz.llmz_compaction:TARGET_RATIO")
    ],
    ("llmz.compaction.keep-recent-iterations", "keep_recent_iterations"): [
        attribute("conformance.fuzz.llmz_compaction:KEEP_RECENT")
    ],
    ("llmz.compaction.max-summary-tokens", "default_tokens"): [
        attribute("conformance.fuzz.llmz_compaction:MAX_SUMMARY_TOKENS")
    ],
    ("akan.compaction.threshold.default", "at_default_tokens"): [
        _item("conformance.fuzz.akan:DEFAULT_AT", 0)
    ],
    ("akan.attachments.ceiling.per-file", "max_file_bytes"): [
        lambda: attribute("conformance.fuzz.akan:PER_FILE_MB")() * _MB
    ],
    ("akan.attachments.ceiling.per-message-bytes", "max_message_bytes"): [
        lambda: attribute("conformance.fuzz.akan:PER_MESSAGE_MB")() * _MB
    ],
    ("akan.attachments.ceiling.per-message-files", "max_files"): [
        attribute("conformance.fuzz.akan:PER_MESSAGE_FILES")
    ],
}


def numbers(value: Any, path: str = "") -> Iterator[tuple[str, int | float]]:
    """Every number inside a params value, with its dotted path (list items as ``[i]``); booleans are not
    numbers here."""
    if isinstance(value, bool):
        return
    if isinstance(value, int | float):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from numbers(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from numbers(item, f"{path}[{index}]")


def _catalogue_numbers() -> dict[tuple[str, str], int | float]:
    catalogue = the_catalogue()
    assert not catalogue.errors, catalogue.errors
    return {
        (rule_id, path): value
        for rule_id, entry in catalogue.rules.items()
        for path, value in numbers(entry.rule.params)
    }


PARAMS = _catalogue_numbers()


def mismatch(params: dict[tuple[str, str], int | float], rule: str, param: str) -> str | None:
    """Why ``REFERENCE[rule, param]`` disagrees with the catalogue (None when it agrees)."""
    if (rule, param) not in params:
        return f"{rule} has no numeric param {param!r}: remove the stale table entry"
    actual = REFERENCE[rule, param]()
    if actual != pytest.approx(params[rule, param]):
        getter = REFERENCE[rule, param]
        return (
            f"{rule}.params.{param} is {params[rule, param]!r} but the reference has {actual!r} "
            f"({getter.__qualname__}, {where(getter)})"
        )
    return None


def unexplained(params: dict[tuple[str, str], int | float]) -> list[tuple[str, str]]:
    """Numeric params with neither a reference attribute nor a reason."""
    return sorted(set(params) - set(REFERENCE) - set(NOT_A_REFERENCE_DEFAULT))


@pytest.mark.parametrize(("rule", "param"), sorted(REFERENCE), ids=lambda v: str(v))
def test_reference_implements_the_param(rule: str, param: str) -> None:
    problem = mismatch(PARAMS, rule, param)
    assert problem is None, problem


@pytest.mark.parametrize(("rule", "param"), sorted(VOCABULARY), ids=lambda v: str(v))
def test_vocabulary_restates_the_param(rule: str, param: str) -> None:
    assert (rule, param) in PARAMS, f"{rule} has no numeric param {param!r}: remove the stale table entry"
    for restating in VOCABULARY[rule, param]:
        value = restating()
        assert value == PARAMS[rule, param], (
            f"{rule}.params.{param} is {PARAMS[rule, param]!r} but {where(restating)} restates {value!r}"
        )


def test_every_numeric_param_is_accounted_for() -> None:
    missing = unexplained(PARAMS)
    assert not missing, (
        "numeric params with neither a reference attribute (REFERENCE) nor a reason "
        f"(NOT_A_REFERENCE_DEFAULT) in tests/test_defaults_agree.py: {missing}"
    )


def test_no_stale_or_double_entries() -> None:
    stale = sorted(set(NOT_A_REFERENCE_DEFAULT) - set(PARAMS))
    assert not stale, f"NOT_A_REFERENCE_DEFAULT names params that no longer exist: {stale}"
    both = sorted(set(REFERENCE) & set(NOT_A_REFERENCE_DEFAULT))
    assert not both, f"params both mapped and excused: {both}"


def test_the_checks_can_fail() -> None:
    """A drifted param, a vanished one and a new unlisted one are each reported."""
    rule = "falai.routing.constants"
    assert mismatch({**PARAMS, (rule, "takeover_margin"): 16}, rule, "takeover_margin") is not None
    gone = {key: value for key, value in PARAMS.items() if key != (rule, "takeover_margin")}
    assert mismatch(gone, rule, "takeover_margin") is not None
    assert unexplained({**PARAMS, (rule, "new_limit"): 7}) == [(rule, "new_limit")]


def test_scenario_epoch_is_the_reference_clock_default() -> None:
    """Scenarios start at 2026-01-05T12:00Z: falai's vocabulary passes that epoch explicitly, while the
    other players rely on the reference clock's default. The two must be the same instant."""
    from conformance.scenario.falai import DEFAULT_CLOCK_START_MS
    from reference.clock import DEFAULT_START_MS

    assert DEFAULT_CLOCK_START_MS == DEFAULT_START_MS


def test_a_drifted_constant_is_named_by_file_and_line() -> None:
    getter = REFERENCE["akan.attachments.ceiling.per-file", "max_file_bytes"]
    problem = mismatch(
        {**PARAMS, ("akan.attachments.ceiling.per-file", "max_file_bytes"): 1}, *getter_key(getter)
    )
    assert problem is not None and re.search(r"reference/akan/ceilings\.py:\d+\)$", problem), problem
    assert re.fullmatch(
        r"conformance/scenario/llmz\.py:\d+", where(attribute("conformance.scenario.llmz:RESULT_BUDGET_MAX"))
    )


def getter_key(getter: Getter) -> tuple[str, str]:
    return next(key for key, value in REFERENCE.items() if value is getter)


# --- restatements: conformance/restated.yaml -----------------------------------------------------------


def test_every_restated_number_agrees_with_its_param() -> None:
    problems = restated.check()
    assert not problems, "\n".join(problems)


PER_FILE = "akan.attachments.ceiling.per-file"
COPIED = ("spec", "reference", "variants", "conformance", "fixtures/scenarios")


@pytest.fixture(scope="module")
def changed_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the tree with Akan's per-file ceiling changed in its one place, the rule's params."""
    root = tmp_path_factory.mktemp("tree")
    for folder in COPIED:
        shutil.copytree(REPO_ROOT / folder, root / folder, ignore=shutil.ignore_patterns("__pycache__"))
    rules = root / "spec" / "akan" / "attachments.yaml"
    text = rules.read_text(encoding="utf-8")
    assert text.count("params: {max_file_bytes: 4194304}") == 1
    rules.write_text(text.replace("{max_file_bytes: 4194304}", "{max_file_bytes: 5242880}"), encoding="utf-8")
    return root


def test_changing_a_documented_number_names_every_line_that_restates_it(changed_tree: Path) -> None:
    """Akan's per-file ceiling goes from 4 MB to 5 MB in spec/akan/attachments.yaml alone: the check names
    each other place that still says 4 MB, by file and line, and nothing else."""
    problems = restated.check(changed_tree)
    named = {re.match(r"([^:]+):(\d+)", p).groups() for p in problems}  # type: ignore[union-attr]
    assert all(PER_FILE in p for p in problems), problems
    files = {file for file, _ in named}
    assert files == {
        "spec/akan/attachments.yaml",  # the title, statement and open question; another rule's question
        "reference/akan/ceilings.py",  # FILE_MAX_BYTES
        "fixtures/scenarios/akan/attachments/per-file-ceiling.yaml",  # title, description, sizes, why
    }, problems
    assert (
        "reference/akan/ceilings.py",
        str(_line(REPO_ROOT / "reference/akan/ceilings.py", "FILE_MAX_BYTES =")),
    ) in named
    assert any("says 'FILE_MAX_BYTES = 4 * MB'" in p and "should read 5" in p for p in problems)


def _line(path: Path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def test_what_derives_from_the_param_follows_it(changed_tree: Path) -> None:
    """The fuzz boundaries read the changed param; once the reference's constant (named above) is fixed,
    the mutant's description follows it. Neither needed an edit of its own."""
    ceilings = changed_tree / "reference" / "akan" / "ceilings.py"
    ceilings.write_text(ceilings.read_text().replace("FILE_MAX_BYTES = 4 * MB", "FILE_MAX_BYTES = 5 * MB"))
    probe = (
        "from conformance.fuzz import akan\n"
        "from variants.mutants.akan.conversation import MUTANTS\n"
        "print(akan.PER_FILE_MB, 5 * 2**20 + 1 in akan.SIZES, 5_000_001 in akan.SIZES)\n"
        "print(next(m.description for m in MUTANTS if m.name == 'akan-file-ceiling-off-by-one'))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(changed_tree)}
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=changed_tree, env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.splitlines() == ["5.0 True True", "a file of exactly 5 MB is refused"], done.stderr
    remaining = restated.check(changed_tree)
    assert not any("reference/akan/ceilings.py" in p for p in remaining)


def test_an_unrecorded_restatement_is_named(tmp_path: Path) -> None:
    """A new line restating a param, in a file naming the rule, fails until it is recorded or derived."""
    for folder in ("spec", "reference/akan"):
        shutil.copytree(REPO_ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    ceilings = tmp_path / "reference" / "akan" / "ceilings.py"
    ceilings.write_text(ceilings.read_text() + "\n# the ceiling is 4,194,304 bytes\n")
    ledger = tmp_path / "restated.yaml"
    shutil.copy(restated.LEDGER, ledger)
    problems = [p for p in restated.check(tmp_path, ledger) if "not in" in p]
    assert len(problems) == 1 and problems[0].startswith("reference/akan/ceilings.py:"), problems
    assert restated.write(tmp_path, ledger) == 1 and not [
        p for p in restated.check(tmp_path, ledger) if "not in" in p
    ]


def test_five_small_files_fit_the_message_ceiling_under_either_megabyte() -> None:
    from conformance.fuzz import akan

    assert 5 * max(akan.SMALL_SIZES) <= akan.PER_MESSAGE_MB * min(akan.MB.values())
