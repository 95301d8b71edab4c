"""Reliability: whatever an implementation sends, every file the harness writes is valid for its format.

Issue 23, item 5. An implementation whose name, error messages and skip reasons hold every control
character, lone surrogates, bidirectional overrides and HTML: junit.xml must parse with an XML parser,
the console must receive nothing a terminal acts on, and report.md must hold no live HTML.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import fake_command, minimal_scenario

from conformance.cli import main
from conformance.report.escape import markdown_text, terminal_text, xml_text

pytestmark = pytest.mark.reliability

#: What a terminal acts on (tab and newline excepted), and what XML 1.0 cannot hold.
TERMINAL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """One run against the fake's ``controls`` behaviours: (report folder, everything printed)."""
    import contextlib
    import io

    tmp = tmp_path_factory.mktemp("controls")
    root = tmp / "scenarios"
    for name in ("a-fake-controls", "b-fake-controls-skip", "c-fake-controls-fail"):
        path = root / "akan" / "area" / f"{name}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(minimal_scenario()), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(
            ["run", "--impl", fake_command("fake_impl.py", "controls"), "--scenarios", str(root),
             "--report-dir", str(tmp / "out"), "--timeout", "10", "-v"]
        )  # fmt: skip
    assert status == 1, err.getvalue()
    return tmp / "out", out.getvalue() + err.getvalue()


def test_junit_xml_parses_with_every_control_character(hostile_run: tuple[Path, str]) -> None:
    out, _ = hostile_run
    suite = ET.parse(out / "junit.xml").getroot().find("testsuite")
    assert suite is not None and "\\x1b" in suite.get("name", "")
    error, failure = suite.find("testcase/error"), suite.find("testcase/failure")
    assert error is not None and "\\x00" in (error.text or "")
    assert "<script>" in (error.text or ""), "markup is text in XML, escaped by the serializer"
    assert failure is not None and "\\ud800" in (failure.text or ""), "a lone surrogate from a record"


def test_the_console_receives_nothing_a_terminal_acts_on(hostile_run: tuple[Path, str]) -> None:
    _, printed = hostile_run
    assert "refused: " in printed and "\\x1b" in printed
    assert TERMINAL.findall(printed) == []


def test_report_md_holds_no_markup_and_no_control_characters(hostile_run: tuple[Path, str]) -> None:
    out, _ = hostile_run
    text = (out / "report.md").read_text(encoding="utf-8", errors="strict")
    assert "<script>" not in text and "&lt;script&gt;" in text
    assert TERMINAL.findall(text.replace("\n", "")) == []


def test_report_json_keeps_the_text_as_sent(hostile_run: tuple[Path, str]) -> None:
    out, _ = hostile_run
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    (error,) = [s for s in report["scenarios"] if s["verdict"] == "error"]
    assert "\x1b]0;title\x07" in error["message"]


@pytest.mark.parametrize("code", [*range(0x20), 0x7F, 0x85, 0x9B, 0xD800, 0xDFFF, 0xFFFE, 0xFFFF, 0x202E])
def test_each_escape_leaves_nothing_its_format_refuses(code: int) -> None:
    text = f"a{chr(code)}b"
    assert NOT_XML.findall(xml_text(text)) == []
    assert TERMINAL.findall(terminal_text(text).replace("\n", "").replace("\t", "")) == []
    assert TERMINAL.findall(markdown_text(text).replace("\n", "").replace("\t", "")) == []


def test_plain_text_is_left_as_it_is() -> None:
    text = "expected 3, found 4\n\tsee café 日本語 🙂"
    assert xml_text(text) == text and terminal_text(text) == text
