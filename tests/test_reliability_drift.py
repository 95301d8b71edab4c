"""Reliability: ``python -m conformance spec drift`` on files that are not two versions of a document.

Each bad input (missing, not UTF-8, binary, too large, an output folder that is a file or a link) must be
exit 2 with one line naming the file and what was expected, never a traceback; a hostile but valid
document (10,000 headings, one enormous paragraph) must finish in seconds, not hours.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.drift.command import MAX_DOCUMENT_BYTES

pytestmark = pytest.mark.reliability

DOCUMENT = "falai-4.0.0-alpha.10-docs.md"
GOOD = "# Routing\n\nA flow must name its model. The router picks the first flow.\n"


def _drift(old: Path, new: Path, out: Path) -> list[str]:
    return ["spec", "drift", str(old), str(new), "--document", DOCUMENT, "--out", str(out)]


@pytest.fixture
def good(tmp_path: Path) -> Path:
    path = tmp_path / "good.md"
    path.write_text(GOOD, encoding="utf-8")
    return path


def _refused(args: list[str], capsys: pytest.CaptureFixture[str], *words: str) -> str:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "Traceback" not in err, err
    for word in words:
        assert word in err, err
    return err


def test_a_missing_document_is_named(tmp_path: Path, good: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.md"
    _refused(_drift(missing, good, tmp_path / "out"), capsys, str(missing), "No such file")


def test_a_folder_given_as_a_document_is_named(
    tmp_path: Path, good: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _refused(_drift(good, tmp_path, tmp_path / "out"), capsys, str(tmp_path), "cannot read")


def test_a_document_that_is_not_utf8_names_the_byte(
    tmp_path: Path, good: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    latin = tmp_path / "latin.md"
    latin.write_bytes("# Café\n".encode("latin-1"))
    _refused(_drift(latin, good, tmp_path / "out"), capsys, str(latin), "not UTF-8", "0xe9", "offset 5")


def test_a_binary_file_is_refused_even_when_it_decodes(
    tmp_path: Path, good: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    binary = tmp_path / "image.md"
    binary.write_bytes(b"\x7fELF\x02\x01\x01\x00\x00\x00# Routing\n")
    _refused(_drift(good, binary, tmp_path / "out"), capsys, str(binary), "NUL byte", "binary")


def test_a_50_mb_document_is_refused_without_reading_it_all(
    tmp_path: Path, good: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    big = tmp_path / "big.md"
    with big.open("wb") as handle:  # sparse: 50 MB on disk costs nothing
        handle.truncate(50 * 1024 * 1024)
    started = time.monotonic()
    _refused(_drift(good, big, tmp_path / "out"), capsys, str(big), "larger than")
    assert time.monotonic() - started < 10


@pytest.mark.parametrize("kind", ["file", "link to a folder", "dangling link"])
def test_an_output_folder_that_is_a_file_or_a_link_is_refused_before_any_work(
    tmp_path: Path, good: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    out, real = tmp_path / "out", tmp_path / "real"
    real.mkdir()
    if kind == "file":
        out.write_text("mine", encoding="utf-8")
    else:
        out.symlink_to(real if kind == "link to a folder" else tmp_path / "nowhere")
    _refused(_drift(good, good, out), capsys, f"--out {out}", "not a folder" if kind == "file" else "link")
    assert list(real.iterdir()) == []
    if kind == "file":
        assert out.read_text(encoding="utf-8") == "mine"


def test_a_link_planted_where_a_report_goes_is_never_followed(
    tmp_path: Path, good: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, victim = tmp_path / "out", tmp_path / "victim.txt"
    out.mkdir()
    victim.write_text("precious", encoding="utf-8")
    (out / "drift.md").symlink_to(victim)
    _refused(_drift(good, good, out), capsys, "drift.md", "symbolic link")
    assert victim.read_text(encoding="utf-8") == "precious"


def _headings(count: int, word: str, shared: str) -> str:
    return "".join(f"## {word} {i}\n\nSentence {word} {i} stands here. {shared}\n\n" for i in range(count))


@pytest.mark.parametrize("shared", ["", "The same closing sentence."], ids=["distinct", "one-shared-line"])
def test_ten_thousand_renamed_headings_finish_in_seconds(tmp_path: Path, shared: str) -> None:
    """Before issue 23's fix both took minutes (every old section was scored against every new one)."""
    old, new = tmp_path / "old.md", tmp_path / "new.md"
    old.write_text(_headings(10_000, "Heading", shared), encoding="utf-8")
    new.write_text(_headings(10_000, "Title", shared), encoding="utf-8")
    started = time.monotonic()
    assert main(_drift(old, new, tmp_path / "out")) == 0
    assert time.monotonic() - started < 30
    assert (tmp_path / "out" / "drift.json").stat().st_size > 0


def test_one_enormous_paragraph_rewritten_finishes_in_seconds(tmp_path: Path) -> None:
    """A paragraph just under the size cap, every sentence replaced: splitting it copied the rest of the
    text at every full stop, and pairing every old sentence with every new one was 10^9 comparisons."""
    old, new = tmp_path / "old.md", tmp_path / "new.md"
    budget = MAX_DOCUMENT_BYTES - 100
    old.write_text("# One\n\n" + "".join(f"Alpha {i} stands. " for i in range(90_000))[:budget], "utf-8")
    new.write_text("# One\n\n" + "".join(f"Beta {i} goes. " for i in range(90_000))[:budget], "utf-8")
    started = time.monotonic()
    assert main(_drift(old, new, tmp_path / "out")) == 0
    assert time.monotonic() - started < 60


def test_bad_input_prints_no_traceback_from_the_real_command(tmp_path: Path, good: Path) -> None:
    """The same through ``python -m conformance``: one line on stderr, exit 2."""
    binary = tmp_path / "b.md"
    binary.write_bytes(bytes(range(256)))
    out = tmp_path / "out"
    out.write_text("", encoding="utf-8")
    for args in (_drift(good, binary, tmp_path / "o"), _drift(good, good, out)):
        done = subprocess.run(
            [sys.executable, "-m", "conformance", *args],
            capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONWARNINGS": "ignore"},
        )  # fmt: skip
        assert done.returncode == 2, done.stderr
        assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1, done.stderr
