"""Reliability: the record contract (protocol 3) against an implementation that uses its freedoms hard.

Own events, ``x-`` fields and values outside the documented open sets are allowed
(spec/protocol/README.md, "Your own events and fields"): thousands of them, nested deeply, at the top of
the record, or made of every control character and a megabyte long. Each case must still pass (judging
never sees them), its notes must stay few and short, and report.json, report.md, report.html and
junit.xml must stay valid for their formats and small.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from conftest import fake_command, minimal_scenario

from conformance.cli import main
from conformance.records.extras import MAX_NOTE, MAX_NOTES

pytestmark = pytest.mark.reliability

Run = tuple[Path, dict[str, dict[str, Any]]]
BEHAVIOURS = ("own-many", "x-many", "x-deep", "x-top", "x-controls", "open-controls", "type-case")
#: What a terminal acts on (tab and newline excepted): none of it may reach report.md or report.html.
TERMINAL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """One run of every behaviour (akan cases): (report folder, case id -> its report.json entry)."""
    tmp = tmp_path_factory.mktemp("contract")
    root = tmp / "scenarios"
    for behaviour in BEHAVIOURS:
        path = root / "akan" / "area" / f"case-fake-{behaviour}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(minimal_scenario()), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(
            ["run", "--impl", fake_command("fake_impl.py"), "--scenarios", str(root),
             "--report-dir", str(tmp / "out"), "--timeout", "30"]
        )  # fmt: skip
    assert status == 0, out.getvalue() + err.getvalue()
    report = json.loads((tmp / "out" / "report.json").read_text(encoding="utf-8"))
    return tmp / "out", {case["id"].rsplit("fake-", 1)[1]: case for case in report["scenarios"]}


@pytest.mark.parametrize("behaviour", BEHAVIOURS)
def test_every_freedom_used_hard_still_passes_with_few_short_notes(run: Run, behaviour: str) -> None:
    _, cases = run
    case = cases[behaviour]
    assert case["verdict"] == "pass", case.get("message")
    assert 1 <= len(case["notes"]) <= MAX_NOTES + 1
    assert all(len(note) <= MAX_NOTE for note in case["notes"]), max(map(len, case["notes"]))


def test_an_x_field_at_the_top_of_the_record_is_set_aside_not_an_error(
    run: Run,
) -> None:
    """Before: "invalid record: Additional properties are not allowed ('x-trace' was unexpected)", though
    the protocol allows x- fields at any depth."""
    _, cases = run
    assert cases["x-top"]["notes"] == ["x-trace: an x- field, ignored by judging"]


def test_thousands_of_own_events_are_summed_up_in_one_line(
    run: Run,
) -> None:
    _, cases = run
    notes = cases["own-many"]["notes"]
    assert notes[-1] == f"... and {5000 + 5000 - MAX_NOTES} more"  # an own event and its x- field each


def test_an_event_type_in_other_case_is_named_next_to_the_documented_one(
    run: Run,
) -> None:
    _, cases = run
    (note,) = cases["type-case"]["notes"]
    assert 'event type "SPEAK"' in note and 'the vocabulary\'s "speak" differs only in case' in note


def test_a_megabyte_of_control_characters_is_cut_and_counted(
    run: Run,
) -> None:
    """Before: each such note carried the whole megabyte into every report file."""
    _, cases = run
    for behaviour in ("x-controls", "open-controls"):
        assert all("characters in all)" in note for note in cases[behaviour]["notes"])


def test_report_files_stay_small(run: Run) -> None:
    out, _ = run
    for name in ("report.json", "report.md", "report.html", "junit.xml"):
        assert (out / name).stat().st_size < 500_000, name


def test_report_md_and_html_hold_no_control_characters_or_live_markup(
    run: Run,
) -> None:
    """Before: report.html wrote a note's control characters (NUL, ESC, bidirectional overrides) as they
    came."""
    out, _ = run
    for name in ("report.md", "report.html"):
        text = (out / name).read_text(encoding="utf-8", errors="strict")
        assert TERMINAL.findall(text.replace("\n", "").replace("\t", "")) == [], name
        assert "<script>alert(1)</script>" not in text and "&lt;script&gt;" in text, name
        assert "\\x1b" in text, name


def test_junit_xml_parses(run: Run) -> None:
    out, _ = run
    suite = ET.parse(out / "junit.xml").getroot().find("testsuite")
    assert suite is not None and len(suite.findall("testcase")) == len(BEHAVIOURS)
