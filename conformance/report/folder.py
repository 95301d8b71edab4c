"""Which folder a run's reports go to by default, and leaving none behind when a run wrote no report.

The default is ``build/conformance/<hello name>/``: a reader looks for the implementation by the name it
gives itself (``llmz``, ``reference``), not by a slug of the command that started it
(``stdio-node-tmp-...-adapter.mjs``). Two different ``--impl`` specs can answer with the same name (your
bridge and the shipped preset both say ``llmz``); a run never writes over another spec's report, so when
the named folder already holds a report of a different ``--impl``, the run falls back to the slug of its
own spec. The folder is chosen after the hello (the name is not known before), and a run that ends without
writing a report removes the folder it created, so no folder holding only the lock file is left behind.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass
from pathlib import Path

from conformance.adapters.registry import display_name
from conformance.report.files import LOCK_NAME, ReportDirectory


@dataclass(frozen=True)
class Choice:
    path: Path
    note: str = ""
    """Why the folder is not the one named after the implementation (empty when it is)."""


def _spec_of_report(folder: Path) -> str | None:
    """The ``--impl`` spec of the report in ``folder``, None when there is none (or it cannot be read)."""
    try:
        report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
        spec = report["implementation"]["spec"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return spec if isinstance(spec, str) else None


def default_folder(root: Path, name: str, spec: str) -> Choice:
    """``root/<name>`` unless another spec's report is there; then ``root/<slug of spec>``."""
    named = root / display_name(name)
    other = _spec_of_report(named)
    if other is None or other == spec:
        return Choice(named)
    slug = root / display_name(spec)
    if slug == named:  # the spec's slug is the name itself: nowhere else to go, as before this choice
        return Choice(named, f"replacing the report of --impl {other}")
    return Choice(slug, f"{named} holds the report of --impl {other}")


def discard_if_unused(folder: Path, existed: bool) -> None:
    """Remove ``folder`` when this run created it and wrote nothing in it but the lock file."""
    if existed:
        return
    with contextlib.suppress(OSError):
        (folder / LOCK_NAME).unlink()
        folder.rmdir()  # fails, and keeps the folder, when anything else is in it


class Claim:
    """The report folder a run holds: taken once, released at the end, abandoned (released, and removed
    when this run created it and wrote nothing but the lock) when the run ends without a report."""

    def __init__(self) -> None:
        self.path = Path()
        self.note = ""
        self._held: ReportDirectory | None = None
        self._existed = True

    def take(self, path: Path, note: str = "") -> None:
        """Claim ``path``; ``ReportDirectoryError`` when it is unwritable or another run holds it."""
        self.path, self.note, self._existed = path, note, path.exists()
        self._held = ReportDirectory(path).claim()

    def release(self) -> None:
        if self._held is not None:
            self._held.release()

    def abandon(self) -> None:
        self.release()
        if self._held is not None:
            discard_if_unused(self.path, self._existed)
