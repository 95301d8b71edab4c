"""The debugging recipe of docs/testing-your-runtime.md: the reference's record of a scenario loaded from
its YAML file, answer key and all, is ``conformance.players.play(document)``."""

from __future__ import annotations

from pathlib import Path

import yaml

from conformance.paths import SCENARIO_ROOT
from conformance.players import play
from conformance.scenario.answer_key import case_payload

SCENARIO = "llmz/think-signal/thrown-signal-same-as-returned"


def test_the_documented_recipe_plays_a_scenario_document_as_loaded() -> None:
    document = yaml.safe_load((SCENARIO_ROOT / f"{SCENARIO}.yaml").read_text(encoding="utf-8"))
    assert "expect" in document  # the whole document, answer key included
    assert play(document) == play(case_payload(SCENARIO, document))


def test_the_recipe_is_still_the_one_the_docs_give() -> None:
    docs = Path(__file__).parents[1] / "docs"
    pages = [page.read_text(encoding="utf-8") for page in sorted(docs.rglob("*.md"))]
    assert any("conformance.players.play(document)" in text and f"{SCENARIO}.yaml" in text for text in pages)
