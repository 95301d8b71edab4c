"""Reliability: the maintainers' files (the disagreement ledger, the restated-numbers ledger, the golden
transcripts) when they are malformed.

A ledger that cannot be read is exit 2 with one message naming the file and the field, never a
traceback; a golden file that is not JSON (or not UTF-8, or a folder) is reported by ``nox -s snapshots``
naming it, and regenerating replaces it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conformance import disagreements, golden, restated
from conformance.paths import GOLDEN_ROOT, SCENARIO_ROOT

pytestmark = pytest.mark.reliability

GOOD_ENTRY = {"file": "spec/x.yaml", "rule": "llmz.x", "param": "limit", "text": "at most <<n>> tokens"}

LEDGER_CASES = {
    "a list, not a mapping": ("- a\n- b\n", "field (document)"),
    "empty": ("", "field (document)"),
    "not YAML": ("implementations: [\n", "cannot read YAML"),
    "not UTF-8": (b"entries: \xff\xfe\n", "not UTF-8"),
    "an unknown class": (
        "implementations: {x: {what: y}}\n"
        "entries: [{implementation: x, verdict: maybe, ids: [a.b], source: {document: d, section: s},"
        " finding: f, resolution: r}]\n",
        "field entries.0.verdict",
    ),
    "no ids": (
        "implementations: {x: {what: y}}\n"
        "entries: [{implementation: x, verdict: suite-wrong, ids: [], source: {document: d, section: s},"
        " finding: f, resolution: r}]\n",
        "field entries.0.ids",
    ),
    "a missing section": (
        "implementations: {x: {what: y}}\n"
        "entries: [{implementation: x, verdict: suite-wrong, ids: [a.b], source: {document: d},"
        " finding: f, resolution: r}]\n",
        "field entries.0.source.section",
    ),
    "nested too deeply": ("entries: " + "[" * 400 + "]" * 400 + "\n", "nest deeper"),
}


def _write(tmp_path: Path, text: str | bytes, name: str = "ledger.yaml") -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("case", sorted(LEDGER_CASES))
def test_a_malformed_disagreement_ledger_is_exit_2_naming_file_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    text, field = LEDGER_CASES[case]
    path = _write(tmp_path, text)
    assert disagreements.main([str(path)]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and field in err, err


@pytest.mark.parametrize("where", ["missing", "folder"])
def test_a_disagreement_ledger_that_is_not_a_file_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    path = tmp_path / "ledger.yaml"
    if where == "folder":
        path.mkdir()
    assert disagreements.main([str(path)]) == 2
    assert str(path) in capsys.readouterr().err


RESTATED_CASES = {
    "a list, not a mapping": ("- a\n", "field (document)"),
    "restated is a mapping": ("restated: {a: 1}\n", "field restated"),
    "an entry without its text": (
        json.dumps({"restated": [{k: v for k, v in GOOD_ENTRY.items() if k != "text"}]}),
        "field restated.0.text",
    ),
    "a number where a file goes": (
        json.dumps({"restated": [{**GOOD_ENTRY, "file": 7}]}),
        "field restated.0.file",
    ),
    "an unknown key": (json.dumps({"restated": [{**GOOD_ENTRY, "fiel": "x"}]}), "field restated.0.fiel"),
    "an empty text": (json.dumps({"restated": [{**GOOD_ENTRY, "text": ""}]}), "field restated.0.text"),
    "not YAML": ("restated: [\n", "cannot read YAML"),
    "not UTF-8": (b"restated: \xff\n", "not UTF-8"),
}


@pytest.mark.parametrize("case", sorted(RESTATED_CASES))
def test_a_malformed_restated_ledger_is_exit_2_naming_file_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    """Before: ``python -m conformance.restated`` ended in a KeyError, TypeError or AttributeError
    traceback for each of these (and could not be pointed at another ledger at all)."""
    text, field = RESTATED_CASES[case]
    path = _write(tmp_path, text)
    assert restated.main(["--ledger", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("restated: ") and str(path) in err and field in err, err


def test_a_restated_ledger_naming_a_file_outside_the_clone_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    entry = {**GOOD_ENTRY, "rule": "llmz.memory.default-limit", "file": "../../../../../../etc/hostname"}
    with pytest.raises(restated.LedgerError, match="outside the clone"):
        restated.disagreements(
            tmp_path, [restated.Entry(**entry)], {("llmz.memory.default-limit", "limit"): 1}
        )
    entry["file"] = "binary.yaml"
    (tmp_path / "binary.yaml").write_bytes(b"\xff\xfe")
    with pytest.raises(restated.LedgerError, match=r"'binary\.yaml' cannot be read as UTF-8"):
        restated.disagreements(
            tmp_path, [restated.Entry(**entry)], {("llmz.memory.default-limit", "limit"): 1}
        )


def test_a_missing_restated_ledger_named_on_the_command_line_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert restated.main(["--ledger", str(tmp_path / "nope.yaml")]) == 2
    assert "nope.yaml: no such ledger file" in capsys.readouterr().err


# -- the golden review ----------------------------------------------------------------------------------

AREA = "falai/business-hours"


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path, Path]:
    """One area's scenarios and goldens, copied: (scenario root, golden root, one golden file)."""
    scenarios, goldens = tmp_path / "scenarios", tmp_path / "golden"
    shutil.copytree(SCENARIO_ROOT / AREA, scenarios / AREA)
    shutil.copytree(GOLDEN_ROOT / AREA, goldens / AREA)
    return scenarios, goldens, sorted((goldens / AREA).glob("*.json"))[0]


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"not json {", "not JSON"),
        (b"\xff\xfe{}", "not UTF-8"),
        (b"[1, 2]", "a JSON list, not a record object"),
        (b"[" * 100_000 + b"]" * 100_000, "JSON"),
    ],
    ids=["not-json", "not-utf8", "a-list", "nested-100k"],
)
def test_a_golden_that_is_not_a_json_record_is_named_and_regenerated(
    tree: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str], content: bytes, words: str
) -> None:
    """Before: a golden that was not UTF-8 ended ``nox -s snapshots`` in a UnicodeDecodeError traceback,
    and one that was not JSON was described as if every event had been added."""
    scenarios, goldens, broken = tree
    broken.write_bytes(content)
    args = ["--scenarios", str(scenarios), "--golden", str(goldens)]
    assert golden.main(["--check", *args]) == 1
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if broken.stem in line)
    assert "changed" in line and words in line and "regenerating replaces it" in line, out
    assert len(line) < 600
    assert golden.main(args) == 0
    assert json.loads(broken.read_text(encoding="utf-8"))["events"]
    capsys.readouterr()
    assert golden.main(["--check", *args]) == 0


def test_a_folder_where_a_golden_goes_is_an_error_naming_it(
    tree: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    scenarios, goldens, broken = tree
    broken.unlink()
    broken.mkdir()
    (goldens / AREA / "orphan.json").mkdir()
    assert golden.main(["--scenarios", str(scenarios), "--golden", str(goldens)]) == 1
    out = capsys.readouterr().out
    assert f"ERROR {broken}: the golden cannot be read" in out, out
    assert broken.is_dir() and (goldens / AREA / "orphan.json").is_dir()
