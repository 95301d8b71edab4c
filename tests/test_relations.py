"""Relations and twins: a scenario may compare two observations, of one play or of two plays of a case.

What a scenario author relies on: the four relations and how sizes stand in for numbers; a twin is a
patch of the played half, checked at load, sent as a case of its own; and the relations in the suite
fail on the implementations that break their rules (a mutant each) while the other readings pass.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from conformance.adapters.base import Outcome
from conformance.adapters.reference import ReferenceAdapter
from conformance.judging.judge import judge
from conformance.paths import SCENARIO_ROOT
from conformance.protocol import ImplementationInfo
from conformance.runner import run_case
from conformance.scenario.common import Expectation
from conformance.scenario.load import LoadedScenario, LoadError, load_file
from conformance.scenario.twins import Twin, TwinError, apply

RECORD: dict[str, Any] = {
    "events": [
        {"type": "model_request", "max_tokens": 600, "room": 800, "messages": ["a", "b"]},
        {"type": "model_request", "max_tokens": 900, "room": 800, "messages": ["a", "b", "c"]},
    ],
    "final": {"status": "idle", "kept": ["x", "y"], "done": True},
}


def relation(path: str, **fields: Any) -> Expectation:
    return Expectation(rule="llmz.x", path=path, relation=fields)


@pytest.mark.parametrize(
    ("expectation", "holds"),
    [
        (relation("events[0].max_tokens", op="at_most", to="events[0].room"), True),
        (relation("events[1].max_tokens", op="at_most", to="events[1].room"), False),
        (relation("events[1].max_tokens", op="at_least", to="events[1].room"), True),
        (relation("events[0].max_tokens", op="within", to="events[0].room", tolerance=200), True),
        (relation("events[0].max_tokens", op="within", to="events[0].room", tolerance=199), False),
        (relation("events[0].messages", op="at_most", to="events[1].messages"), True),  # lengths 2 and 3
        (relation("final.kept", op="within", to="events[0].messages", tolerance=0), True),  # 2 and 2
        (relation("final.kept", op="equal", to="events[0].messages"), False),
        (relation("events[0].room", op="equal", to="events[1].room"), True),
    ],
)
def test_relations_within_one_record(expectation: Expectation, holds: bool) -> None:
    assert (judge([expectation], RECORD) == []) is holds


def test_a_relation_with_a_twin_reads_the_twins_record() -> None:
    twin = {"events": [], "final": {"status": "idle", "kept": ["x", "y", "z"]}}
    same = relation("final.status", op="equal", play="again")
    fewer = relation("final.kept", op="at_most", play="again")
    more = relation("final.kept", op="at_least", play="again")
    assert judge([same, fewer], RECORD, {"again": twin}) == []
    (mismatch,) = judge([more], RECORD, {"again": twin})
    assert mismatch.message == (
        "relation at final.kept: at_least final.kept in twin 'again': found 2 items ([\"x\", \"y\"]) against "
        '3 items (["x", "y", "z"])'
    )
    assert mismatch.expected == {"op": "at_least", "play": "again"}


def test_an_unplayed_twin_is_a_failure_not_a_pass() -> None:
    (mismatch,) = judge([relation("final.status", op="equal", play="again")], RECORD)
    assert "the twin 'again' was not played" in mismatch.message


def test_a_side_that_selects_nothing_fails_naming_the_side() -> None:
    (mismatch,) = judge([relation("final.status", op="equal", to="final.missing")], RECORD)
    assert "final.missing in this play matched nothing" in mismatch.message


def test_ordering_relations_need_numbers_or_sizes() -> None:
    (mismatch,) = judge([relation("final.done", op="at_most", to="events[0].room")], RECORD)
    assert "must both be numbers" in mismatch.message


def test_unequal_long_values_are_shown_where_they_part() -> None:
    left = {"final": {"text": "x" * 500 + "LEFT"}}
    right = {"final": {"text": "x" * 500 + "RIGHT"}}
    (mismatch,) = judge([relation("final.text", op="equal", play="t")], left, {"t": right})
    assert "they differ at character 500" in mismatch.message
    assert '"LEFT"' in mismatch.message.replace("x", "") and "RIGHT" in mismatch.message


@pytest.mark.parametrize(
    ("fields", "complaint"),
    [
        ({"op": "equal"}, "give `to`"),
        ({"op": "within", "to": "a"}, "op within needs it"),
        ({"op": "equal", "to": "a", "tolerance": 1}, "`tolerance` goes with op within"),
        ({"op": "greater", "to": "a"}, "Input should be"),
    ],
)
def test_a_malformed_relation_is_refused(fields: dict[str, Any], complaint: str) -> None:
    with pytest.raises(ValidationError, match=complaint):
        relation("final.status", **fields)


# -- twins ----------------------------------------------------------------------------------------------

DOCUMENT: dict[str, Any] = {
    "system": "llmz",
    "setup": {"tools": [{"name": "a"}]},
    "steps": [{"op": "append"}, {"op": "execute"}],
    "expect": [],
}


def test_a_twin_sets_creates_and_removes_and_leaves_the_original_alone() -> None:
    twin = Twin(
        why="the default written out",
        set={"setup.options": {"x": 1}, "steps.1.op": "run"},
        remove=["setup.tools"],
    )
    patched = apply(DOCUMENT, "t", twin)
    assert patched["setup"] == {"options": {"x": 1}}
    assert patched["steps"][1] == {"op": "run"}
    assert DOCUMENT["setup"] == {"tools": [{"name": "a"}]} and DOCUMENT["steps"][1] == {"op": "execute"}


@pytest.mark.parametrize(
    ("twin", "complaint"),
    [
        (
            Twin(why="abc", set={"setup.nothing.x": 1}),
            "twins.t: 'setup.nothing.x': 'setup.nothing' does not exist",
        ),
        (
            Twin(why="abc", remove=["setup.gone"]),
            "'setup.gone' does not exist in the scenario, so it cannot be removed",
        ),
        (Twin(why="abc", set={"steps.7.op": "x"}), "expected a position in a list of 2, got '7'"),
    ],
)
def test_a_patch_that_does_not_fit_names_the_twin_and_the_path(twin: Twin, complaint: str) -> None:
    with pytest.raises(TwinError, match=complaint.replace(".", r"\.").replace("(", r"\(")):
        apply(DOCUMENT, "t", twin)


def test_a_twin_may_not_touch_the_answer_key() -> None:
    with pytest.raises(ValidationError, match="patches only the played half"):
        Twin(why="abc", set={"expect.0.equals": 1})


def _write(tmp_path: Path, text: str) -> LoadedScenario | LoadError:
    folder = tmp_path / "llmz" / "area"
    folder.mkdir(parents=True)
    path = folder / "case.yaml"
    path.write_text(text, encoding="utf-8")
    return load_file(path, tmp_path)


SCENARIO = """\
system: llmz
title: twin test
rules: [llmz.inspection.tool-result-default]
setup: {}
script:
  - tool_calls: [{code: 'return exit("done", { success: true })'}]
steps:
  - {op: append, messages: [{role: user, content: hi}]}
  - {op: execute, mode: worker}
twins:
  written-out:
    why: the default written out
    set: {setup.options: %s}
expect:
  - rule: llmz.inspection.tool-result-default
    path: final
    relation: {op: equal, play: %s}
"""


def test_a_twin_whose_case_is_invalid_is_a_load_error_naming_it(tmp_path: Path) -> None:
    loaded = _write(tmp_path, SCENARIO % ("{tool_result_max_tokens: [not, a, number]}", "written-out"))
    assert isinstance(loaded, LoadError)
    assert "twins.written-out: the patched case is invalid" in loaded.message


def test_a_relation_naming_an_undeclared_twin_is_a_load_error(tmp_path: Path) -> None:
    loaded = _write(tmp_path, SCENARIO % ("{tool_result_max_tokens: 2000}", "missing"))
    assert isinstance(loaded, LoadError)
    assert "relation.play 'missing' names no twin of this scenario (twins: written-out)" in loaded.message


class _Recording(ReferenceAdapter):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[dict[str, Any]] = []

    def run(self, payload: dict[str, Any], timeout: float) -> Outcome:
        self.seen.append(payload)
        return super().run(payload, timeout)


def test_each_twin_is_sent_as_a_case_of_its_own_without_the_answer_key(tmp_path: Path) -> None:
    loaded = _write(tmp_path, SCENARIO % ("{tool_result_max_tokens: 2000}", "written-out"))
    assert isinstance(loaded, LoadedScenario)
    adapter = _Recording()
    result = run_case(adapter, adapter.hello(), loaded)
    assert result.verdict == "pass", result.message
    assert [p["id"] for p in adapter.seen] == ["llmz/area/case", "llmz/area/case~written-out"]
    assert adapter.seen[1]["setup"] == {"options": {"tool_result_max_tokens": 2000}}
    assert all("twins" not in p and "expect" not in p for p in adapter.seen)


class _TwinSkips(ReferenceAdapter):
    def run(self, payload: dict[str, Any], timeout: float) -> Outcome:
        if payload["id"].endswith("~written-out"):
            return Outcome(skip="cannot write the option out")
        return super().run(payload, timeout)


def test_a_twin_that_is_skipped_skips_the_case_with_its_reason(tmp_path: Path) -> None:
    loaded = _write(tmp_path, SCENARIO % ("{tool_result_max_tokens: 2000}", "written-out"))
    assert isinstance(loaded, LoadedScenario)
    adapter = _TwinSkips()
    result = run_case(adapter, adapter.hello(), loaded)
    assert (result.verdict, result.message) == ("skip", "twin 'written-out': cannot write the option out")


# -- the relations in the suite can fail ------------------------------------------------------------------


def _verdict(scenario: str, adapter: ReferenceAdapter) -> str:
    item = load_file(SCENARIO_ROOT / f"{scenario}.yaml")
    assert isinstance(item, LoadedScenario)
    info: ImplementationInfo = adapter.hello()
    return run_case(adapter, info, item).verdict


@pytest.mark.parametrize(
    ("scenario", "mutant"),
    [
        ("llmz/inspection/tool-result-default-budget", "llmz-inspection-default-budget-off-by-one"),
        ("akan/attachments/same-name-either-order", "akan-duplicate-by-ordered-size"),
        (
            "llmz/compaction/summary-allowance-within-remaining-space",
            "llmz-compaction-summary-room-ignores-kept",
        ),
        ("llmz/compaction/summary-allowance-within-remaining-space", "llmz-compaction-summary-room-doubled"),
        ("llmz/memory/default-limit-as-written-out", "llmz-memory-default-limit-off-by-one"),
        ("llmz/compaction/restored-session-compacts-as-unsaved", "llmz-compaction-controls-reset-on-restore"),
        ("akan/sanitize/reload-continues-as-never-reloaded", "akan-restore-answers-every-call"),
        ("falai/routing/winner-independent-of-flow-order", "falai-first-qualifying-flow-wins"),
        ("akan/compaction/default-threshold-between-readings", "akan-default-threshold-below-24000"),
        (
            "akan/compaction/larger-threshold-never-compacts-sooner",
            "akan-large-threshold-falls-back-to-default",
        ),
        ("llmz/compaction/higher-trigger-never-compacts-sooner", "llmz-compaction-high-trigger-falls-back"),
        ("falai/repeat/longer-cooldown-never-starts-more", "falai-cooldown-in-calendar-days"),
        ("akan/zones/sibling-zone-name-changes-nothing", "akan-zone-sees-zones-named-before"),
        ("akan/state/writable-states-differing-only-in-case", "akan-setters-collide-on-case"),
        ("akan/state/use-state-and-expose-readable", "akan-use-state-always-writable"),
        ("akan/state/local-state-falsy-name-unpublished", "akan-unnamed-state-publishes-setter"),
        ("akan/state/use-state-undescribable-set-read-only", "akan-undescribable-setter-published"),
        ("akan/ui/repeatable-components-need-namespace", "akan-dropdown-close-ignored"),
        ("akan/ui/sure-to-remove-gated", "akan-sure-to-remove-always"),
    ],
)
def test_each_relation_scenario_passes_the_reference_and_fails_its_mutant(scenario: str, mutant: str) -> None:
    assert _verdict(scenario, ReferenceAdapter()) == "pass"
    assert _verdict(scenario, ReferenceAdapter(mutant)) == "fail"


def test_both_readings_of_24k_pass_the_threshold_bracket() -> None:
    for variant in (None, "akan-default-24576", "akan-threshold-inclusive"):
        assert (
            _verdict("akan/compaction/default-threshold-between-readings", ReferenceAdapter(variant))
            == "pass"
        )


def test_every_reading_of_a_zone_surface_passes_the_sibling_renaming() -> None:
    for variant in (None, "akan-zone-agent-sees-whole-page", "akan-zone-tools-scope-prefixed"):
        assert _verdict("akan/zones/sibling-zone-name-changes-nothing", ReferenceAdapter(variant)) == "pass"


def test_the_other_reading_of_the_same_file_passes_both_orders() -> None:
    assert (
        _verdict("akan/attachments/same-name-either-order", ReferenceAdapter("akan-duplicate-by-name"))
        == "pass"
    )


def test_a_hook_handed_the_request_itself_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The generated mutant ``if copies`` -> ``if not copies`` in reference/llmz/request_hook.py: the hook
    edits the request's own messages and returns nothing, so the edits are sent (history stays intact)."""
    from reference.llmz import request_hook
    from reference.record import snapshot

    def handed_originals(hook: Any, messages: list[Any], copies: bool = True) -> Any:
        return hook([snapshot(m) for m in messages] if not copies else messages)

    scenario = "llmz/hooks/request-messages-are-copies"
    assert _verdict(scenario, ReferenceAdapter()) == "pass"
    monkeypatch.setattr(request_hook, "replaced_messages", handed_originals)
    assert _verdict(scenario, ReferenceAdapter()) == "fail"
