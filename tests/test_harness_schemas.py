"""The published JSON Schemas are generated from the models and must be committed up to date."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from conformance import schemas
from conformance.paths import REPO_ROOT


def test_committed_schemas_match_the_models() -> None:
    outdated = [str(path.relative_to(REPO_ROOT)) for path in schemas.stale()]
    assert not outdated, (
        f"stale JSON Schemas {outdated}: run `python -m conformance.schemas` and commit the result"
    )


def test_stale_detects_a_changed_file(tmp_path: Path) -> None:
    path = tmp_path / "x.schema.json"
    path.write_text("{}\n")
    assert schemas.stale({path: "{}\n"}) == []
    assert schemas.stale({path: '{"type": "object"}\n'}) == [path]
    assert schemas.stale({tmp_path / "missing.json": "{}\n"}) == [tmp_path / "missing.json"]


@pytest.mark.parametrize("name", sorted(schemas.TARGETS))
def test_every_schema_is_a_valid_draft_2020_12_schema(name: str) -> None:
    document = json.loads(schemas.render(name))
    jsonschema.Draft202012Validator.check_schema(document)
    assert document["$schema"].endswith("2020-12/schema") and document["title"]


def test_the_record_schema_rejects_an_event_without_type() -> None:
    schema = json.loads(schemas.render("record.schema.json"))
    jsonschema.validate({"events": [{"type": "x"}], "final": {}}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"events": [{"text": "no type"}]}, schema)


def test_the_run_response_schema_accepts_the_three_answers() -> None:
    schema = json.loads(schemas.render("run-response.schema.json"))
    answers: list[dict[str, Any]] = [
        {"record": {"events": []}},
        {"skip": {"reason": "r"}},
        {"error": {"message": "m"}},
    ]
    for answer in answers:
        jsonschema.validate({"seq": 1, **answer}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"seq": 1, "recrod": {}}, schema)


def test_a_case_is_validated_by_its_own_system_without_the_others() -> None:
    """The stdio server plays one system's cases without building the other systems' models."""
    import subprocess
    import sys

    probe = (
        "import sys; from conformance.scenario.cases import parse_case; "
        "case = parse_case({'system': 'falai', 'steps': [{'op': 'message', 'id': 'm1', 'text': 'hi'}]}); "
        "print(type(case).__name__, sorted(m for m in sys.modules if m.startswith('conformance.scenario.')))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.startswith("FalaiCase ")
    assert "conformance.scenario.llmz" not in out and "conformance.scenario.akan" not in out
    assert "conformance.scenario.model" not in out


def test_a_case_without_a_known_system_gets_the_unions_error() -> None:
    import pydantic
    import pytest

    from conformance.scenario.cases import parse_case

    with pytest.raises(pydantic.ValidationError, match="system"):
        parse_case({"system": "nonesuch", "steps": []})
