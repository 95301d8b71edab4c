"""The disagreement ledger accounts for every foreign disagreement, and its checks can fail."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance import disagreements
from conformance.disagreements import Ledger, LedgerError, World, load, problems


def _world(**over: object) -> World:
    base: dict[str, object] = {
        "rules": {"x.a.open": True, "x.a.shut": False},
        "scenarios": frozenset({"x/a/case"}),
        "documents": frozenset({"doc.md"}),
        "permitted": {"x-other-reading": "x"},
        "baselines": {"impl.yaml": frozenset({"x/a/case"})},
    }
    base.update(over)
    return World(**base)  # type: ignore[arg-type]


def _ledger(*entries: dict[str, object], baseline: str | None = "impl.yaml") -> Ledger:
    return Ledger.model_validate(
        {"implementations": {"impl": {"what": "a foreign runtime", "baseline": baseline}}, "entries": entries}
    )


def _entry(**over: object) -> dict[str, object]:
    entry: dict[str, object] = {
        "implementation": "impl",
        "verdict": "implementation-wrong",
        "ids": ["x/a/case"],
        "source": {"document": "doc.md", "section": "S"},
        "finding": "it did y",
        "resolution": "baseline entry",
    }
    entry.update(over)
    return entry


def test_the_committed_ledger_accounts_for_every_baseline_entry() -> None:
    assert problems(load(), disagreements.current_world()) == []


def test_a_complete_ledger_has_no_problems() -> None:
    assert problems(_ledger(_entry()), _world()) == []


def test_a_baseline_entry_no_ledger_entry_accounts_for_is_named() -> None:
    found = problems(_ledger(), _world())
    assert found == [
        "impl.yaml: entry 'x/a/case' is accounted for by 0 implementation-wrong entries of the ledger, "
        "expected exactly 1"
    ]


def test_an_implementation_wrong_entry_must_be_in_the_baseline() -> None:
    found = problems(_ledger(_entry(), _entry(ids=["x.a.shut"])), _world())
    assert any("'x.a.shut' is not an entry of impl.yaml" in line for line in found)


def test_a_disagreement_counted_twice_is_named() -> None:
    found = problems(_ledger(_entry(), _entry()), _world())
    assert any("accounted for by 2" in line for line in found)


def test_unknown_ids_documents_and_implementations_are_named() -> None:
    entry = _entry(verdict="suite-wrong", ids=["x/nope"], implementation="ghost")
    entry["source"] = {"document": "other.md", "section": "S"}
    found = " | ".join(problems(_ledger(_entry(), entry), _world()))
    assert "'x/nope' names no rule and no scenario" in found
    assert "'other.md' is not a document the catalogue cites" in found
    assert "'ghost' is not under implementations" in found


def test_an_open_reading_needs_its_variant_and_its_question() -> None:
    no_variant = problems(_ledger(_entry(), _entry(verdict="documents-open", ids=["x.a.open"])), _world())
    assert any("names the permitted variant" in line for line in no_variant)
    unknown = _entry(verdict="documents-open", ids=["x.a.open"], variant="x-missing")
    assert any(
        "'x-missing' is not a permitted variant" in line
        for line in problems(_ledger(_entry(), unknown), _world())
    )
    no_question = _entry(verdict="documents-open", ids=["x.a.shut"], variant="x-other-reading")
    found = problems(_ledger(_entry(), no_question), _world())
    assert found == ["entries[1] (impl: x.a.shut): ids: none of x.a.shut carries an open_question"]


def test_only_implementation_wrong_entries_sit_in_a_baseline() -> None:
    suite = _entry(verdict="suite-wrong", ids=["x.a.shut"], baseline=["x/a/case"])
    found = problems(_ledger(_entry(), suite), _world())
    assert any("only an implementation-wrong entry is listed in a baseline" in line for line in found)


def test_an_implementation_without_a_baseline_cannot_be_wrong() -> None:
    found = problems(_ledger(_entry(), baseline=None), _world())
    assert found == [
        "entries[0] (impl: x/a/case): verdict: implementation-wrong needs a baseline, and impl has none"
    ]


def test_counts_are_per_system_and_class() -> None:
    ledger = _ledger(_entry(), _entry(verdict="documents-open", ids=["x.a.open"], variant="x-other-reading"))
    table = disagreements.counts(ledger)
    assert dict(table["x"]) == {"implementation-wrong": 1, "documents-open": 1}


def test_a_malformed_ledger_names_the_file_and_field(tmp_path: Path) -> None:
    path = tmp_path / "ledger.yaml"
    path.write_text(
        "implementations: {}\nentries:\n- implementation: a\n  verdict: maybe\n", encoding="utf-8"
    )
    with pytest.raises(LedgerError, match=r"ledger\.yaml: field entries\.0\.verdict"):
        load(path)


def test_a_disagreement_fixed_in_the_implementation_needs_no_baseline_entry() -> None:
    fixed = _entry(ids=["x.a.shut"], fixed="abc1234")
    assert problems(_ledger(_entry(), fixed), _world()) == []
    listed = _entry(ids=["x.a.shut"], fixed="abc1234", baseline=["x/a/case"])
    assert any(
        "fixed in the implementation is not in its baseline" in p
        for p in problems(_ledger(_entry(), listed), _world())
    )
    suite = _entry(verdict="suite-wrong", ids=["x.a.shut"], fixed="abc1234")
    assert any(
        "only an implementation-wrong entry is fixed" in p
        for p in problems(_ledger(_entry(), suite), _world())
    )
