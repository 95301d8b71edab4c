"""Loading the rule catalogue: every ``spec/<system>/<area>.yaml``, checked twice.

Each file is validated against the pydantic model and against the JSON Schema generated from it (the
one published as ``spec/schema/rule-file.schema.json``), so a schema that would accept or reject
something the model does not is caught by the same run. Problems never stop the load: every file is
read and every problem is collected with the file, the field and what was expected, so one run shows
them all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from conformance.catalogue.model import Rule, RuleFile
from conformance.paths import SPEC_ROOT
from conformance.systems import SYSTEMS
from conformance.validation import field_problems
from conformance.yamlio import YamlFileError, read_yaml_file

if TYPE_CHECKING:
    import jsonschema


@dataclass(frozen=True)
class CatalogueRule:
    """A rule together with where it lives (its area is the file's area)."""

    rule: Rule
    area: str
    path: Path


@dataclass
class Catalogue:
    rules: dict[str, CatalogueRule] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)

    def ids(self) -> list[str]:
        return sorted(self.rules)


@lru_cache(maxsize=1)
def _rule_file_validator() -> jsonschema.protocols.Validator:
    """The JSON Schema generated from the model (the committed copy is kept current by its own test)."""
    import jsonschema  # only where the schema is checked: a suite run does not need it

    return jsonschema.Draft202012Validator(RuleFile.model_json_schema())


def schema_problems(document: Any, validator: jsonschema.protocols.Validator, path: Path) -> list[str]:
    """JSON Schema errors as ``<file>: field <a.b.c>: <what was expected>`` lines."""
    problems = []
    for error in sorted(validator.iter_errors(document), key=lambda e: [str(p) for p in e.absolute_path]):
        location = ".".join(str(part) for part in error.absolute_path) or "(document)"
        problems.append(f"{path}: field {location}: {error.message} (JSON Schema)")
    return problems


def pydantic_problems(exc: ValidationError, path: Path) -> list[str]:
    return field_problems(exc, path)


def load_rule_file(path: Path, *, schema_check: bool = True) -> tuple[RuleFile | None, list[str]]:
    """One catalogue file: the parsed model (None when invalid) and every problem found. Without
    ``schema_check`` only the model checks it (the published schema's agreement is not re-proved)."""
    try:
        document = read_yaml_file(path)
    except YamlFileError as exc:
        return None, [str(exc)]
    problems = schema_problems(document, _rule_file_validator(), path) if schema_check else []
    try:
        parsed = RuleFile.model_validate(document)
    except ValidationError as exc:
        return None, problems + pydantic_problems(exc, path)
    expected = (path.parent.name, path.stem)
    if (parsed.system, parsed.area) != expected:
        problems.append(
            f"{path}: fields system/area: expected {expected[0]!r}/{expected[1]!r} "
            f"(the folder and file name), got {parsed.system!r}/{parsed.area!r}"
        )
    return (None if problems else parsed), problems


def catalogue_files(root: Path = SPEC_ROOT) -> list[Path]:
    return sorted(path for system in SYSTEMS for path in (root / system).glob("*.yaml"))


def load_catalogue(root: Path = SPEC_ROOT, *, schema_check: bool = True) -> Catalogue:
    """Every rule of every catalogue file; duplicate ids are errors naming both files.

    ``schema_check=False`` is for a suite run, which needs the rules but not a proof that the published
    rule-file schema agrees with the model: ``nox -s spec`` (``python -m conformance.catalogue``) and the
    tests check that, and a run skips the JSON Schema pass (most of the catalogue's loading time)."""
    catalogue = Catalogue()
    for path in catalogue_files(root):
        catalogue.files.append(path)
        parsed, problems = load_rule_file(path, schema_check=schema_check)
        catalogue.errors.extend(problems)
        if parsed is None:
            continue
        for rule in parsed.rules:
            if rule.id in catalogue.rules:
                first = catalogue.rules[rule.id].path
                catalogue.errors.append(
                    f"{path}: field rules.id: duplicate id {rule.id!r} (already in {first})"
                )
                continue
            catalogue.rules[rule.id] = CatalogueRule(rule, parsed.area, path)
    return catalogue
