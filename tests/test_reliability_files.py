"""Reliability: hostile and broken files (scenarios, catalogue files, baselines) and report files.

Every bad file must be an error naming that file, the run must go on with the others, a report must be
written, and the run must not be green. Reports must be safe to read while they are rewritten, claimed
before the first case, and never shared silently by two runs.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import FAKES, fake_command, minimal_scenario
from test_catalogue_tools import rule, write_spec

from conformance import baseline
from conformance.catalogue.load import load_catalogue
from conformance.cli import main
from conformance.report.files import LOCK_NAME, ReportDirectory, write_atomic
from conformance.scenario.load import LoadedScenario, LoadError, load_file
from conformance.yamlio import MAX_FILE_BYTES, read_yaml_file

pytestmark = pytest.mark.reliability

SYSTEM = minimal_scenario()["system"]


def _good_text(**overrides: Any) -> str:
    return yaml.safe_dump(minimal_scenario(**overrides), sort_keys=False, allow_unicode=True)


def _bomb(levels: int = 9, width: int = 9) -> str:
    lines = ["a0: &a0 [lol]"]
    for level in range(1, levels):
        refs = ", ".join(f"*a{level - 1}" for _ in range(width))
        lines.append(f"a{level}: &a{level} [{refs}]")
    return "\n".join(lines) + f"\nsystem: {SYSTEM}\ntitle: [*a{levels - 1}]\n"


def _string_bomb() -> str:
    blob = "x" * 1_000_000
    refs = ", ".join("*blob" for _ in range(100))
    return f"padding: &blob {blob}\ntitle: [{refs}]\n"


# name -> (bytes of the file, a phrase the error holds)
BAD_SCENARIOS: dict[str, tuple[Callable[[], bytes], str]] = {
    "latin-1": (lambda: _good_text(title="caf\u00e9").encode("latin-1"), "not UTF-8: byte 0xe9"),
    "utf-16": (lambda: _good_text().encode("utf-16"), "not UTF-8"),
    "binary-junk": (lambda: bytes(range(256)) * 4, "not UTF-8"),
    "nul-bytes": (lambda: b"system: akan\x00\x00\ntitle: x\n", "cannot read YAML"),
    "duplicate-expect": (
        lambda: (
            _good_text(expect=[{"rule": f"{SYSTEM}.harness.test-rule", "path": "final.x", "equals": "no"}])
            + "expect: []\n"
        ).encode(),
        "found duplicate key 'expect'",
    ),
    "duplicate-nested": (
        lambda: _good_text().replace("  equals: ok", "  equals: ok\n  equals: also").encode(),
        "found duplicate key 'equals'",
    ),
    "alias-bomb": (lambda: _bomb().encode(), "an alias bomb?"),
    "string-alias-bomb": (lambda: _string_bomb().encode(), "an alias bomb?"),
    "recursive-alias": (lambda: b"title: &a [*a]\n", "recursive alias"),
    "deep-nesting": (lambda: (b"title: " + b"[" * 300 + b"]" * 300 + b"\n"), "nest deeper than 256"),
    "very-deep-nesting": (lambda: (b"title: " + b"[" * 100_000 + b"]" * 100_000), "nest"),
    "nan": (lambda: _good_text().replace("title:", "budget: .nan\ntitle:").encode(), "not a finite number"),
    "infinity": (lambda: _good_text().replace("title:", "budget: .inf\ntitle:").encode(), "not a finite"),
    "minus-infinity": (lambda: _good_text().replace("title:", "n: [-.inf]\ntitle:").encode(), "not a finite"),
    "too-large": (lambda: b"# " + b"x" * MAX_FILE_BYTES + b"\n", "larger than"),
    "empty": (lambda: b"", "expected a mapping at the top level, got NoneType"),
    "top-level-list": (lambda: b"- 1\n- 2\n", "expected a mapping at the top level, got list"),
    "tabs": (lambda: b"system: akan\n\ttitle: x\n", "cannot read YAML"),
    "python-tag": (lambda: b"title: !!python/object/apply:os.system [echo hi]\n", "cannot read YAML"),
    "unclosed-quote": (lambda: b'title: "never closed\n', "cannot read YAML"),
    "unknown-system": (
        lambda: _good_text().replace(f"system: {SYSTEM}", "system: nonexistent").encode(),
        "invalid scenario",
    ),
}


@pytest.mark.parametrize("name", sorted(BAD_SCENARIOS))
def test_a_bad_scenario_file_is_an_error_naming_the_file(tmp_path: Path, name: str) -> None:
    content, phrase = BAD_SCENARIOS[name]
    path = tmp_path / SYSTEM / "area" / f"{name}.yaml"
    path.parent.mkdir(parents=True)
    path.write_bytes(content())
    started = time.monotonic()
    loaded = load_file(path, tmp_path)
    assert time.monotonic() - started < 10
    assert isinstance(loaded, LoadError), f"{name} loaded: {loaded}"
    assert str(path) in loaded.message and phrase in loaded.message, loaded.message


def test_a_directory_named_like_a_scenario_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / SYSTEM / "area" / "folder.yaml"
    path.mkdir(parents=True)
    loaded = load_file(path, tmp_path)
    assert isinstance(loaded, LoadError) and str(path) in loaded.message and "cannot read" in loaded.message


def test_a_byte_order_mark_and_a_quoted_nan_are_fine(tmp_path: Path) -> None:
    path = tmp_path / SYSTEM / "area" / "bom.yaml"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\xef\xbb\xbf" + _good_text(title=".nan").encode())
    loaded = load_file(path, tmp_path)
    assert isinstance(loaded, LoadedScenario) and loaded.scenario.title == ".nan"


def test_merge_keys_are_not_duplicates(tmp_path: Path) -> None:
    document = minimal_scenario()
    text = "defaults: &d {title: from the anchor}\n" + yaml.safe_dump(document, sort_keys=False)
    path = tmp_path / "merge.yaml"
    path.write_text(text.replace("title: throwaway scenario", "<<: *d\ntitle: overridden"))
    assert read_yaml_file(path)["title"] == "overridden"


def test_a_run_with_bad_files_goes_on_writes_its_report_and_is_not_green(
    scenario_tree: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = scenario_tree({"area/good": minimal_scenario()})
    for name in ("latin-1", "duplicate-expect", "alias-bomb", "nan", "recursive-alias"):
        (root / SYSTEM / "area" / f"{name}.yaml").write_bytes(BAD_SCENARIOS[name][0]())
    out = tmp_path / "out"
    spec = fake_command("fake_impl.py")
    code = main(["run", "--scenarios", str(root), "--report-dir", str(out), "--timeout", "5", "--impl", spec])
    output = capsys.readouterr().out
    assert code == 1
    report = json.loads((out / "report.json").read_text())
    verdicts = {s["id"]: s["verdict"] for s in report["scenarios"]}
    assert verdicts.pop(f"{SYSTEM}/area/good") == "pass"
    assert set(verdicts.values()) == {"error"} and len(verdicts) == 5
    assert not report["ok"]
    for case in report["scenarios"]:
        if case["verdict"] == "error":
            assert case["id"].rsplit("/", 1)[1] + ".yaml" in case["message"]
    assert output.splitlines()[-1] == "1 passed, 0 failed, 5 errored, 0 skipped"


def test_nan_in_scenario_data_never_reaches_the_wire(scenario_tree: Any, tmp_path: Path) -> None:
    root = scenario_tree({"area/good": minimal_scenario()})
    bad = root / SYSTEM / "area" / "nan.yaml"
    bad.write_bytes(BAD_SCENARIOS["nan"][0]())
    loaded = load_file(bad, root)
    assert isinstance(loaded, LoadError) and "JSON cannot carry NaN" in loaded.message


# -- catalogue files ------------------------------------------------------------------------------------
BAD_CATALOGUE = {
    "latin-1": ("title: caf\u00e9\n".encode("latin-1"), "not UTF-8"),
    "duplicate": (b"system: x\narea: y\nsystem: z\nrules: []\n", "found duplicate key 'system'"),
    "bomb": (_bomb().encode(), "an alias bomb?"),
    "nan": (b"system: x\narea: y\nrules: [.nan]\n", "not a finite number"),
    "too-large": (b"#" * (MAX_FILE_BYTES + 10), "larger than"),
}


@pytest.mark.parametrize("name", sorted(BAD_CATALOGUE))
def test_a_bad_catalogue_file_is_an_error_and_the_other_files_still_load(tmp_path: Path, name: str) -> None:
    spec = write_spec(tmp_path / "spec", {f"{SYSTEM}/harness": [rule(f"{SYSTEM}.harness.test-rule")]})
    bad = spec / SYSTEM / f"{name}.yaml"
    bad.write_bytes(BAD_CATALOGUE[name][0])
    catalogue = load_catalogue(spec)
    assert catalogue.ids() == [f"{SYSTEM}.harness.test-rule"]
    assert len(catalogue.errors) == 1
    assert str(bad) in catalogue.errors[0] and BAD_CATALOGUE[name][1] in catalogue.errors[0]


def test_run_with_a_broken_catalogue_file_fails_and_says_so(
    scenario_tree: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = write_spec(tmp_path / "spec", {f"{SYSTEM}/harness": [rule(f"{SYSTEM}.harness.test-rule")]})
    (spec / SYSTEM / "broken.yaml").write_bytes(b"rules: [\xff]\n")
    root = scenario_tree({"harness/one": minimal_scenario()})
    out = tmp_path / "out"
    code = main(
        ["run", "--scenarios", str(root), "--spec", str(spec), "--report-dir", str(out),
         "--impl", fake_command("fake_impl.py")]
    )  # fmt: skip
    output = capsys.readouterr().out
    report = json.loads((out / "report.json").read_text())
    assert report["summary"]["passed"] == 1 and report["ok"] is False and code == 1
    assert len(report["catalogue_errors"]) == 1 and "broken.yaml" in report["catalogue_errors"][0]
    assert "CATALOGUE" in output and "broken.yaml" in (out / "report.md").read_text()
    assert 'classname="catalogue"' in (out / "junit.xml").read_text()


# -- baselines --------------------------------------------------------------------------------------------
BAD_BASELINES = {
    "latin-1": ("- id: caf\u00e9\n  reason: r\n".encode("latin-1"), "not UTF-8"),
    "duplicate": (b"- id: a\n  reason: r\n  reason: s\n", "found duplicate key 'reason'"),
    "bomb": (_bomb().encode(), "an alias bomb?"),
}


@pytest.mark.parametrize("name", sorted(BAD_BASELINES))
def test_a_bad_baseline_is_refused_naming_the_file(
    tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / f"{name}.yaml"
    path.write_bytes(BAD_BASELINES[name][0])
    with pytest.raises(baseline.BaselineError, match=BAD_BASELINES[name][1]) as raised:
        baseline.load(path)
    assert str(path) in str(raised.value)
    code = main(["run", "--expected-failures", str(path), "--report-dir", str(tmp_path / "out")])
    assert code == 2 and str(path) in capsys.readouterr().err


# -- report directory and report files --------------------------------------------------------------------
def test_an_unwritable_report_directory_stops_the_run_before_the_first_case(
    scenario_tree: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = scenario_tree({"area/one": minimal_scenario()})
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    marker = tmp_path / "played"
    impl = f"stdio:sh -c 'touch {marker}; exec {sys.executable} {FAKES / 'fake_impl.py'}'"
    started = time.monotonic()
    code = main(["run", "--scenarios", str(root), "--report-dir", str(blocker / "out"), "--impl", impl])
    err = capsys.readouterr().err
    assert code == 2 and "cannot write reports to" in err and str(blocker / "out") in err
    assert time.monotonic() - started < 5 and not marker.exists()


def test_a_second_run_into_the_same_directory_is_refused(
    scenario_tree: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = scenario_tree({"area/one": minimal_scenario()})
    out = tmp_path / "out"
    spec = fake_command("fake_impl.py")
    with ReportDirectory(out):
        code = main(["run", "--scenarios", str(root), "--report-dir", str(out), "--impl", spec])
        assert code == 2 and f"(pid {os.getpid()}) is writing reports to {out}" in capsys.readouterr().err
        assert not (out / "report.json").exists()
    assert main(["run", "--scenarios", str(root), "--report-dir", str(out), "--impl", spec]) == 0
    assert (out / "report.json").exists() and (out / LOCK_NAME).exists()


def test_the_lock_dies_with_its_process(tmp_path: Path) -> None:
    out = tmp_path / "out"
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time; from pathlib import Path; from conformance.report.files import ReportDirectory;"
         f"ReportDirectory(Path({str(out)!r})).claim(); print('held', flush=True); time.sleep(60)"],
        stdout=subprocess.PIPE,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == b"held"
        with pytest.raises(Exception, match="another run"):
            ReportDirectory(out).claim()
    finally:
        holder.kill()
        holder.wait()
    ReportDirectory(out).claim().release()


def _rewrite(path: str, rounds: int) -> None:
    for n in range(rounds):
        payload = {"round": n, "scenarios": [{"id": f"case-{i}", "message": "m" * 200} for i in range(400)]}
        write_atomic(Path(path), json.dumps(payload, indent=2))


def test_a_reader_polling_during_100_rewrites_never_sees_broken_json(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    write_atomic(target, json.dumps({"round": -1}))
    writer = multiprocessing.get_context("spawn").Process(target=_rewrite, args=(str(target), 100))
    writer.start()
    reads, broken, rounds = 0, 0, set()
    while writer.is_alive() or reads == 0:
        try:
            rounds.add(json.loads(target.read_text())["round"])
        except (json.JSONDecodeError, UnicodeDecodeError):
            broken += 1
        reads += 1
    writer.join()
    rounds.add(json.loads(target.read_text())["round"])
    assert writer.exitcode == 0 and broken == 0, f"{broken} of {reads} reads saw broken JSON"
    assert 99 in rounds and len(rounds) > 2, "the reader really overlapped the rewrites"
    assert not list(tmp_path.glob(".report.json.*")), "no temporary file is left behind"


def test_a_failed_write_leaves_the_old_report_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    write_atomic(target, "old")
    with pytest.raises(TypeError):
        write_atomic(target, b"not text")  # type: ignore[arg-type]
    assert target.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["report.json"]


def test_a_lone_surrogate_in_a_report_is_written_as_its_json_escape(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    write_atomic(target, json.dumps({"message": "exit \ud800 named"}, ensure_ascii=False))
    assert json.loads(target.read_text(encoding="utf-8")) == {"message": "exit \ud800 named"}
