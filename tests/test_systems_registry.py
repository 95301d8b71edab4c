"""One registry of systems: every per-system table in the harness agrees with ``conformance.systems``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conformance.cli import _parser
from conformance.paths import SCENARIO_ROOT, SPEC_ROOT
from conformance.records import RECORD_MODELS
from conformance.systems import REGISTRY, SYSTEMS, get

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", SYSTEMS)
def test_each_system_has_its_folders_schema_and_record_model(name: str) -> None:
    system = get(name)
    assert (SCENARIO_ROOT / name).is_dir() and (SPEC_ROOT / name).is_dir()
    assert (SPEC_ROOT / "protocol" / "records" / system.record_schema).is_file()
    assert system.load_record_model() is RECORD_MODELS[name]


def test_the_cli_offers_exactly_the_registered_systems() -> None:
    run = _parser()._subparsers._group_actions[0].choices["run"]  # type: ignore[union-attr]
    (option,) = [a for a in run._actions if "--system" in a.option_strings]
    assert tuple(option.choices) == SYSTEMS


def test_an_unknown_system_is_named_with_the_known_ones() -> None:
    with pytest.raises(KeyError, match="unknown system 'nope'; known: llmz, falai, akan"):
        get("nope")


def test_no_module_spells_the_system_list_out_again() -> None:
    """The tuple lives in conformance/systems.py; other modules import it (tests and docs may quote it)."""
    spelled = re.compile(r"""["']llmz["'],\s*["']falai["'],\s*["']akan["']""")
    offenders = [
        str(path.relative_to(REPO))
        for folder in ("conformance", "reference", "variants")
        for path in (REPO / folder).rglob("*.py")
        if path.name != "systems.py" and spelled.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == [], f"spell the systems via conformance.systems instead: {offenders}"


def test_the_registry_and_its_type_agree() -> None:
    assert tuple(REGISTRY) == SYSTEMS
