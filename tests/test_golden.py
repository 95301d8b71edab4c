"""Golden transcripts: the reference's normalised record of every scenario, byte for byte.

Each scenario ``<system>/<area>/<name>`` has ``fixtures/golden/<system>/<area>/<name>.json`` (pretty JSON,
sorted keys, trailing newline), compared by syrupy. ``nox -s snapshots`` (``python -m conformance.golden``)
regenerates them after a deliberate change and lists each golden it changed with its scenario, rules and
what moved (``-- --check`` lists without writing); the diff is then reviewed like code. A golden file with
no scenario fails ``test_every_golden_file_belongs_to_a_scenario`` (syrupy only notices unused files in the
folders it visited, and not at all under -k or xdist, so the check is explicit; under --snapshot-update it
deletes them instead, so renaming a scenario and regenerating leaves no orphan behind).
"""

from __future__ import annotations

from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import pytest
from conftest import every_scenario, in_process_result
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode
from syrupy.location import PyTestLocation

from conformance.golden import golden_text
from conformance.paths import GOLDEN_ROOT
from conformance.scenario.load import LoadedScenario, LoadError


def golden_extension(scenario_id: str) -> type[SingleFileSnapshotExtension]:
    """A syrupy extension that stores this scenario's snapshot at fixtures/golden/<scenario id>.json."""
    return _folder_extension(str(Path(scenario_id).parent))


@cache
def _folder_extension(area: str) -> type[SingleFileSnapshotExtension]:
    """One extension class per golden folder, naming each snapshot after the test's scenario.

    Why one per folder and not one per scenario: at the end of the session syrupy looks for unused
    snapshots once per (folder, extension class) and reads every file of the folder each time, so a class
    per scenario read each folder once per file in it (638 discoveries, about 5 s at the end of the run,
    on the critical path after the last test). Per folder it reads each file once; what it checks is the
    same."""
    folder = GOLDEN_ROOT / area

    class GoldenTranscript(SingleFileSnapshotExtension):
        _write_mode = WriteMode.TEXT
        file_extension = "json"

        @classmethod
        def dirname(cls, *, test_location: PyTestLocation) -> str:
            return str(folder)

        @classmethod
        def get_snapshot_name(cls, *, test_location: PyTestLocation, index: Any = 0) -> str:
            item: LoadedScenario | LoadError = test_location.item.callspec.params["item"]
            return Path(item.id).name

        def serialize(self, data: Any, **_: Any) -> str:
            return golden_text(data)

    return GoldenTranscript


# The transcripts live beside the scenarios, not beside this test file, by design; syrupy warns about that.
pytestmark = pytest.mark.filterwarnings("ignore:.*Can not relate snapshot:UserWarning")


@lru_cache(maxsize=1)
def scenarios() -> list[LoadedScenario | LoadError]:
    return list(every_scenario())


@pytest.mark.parametrize("item", scenarios(), ids=lambda item: item.id)
def test_reference_record_matches_golden_transcript(
    item: LoadedScenario | LoadError, snapshot: SnapshotAssertion
) -> None:
    result = in_process_result(item)  # played once, shared with test_conformance_reference
    assert result.record is not None, f"the reference gave no record ({result.verdict}): {result.message}"
    assert result.record == snapshot.use_extension(golden_extension(item.id))


def test_every_golden_file_belongs_to_a_scenario(request: pytest.FixtureRequest) -> None:
    known = {item.id for item in scenarios()}
    files = sorted(path for path in GOLDEN_ROOT.rglob("*") if path.is_file() and path.name != ".gitkeep")
    orphans = [
        p
        for p in files
        if p.suffix != ".json" or p.relative_to(GOLDEN_ROOT).with_suffix("").as_posix() not in known
    ]
    if orphans and request.config.getoption("--snapshot-update"):
        for path in orphans:
            path.unlink()
        return
    names = [str(p.relative_to(GOLDEN_ROOT)) for p in orphans]
    assert not names, f"golden files without a scenario (run `nox -s snapshots` to delete them): {names}"
