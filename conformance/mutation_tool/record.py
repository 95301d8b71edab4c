"""The committed record of a mutation run: per module, the sampled mutants and how each ended.

Why. The score used to live only in Cosmic Ray's work databases under ``build/``, which are not
committed, so nobody could check a published figure, nor tell whether a survivor had a triage entry
(issue 27, item 4). The record is small: for each module, the seed and budget that drew the sample, a
digest of the source that was mutated, the population the sample was drawn from, and one line per
sampled mutant (operator, occurrence, location, the change, the outcome, the probe's line). From it and
the triage file, ``python -m conformance.mutation_tool score`` recomputes every figure on a fresh clone,
without running a mutant; ``--check`` compares them with the committed figures.

Layout: ``conformance/mutation_record/<system>/<module>.json``, one file per module so that re-running
one module (``run --module llmz/fit``) replaces one file, and ``figures.json`` beside them, the figures
the record gives. A module whose source changed since its sample is *stale*: its record still says how
the old source fared, so it is reported, and ``--check`` fails on it until the module is run again.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from conformance.mutation_tool.plan import TARGETS, Target
from conformance.mutation_tool.score import OUTCOMES, Mutant
from conformance.paths import REPO_ROOT
from conformance.validation import field_problems

RECORD_ROOT = Path(__file__).resolve().parent.parent / "mutation_record"
FIGURES = "figures.json"


class RecordError(ValueError):
    pass


class SampledMutant(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    operator: str = Field(pattern=r"^core/\w+$")
    occurrence: int = Field(ge=0)
    location: str = Field(pattern=r"^\d+:\d+$")
    mutation: str
    outcome: str = Field(pattern="^(" + "|".join(OUTCOMES) + ")$")
    detail: str


class ModuleRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")

    module: str = Field(pattern=r"^(llmz|falai|akan)/[a-z_]+$")
    system: str
    tool: str
    seed: int = Field(ge=0)
    budget: int = Field(ge=0, description="mutants drawn for this module")
    source_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    population: dict[str, Any]
    mutants: list[SampledMutant]

    def as_mutants(self) -> list[Mutant]:
        return [Mutant(module=self.module, system=self.system, **m.model_dump()) for m in self.mutants]


def source_digest(target: Target, root: Path = REPO_ROOT) -> str:
    return hashlib.sha256((root / target.path).read_bytes()).hexdigest()


def path_for(target: Target, root: Path = RECORD_ROOT) -> Path:
    return root / target.system / f"{target.name.split('/', 1)[1]}.json"


def build(
    target: Target, mutants: list[Mutant], population: dict[str, Any], meta: dict[str, Any], digest: str
) -> ModuleRecord:
    return ModuleRecord(
        module=target.name,
        system=target.system,
        tool=meta["tool"],
        seed=meta["seed"],
        budget=meta["budget"],
        source_sha256=digest,
        population=population,
        mutants=[
            SampledMutant(**{k: v for k, v in asdict(m).items() if k not in ("module", "system")})
            for m in mutants
        ],
    )


def write(record: ModuleRecord, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record.model_dump(), indent=1) + "\n", encoding="utf-8")


def load(target: Target, root: Path = RECORD_ROOT) -> ModuleRecord | None:
    """The module's record, None when it has none; :class:`RecordError` naming the file and field."""
    path = path_for(target, root)
    if not path.exists():
        return None
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RecordError(f"{path}: not JSON ({exc})") from exc
    try:
        record = ModuleRecord.model_validate(document)
    except ValidationError as exc:
        raise RecordError("\n".join(field_problems(exc, path))) from exc
    if record.module != target.name or record.system != target.system:
        raise RecordError(f"{path}: module: expected {target.name} ({target.system}), got {record.module}")
    return record


def load_all(targets: list[Target] | None = None, root: Path = RECORD_ROOT) -> dict[str, ModuleRecord]:
    """Module name -> record, for every target that has one."""
    found = {}
    for target in targets if targets is not None else list(TARGETS):
        record = load(target, root)
        if record is not None:
            found[target.name] = record
    return found


def stale(records: dict[str, ModuleRecord], root: Path = REPO_ROOT) -> list[str]:
    """The modules whose source differs from the one their record's sample was drawn from."""
    by_name = {t.name: t for t in TARGETS}
    return sorted(
        name for name, r in records.items() if source_digest(by_name[name], root) != r.source_sha256
    )


def figures_of(summary: dict[str, Any]) -> dict[str, Any]:
    """What ``figures.json`` keeps of a summary: every figure, not the per-mutant lists."""
    left_out = ("mutants", "seconds", "moved_entries", "stale", "unrecorded", "problems")
    return {key: value for key, value in summary.items() if key not in left_out}
