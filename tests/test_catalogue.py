"""The committed catalogue: valid, ids unique, ledger current, scenarios pin real rules, nothing copied."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance import originality
from conformance.catalogue import ledger
from conformance.catalogue.check import CheckResult, check
from conformance.paths import LEDGER, REPO_ROOT


@pytest.fixture(scope="module")
def result() -> CheckResult:
    return check()


def test_every_catalogue_file_is_valid_and_ids_are_unique(result: CheckResult) -> None:
    problems = list(result.catalogue.errors)
    assert not problems, "catalogue problems:\n" + "\n".join(problems)
    assert result.catalogue.rules, "the catalogue is empty"


def test_every_scenario_loads_and_pins_catalogue_rules(result: CheckResult) -> None:
    problems = [e for e in result.errors if e not in result.catalogue.errors]
    assert not problems, "scenario problems:\n" + "\n".join(problems)


def test_the_id_ledger_is_current(result: CheckResult) -> None:
    problems = ledger.differences(result.catalogue.ids(), LEDGER)
    assert not problems, "\n".join(problems)


def test_no_ten_word_run_of_a_seed_document_appears_in_the_repository() -> None:
    seeds = originality.locate_seeds()
    if seeds is None:
        pytest.skip(
            "seed documents not found: set SEEDS_DIR or place them at ../shared/seeds next to the clone"
        )
    index = originality.seed_index(originality.seed_files(seeds))
    assert len(index) > 1000, f"suspiciously few seed windows in {seeds}"
    hits = originality.scan(originality.project_files(), index)
    listing = "\n".join(
        f"{Path(h.path).relative_to(REPO_ROOT)}:{h.line}: {h.words!r} (from {h.seed})" for h in hits[:30]
    )
    assert not hits, (
        f"{len(hits)} passage(s) copied from the seed documents; say it in our own words:\n{listing}"
    )
