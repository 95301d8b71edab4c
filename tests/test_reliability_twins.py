"""Reliability: relations and twins (``conformance.scenario.twins``, ``conformance.judging.relations``).

A twin's patch is scenario text, so it may be hostile: huge, deeply nested, named like JavaScript's
prototype keys, with list positions that are negative, enormous or not plain numbers, or replacing the
whole played half. Each is a load error naming the twin, never a traceback. A twin is played by the
implementation, so its answer may be hostile too: a crash, a hang, a skip, a wrong or stale ``seq``, a
line that is not JSON, or a value of megabytes. Each must end the case in its verdict with the twin named,
in bounded time and bounded text, and the next case must still be played.
"""

from __future__ import annotations

import contextlib
import io
import json
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import fake_command, minimal_scenario

from conformance.cli import main
from conformance.judging.judge import judge
from conformance.scenario.common import Expectation
from conformance.scenario.load import LoadedScenario, LoadError, load_file
from conformance.yamlio import MAX_DEPTH

pytestmark = pytest.mark.reliability

SYSTEM = minimal_scenario()["system"]
RULE = minimal_scenario()["rules"][0]
STEP = minimal_scenario()["steps"][0]


def _scenario(twins: dict[str, Any], play: str | None = None) -> dict[str, Any]:
    document = minimal_scenario()
    document["setup"] = {}
    document["twins"] = twins
    if play is not None:
        document["expect"].append(
            {"rule": RULE, "path": "final.status", "relation": {"op": "equal", "play": play}}
        )
    return document


def _load(tmp_path: Path, document: dict[str, Any] | str) -> LoadedScenario | LoadError:
    path = tmp_path / SYSTEM / "area" / "case.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    text = document if isinstance(document, str) else yaml.safe_dump(document, sort_keys=False)
    path.write_text(text, encoding="utf-8")
    return load_file(path, tmp_path)


def _nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {"leaf": 1}
    for _ in range(depth):
        value = {"n": value}
    return value


HOSTILE_PATCHES = {
    "negative position": ({"set": {"steps.-1": STEP}}, "expected a position in a list of 1, got '-1'"),
    "double minus": ({"set": {"steps.--1": STEP}}, "got '--1'"),
    "superscript digit": ({"set": {"steps.²": STEP}}, "got '²'"),
    "arabic-indic digit": ({"set": {"steps.٣": STEP}}, "got '٣'"),
    "huge position": ({"set": {"steps.99999999999999999999999": STEP}}, "got '99999999999999999999999'"),
    "huge negative position": ({"remove": ["steps.-99999999999999999999"]}, "got '-99999999999999999999'"),
    "leading zero": ({"set": {"steps.00": STEP}}, "got '00'"),
    "__proto__ key": (
        {"set": {"setup.__proto__": {"polluted": True}}},
        "twins.t: the patched case is invalid",
    ),
    "prototype path": ({"set": {"setup.constructor.prototype": 1}}, "'setup.constructor' does not exist"),
    "__proto__ under a step": ({"set": {"steps.0.__proto__": {"x": 1}}}, "the patched case is invalid"),
    "the whole played half": ({"set": {"steps": "all of it"}}, "the patched case is invalid: field steps"),
    "no steps at all": ({"remove": ["steps"]}, "the patched case is invalid: field steps"),
    "the answer key": ({"set": {"expect": []}}, "patches only the played half"),
    "the whole document": ({"set": {"": {}}}, "patches only the played half"),
    "deeply nested value": ({"set": {"setup.deep": _nested(MAX_DEPTH + 10)}}, "nest deeper than"),
    "10,000 paths": (
        {"set": {f"setup.k{i}": i for i in range(10_000)}},
        "the patched case is invalid",
    ),
    "a megabyte key": ({"set": {"setup." + "k" * 1_000_000: 1}}, "the patched case is invalid"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE_PATCHES))
def test_a_hostile_twin_patch_is_a_load_error_naming_the_twin(tmp_path: Path, case: str) -> None:
    """Before: ``--1`` and ``²`` raised ValueError out of the loader (``str.isdigit`` accepts them,
    ``int`` does not), and ``-1`` silently patched the last step."""
    patch, complaint = HOSTILE_PATCHES[case]
    loaded = _load(tmp_path, _scenario({"t": {"why": "hostile patch", **patch}}, play="t"))
    assert isinstance(loaded, LoadError), case
    assert complaint in loaded.message, loaded.message
    assert len(loaded.message) < 2_000


def test_a_patch_may_replace_the_whole_step_list_with_a_valid_one(tmp_path: Path) -> None:
    loaded = _load(
        tmp_path, _scenario({"t": {"why": "same steps again", "set": {"steps": [STEP, STEP]}}}, "t")
    )
    assert isinstance(loaded, LoadedScenario), getattr(loaded, "message", "")
    assert loaded.twin_payload("t")["steps"] == [STEP, STEP]


# -- relations over enormous values --------------------------------------------------------------------


def _relation(op: str = "equal") -> Expectation:
    return Expectation(rule=RULE, path="final.v", relation={"op": op, "play": "t"})


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("a" * 100_000_000 + "x", "a" * 100_000_000 + "y"),
        (list(range(1_000_000)), [*range(999_999), -1]),
        ({str(i): i for i in range(200_000)}, {str(i): i + (i == 199_999) for i in range(200_000)}),
    ],
    ids=["100-MB-strings", "million-item-lists", "200k-key-objects"],
)
def test_a_relation_over_enormous_values_shows_a_bounded_excerpt_quickly(left: Any, right: Any) -> None:
    """Before: finding the first difference of two long strings walked them a character at a time."""
    for op in ("equal", "at_most", "within"):
        expectation = Expectation(
            rule=RULE, path="final.v",
            relation={"op": op, "play": "t", **({"tolerance": 0} if op == "within" else {})},
        )  # fmt: skip
        started = time.monotonic()
        other = right if op == "equal" else "abc"
        mismatches = judge(
            [expectation], {"events": [], "final": {"v": left}}, {"t": {"final": {"v": other}}}
        )
        # A string is compared in C (before: a character loop, 10 s for 100 MB); a list or object is dumped
        # to JSON once, linear but slower on a loaded machine.
        assert time.monotonic() - started < (5 if isinstance(left, str) else 30), op
        (mismatch,) = mismatches
        assert len(str(mismatch)) < 1_000, op


def test_a_relation_over_values_nested_past_the_stack_is_an_error_not_a_crash(tmp_path: Path) -> None:
    """Judging a value nested deeper than Python's stack costs the case (``judging failed``), not the run."""
    from conformance.adapters.base import Outcome
    from conformance.runner import run_case

    loaded = _load(tmp_path, _scenario({"t": {"why": "same again", "set": {"steps.0": STEP}}}, "t"))
    assert isinstance(loaded, LoadedScenario)
    deep: list[Any] = []
    for _ in range(20_000):
        deep = [deep]

    class Deep:
        def hello(self) -> Any:
            from conformance.adapters.reference import ReferenceAdapter

            return ReferenceAdapter().hello()

        def run(self, payload: dict[str, Any], timeout: float) -> Outcome:
            from fakes.fake_impl import minimal_record

            record = minimal_record(SYSTEM)
            record["final"]["status"] = deep if "~" in payload["id"] else "ok"
            return Outcome(record=record)

        def close(self) -> None:
            pass

    result = run_case(Deep(), Deep().hello(), loaded)
    assert result.verdict == "error" and len(result.message) < 1_000, result.message


# -- twins the implementation answers badly, through the stdio harness ---------------------------------

#: Twin name (the fake reads its behaviour from it) -> the verdict, and words of the case's message.
TWIN_ANSWERS = {
    "fake-crash": ("error", "twin 'fake-crash': "),
    "fake-hang": ("error", "twin 'fake-hang': timeout"),
    "fake-skip": ("skip", "twin 'fake-skip': fake cannot express this"),
    "fake-refuse": ("error", "twin 'fake-refuse': the implementation reported: fake refused to play"),
    "fake-wrong-seq": ("error", "twin 'fake-wrong-seq': "),
    "fake-stale": ("error", "twin 'fake-stale': timeout"),
    "fake-garbage": ("error", "twin 'fake-garbage': "),
    "fake-bad-record": ("error", "twin 'fake-bad-record': "),
    "fake-controls-skip": ("skip", "twin 'fake-controls-skip': cannot: "),
    "fake-enormous": ("fail", "twin 'fake-enormous': they differ at character 2 (lengths 2 and 5000001)"),
}
TIMEOUT = 3
TwinRun = tuple[Path, dict[str, dict[str, Any]], float]


@pytest.fixture(scope="module")
def twin_run(tmp_path_factory: pytest.TempPathFactory) -> TwinRun:
    """One run: a scenario per hostile twin answer, each followed by a plain case that must pass."""
    tmp = tmp_path_factory.mktemp("twins")
    root = tmp / "scenarios"
    for index, twin in enumerate(TWIN_ANSWERS):
        area = root / SYSTEM / "area"
        area.mkdir(parents=True, exist_ok=True)
        patch = {"why": "the same play again", "set": {"steps.0": STEP}}
        (area / f"{index:02}-main.yaml").write_text(json.dumps(_scenario({twin: patch}, twin)), "utf-8")
        (area / f"{index:02}-next.yaml").write_text(json.dumps(minimal_scenario()), "utf-8")
    out, err = io.StringIO(), io.StringIO()
    started = time.monotonic()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        main(
            ["run", "--impl", fake_command("fake_impl.py"), "--scenarios", str(root),
             "--report-dir", str(tmp / "out"), "--timeout", str(TIMEOUT)]
        )  # fmt: skip
    elapsed = time.monotonic() - started
    report = json.loads((tmp / "out" / "report.json").read_text(encoding="utf-8"))
    return tmp / "out", {case["id"].rsplit("/", 1)[1]: case for case in report["scenarios"]}, elapsed


@pytest.mark.parametrize("twin", sorted(TWIN_ANSWERS))
def test_a_hostile_twin_answer_decides_the_case_naming_the_twin(twin_run: TwinRun, twin: str) -> None:
    _, cases, _ = twin_run
    index = list(TWIN_ANSWERS).index(twin)
    case = cases[f"{index:02}-main"]
    verdict, words = TWIN_ANSWERS[twin]
    assert (case["verdict"], words in (case["message"] or "")) == (verdict, True), case["message"]
    assert len(case["message"]) < 5_000
    assert cases[f"{index:02}-next"]["verdict"] == "pass", cases[f"{index:02}-next"]["message"]


def test_hostile_twins_cost_at_most_their_timeouts(
    twin_run: TwinRun,
) -> None:
    _, _, elapsed = twin_run
    waits = sum(1 for verdict, words in TWIN_ANSWERS.values() if "timeout" in words)
    assert elapsed < waits * TIMEOUT + 60


def test_reports_of_a_megabyte_relation_stay_small(
    twin_run: TwinRun,
) -> None:
    out, _, _ = twin_run
    for name in ("report.json", "report.md", "report.html", "junit.xml"):
        assert (out / name).stat().st_size < 1_000_000, name
