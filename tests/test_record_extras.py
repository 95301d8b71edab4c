"""What an implementation carries for itself stays out of judging and shows in the report.

Protocol version 3 allows events of the implementation's own types and ``x-`` fields at any depth (its
diagnostics), and values of open sets that the documents do not name. Judging must not see the first two
(an ``x-`` field inside a compared object would fail an ``equals``; an own event would be counted by a
plain ``events`` selector), and the report must list all three per case.
"""

from __future__ import annotations

import copy
from typing import Any

from conftest import the_catalogue

from conformance.adapters.base import Outcome
from conformance.judging.judge import judge
from conformance.judging.normalise import normalise
from conformance.paths import SCENARIO_ROOT
from conformance.players import play
from conformance.protocol import ImplementationInfo
from conformance.records.extras import notes, set_aside, undocumented
from conformance.report.build import build_report
from conformance.report.html import render
from conformance.report.markdown import to_markdown
from conformance.runner import verdict_for
from conformance.scenario.common import Expectation
from conformance.scenario.load import LoadedScenario, load_file

SCENARIO = "falai/repeat/scope-session-or-lead"


def _scenario() -> LoadedScenario:
    item = load_file(SCENARIO_ROOT / f"{SCENARIO}.yaml")
    assert isinstance(item, LoadedScenario), item
    return item


def _decorated(record: dict[str, Any]) -> dict[str, Any]:
    """The reference's record with an own event first, x- fields inside compared objects, and an end
    reason the guide does not name."""
    record = copy.deepcopy(record)
    turn = next(e for e in record["events"] if e["type"] == "turn")
    turn["started"][0]["x-trace"] = "t-1"
    turn["x-debug"] = {"took": 3}
    turn["ended"].append({"runId": "r#1", "flowId": "r", "reason": "flow"})
    record["events"].insert(0, {"type": "runtime_note", "text": "booted"})
    return record


def test_own_events_and_x_fields_would_change_verdicts_if_judged() -> None:
    """Exact matchers over the plain record pass on it and fail on the decorated one, so the decoration
    would disturb judging if it were not set aside (the scenario's own checks are subsets, which an x-
    field alone does not disturb)."""
    item = _scenario()
    plain = normalise(play(item.payload))
    rule = item.scenario.rules[0]
    started = next(e for e in plain["events"] if e["type"] == "turn")["started"]
    exact = [
        Expectation(rule=rule, path="events[0].type", equals=plain["events"][0]["type"]),
        Expectation(rule=rule, path="events[type=turn][0].started", equals=started),
    ]
    assert judge(exact, plain) == []
    disturbed = judge(exact, normalise(_decorated(play(item.payload))))
    assert [m.index for m in disturbed] == [0, 1], "the decoration disturbs the matchers as it is"


def test_judging_ignores_own_events_and_x_fields_and_notes_them() -> None:
    item = _scenario()
    plain = verdict_for(item, Outcome(record=play(item.payload)))
    assert plain.verdict == "pass" and plain.notes == [], plain.message
    result = verdict_for(item, Outcome(record=_decorated(play(item.payload))))
    assert result.verdict == "pass", result.message
    assert result.notes[0].startswith('events[0]: event type "runtime_note" is the implementation\'s own')
    assert any(".started[0].x-trace: an x- field" in note for note in result.notes)
    assert any(".x-debug: an x- field" in note for note in result.notes)
    assert any('.reason: "flow" is not a documented value' in note for note in result.notes)


def test_set_aside_copies_only_what_it_changes() -> None:
    record = play(_scenario().payload)
    kept, found = set_aside("falai", record)
    assert kept is record and found == []
    decorated = _decorated(record)
    kept, found = set_aside("falai", decorated)
    assert [e["type"] for e in kept["events"]] == [e["type"] for e in record["events"]]
    assert "x-debug" in next(e for e in decorated["events"] if e["type"] == "turn"), "input left as it was"


def test_documented_values_are_not_noted_and_notes_are_capped() -> None:
    record = {"events": [{"type": "turn", "ended": [{"reason": "completed"}]}]}
    assert undocumented("falai", record) == []
    many = {"events": [{"type": "own", "x-n": i} for i in range(40)]}
    _, found = notes("falai", many)
    assert len(found) == 21 and found[-1] == "... and 60 more"


def test_reports_list_the_notes_per_case() -> None:
    item = _scenario()
    result = verdict_for(item, Outcome(record=_decorated(play(item.payload))))
    info = ImplementationInfo(name="own", version="1", language="js", systems=["falai"])
    report = build_report("own", info, [result], result.rules)
    (scenario,) = report.scenarios
    assert scenario.notes == result.notes
    assert "## Set aside and undocumented values" in to_markdown(report)
    assert "runtime_note" in to_markdown(report)
    page = render([report], the_catalogue())
    assert "set aside or undocumented (allowed)" in page and "runtime_note" in page
