"""Reliability: command-line numbers are checked, and destinations before the work (issue 23, item 6).

``--timeout nan`` used to hang a run against a silent implementation and ``0`` or ``-1`` blamed the
implementation's hello; a ``report.json`` that is a folder lost every result after the last case; ``fuzz
--out`` under a regular file lost the finding; ``compare`` and ``html`` on a report that is not UTF-8
ended with exit 1 instead of the usage error's 2. Every one of these is now exit 2 before any work.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from conftest import fake_command, minimal_scenario

from conformance.cli import main

pytestmark = pytest.mark.reliability

BAD_SECONDS = ["nan", "NaN", "inf", "-inf", "0", "-1", "1e309", "ten", ""]


def _usage_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """What ``main(argv)`` printed, having checked that it refused the command line with exit 2."""
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    return capsys.readouterr().err


@pytest.mark.parametrize("value", BAD_SECONDS)
def test_run_refuses_a_timeout_that_is_not_a_positive_finite_number(
    value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    silent = fake_command("fake_impl.py", "hello-hang")
    err = _usage_error(["run", "--impl", silent, f"--timeout={value}"], capsys)
    assert "--timeout" in err and "seconds" in err


@pytest.mark.parametrize(
    ("option", "value"),
    [("--timeout", "nan"), ("--timeout", "0"), ("--examples", "0"), ("--examples", "-5"),
     ("--max-findings", "0"), ("--seed", "-1"), ("--examples", "2.5")],
)  # fmt: skip
def test_fuzz_refuses_bad_numbers(option: str, value: str, capsys: pytest.CaptureFixture[str]) -> None:
    err = _usage_error(["fuzz", "--impl", "reference", "--system", "falai", f"{option}={value}"], capsys)
    assert option in err


def test_a_good_timeout_is_accepted(tmp_path: Path, scenario_tree: object) -> None:
    root = tmp_path / "scenarios" / "akan" / "area"
    root.mkdir(parents=True)
    (root / "a.yaml").write_text(json.dumps(minimal_scenario()), encoding="utf-8")
    status = main(
        ["run", "--impl", fake_command("fake_impl.py"), "--scenarios", str(tmp_path / "scenarios"),
         "--report-dir", str(tmp_path / "out"), "--timeout", "2.5"]
    )  # fmt: skip
    assert status == 0


def test_a_report_file_that_is_a_folder_stops_the_run_before_the_first_case(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "scenarios" / "akan" / "area"
    root.mkdir(parents=True)
    (root / "a-fake-hang.yaml").write_text(json.dumps(minimal_scenario()), encoding="utf-8")
    (tmp_path / "out" / "report.json").mkdir(parents=True)
    started = time.monotonic()
    status = main(
        ["run", "--impl", fake_command("fake_impl.py"), "--scenarios", str(tmp_path / "scenarios"),
         "--report-dir", str(tmp_path / "out"), "--timeout", "30"]
    )  # fmt: skip
    assert status == 2 and "report.json" in capsys.readouterr().err
    assert time.monotonic() - started < 20, "the hanging case was played before the check"


def test_fuzz_out_under_a_regular_file_stops_before_the_search(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("", encoding="utf-8")
    argv = ["fuzz", "--impl", "reference", "--system", "falai", "--examples", "3"]
    argv += ["--out", str(blocker / "x")]
    assert main(argv) == 2
    assert "--out" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["compare", "html"])
def test_a_report_that_is_not_utf8_is_a_usage_error(
    tmp_path: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report.json"
    report.write_bytes(b'{"run": "\xff\xfe not utf-8"}')
    argv = ["compare", str(report), str(report)] if command == "compare" else ["html", str(report)]
    if command == "html":
        argv += ["-o", str(tmp_path / "page.html")]
    assert main(argv) == 2
    assert "UTF-8" in capsys.readouterr().err


def test_html_to_a_folder_is_refused_before_the_page_is_built(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "scenarios" / "akan" / "area"
    root.mkdir(parents=True)
    (root / "a.yaml").write_text(json.dumps(minimal_scenario()), encoding="utf-8")
    out = tmp_path / "out"
    assert main(["run", "--impl", fake_command("fake_impl.py"), "--scenarios", str(tmp_path / "scenarios"),
                 "--report-dir", str(out)]) == 0  # fmt: skip
    capsys.readouterr()
    (tmp_path / "page.html").mkdir()
    assert main(["html", str(out), "-o", str(tmp_path / "page.html")]) == 2
    assert "folder" in capsys.readouterr().err
