"""The disagreement ledger: every place a foreign implementation and the suite disagree, and who was wrong.

Why it exists. A verdict has to be right both ways, and the only evidence that it is comes from
implementations we did not write: llmz 1.0.1 from npm, the blind second implementations under ``blind/``,
and third-party code run by outside testers. Each disagreement with one of them falls in exactly one class:

* ``suite-wrong``: a scenario or record schema asked for something the documents do not fix; the suite was
  changed (``resolution`` says how) and the implementation now passes that case.
* ``implementation-wrong``: the implementation breaks a statement of the documents; the ledger entry cites
  the document and section, and each of its ``baseline`` ids is an entry of that implementation's
  expected-failures file (whose reason says what was observed), unless the implementation was corrected
  (``fixed`` says where: a blind implementation changes only when a sentence says it is wrong).
* ``documents-open``: the documents allow both behaviours; the rule carries an ``open_question`` and a
  permitted variant (``variant``) plays the other reading, so every scenario is shown to accept both.

The checks below make the ledger complete rather than decorative: every entry of a listed implementation's
baseline must be accounted for by an ``implementation-wrong`` entry, and every id, variant, document and
baseline entry the ledger names must exist. ``python -m conformance.disagreements`` prints the counts per
class and per system and exits 1 when a check fails (the tests run the same checks).
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from conformance.validation import field_problems
from conformance.yamlio import YamlFileError, read_yaml_file

LEDGER_FILE = Path(__file__).with_name("disagreements.yaml")

Class = Literal["suite-wrong", "implementation-wrong", "documents-open"]
CLASSES: tuple[Class, ...] = ("suite-wrong", "implementation-wrong", "documents-open")


class LedgerError(Exception):
    """The ledger file cannot be read; names the file, the entry and the field."""


class Implementation(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    what: str = Field(min_length=1)
    """Which code this is and how it is reached (a preset, a stdio command, outside testers)."""
    baseline: str | None = None
    """Its expected-failures file under conformance/baselines/, when it runs in our CI."""


class Source(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    document: str = Field(min_length=1)
    section: str = Field(min_length=1)


class Disagreement(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    implementation: str = Field(min_length=1)
    verdict: Class
    """The class: who was wrong (see the module docstring)."""
    ids: tuple[str, ...] = Field(min_length=1)
    """The scenario or rule ids the disagreement is about."""
    source: Source
    """The passage that decides it: the one broken, the one that is silent, or the one the suite overread."""
    finding: str = Field(min_length=1)
    """What the implementation did and what the suite expected, in our own words."""
    resolution: str = Field(min_length=1)
    """What was done about it: the change to the suite, the baseline entry, the question and variant."""
    baseline: tuple[str, ...] = ()
    """implementation-wrong: the baseline entry ids that list it (default: ``ids``)."""
    variant: str | None = None
    """documents-open: the permitted variant that plays the other reading."""
    fixed: str | None = Field(default=None, min_length=1)
    """implementation-wrong: where the implementation was corrected (a commit), so no baseline lists it."""

    def baseline_ids(self) -> tuple[str, ...]:
        return self.baseline or self.ids


class Ledger(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    implementations: dict[str, Implementation]
    entries: tuple[Disagreement, ...]


def load(path: Path = LEDGER_FILE) -> Ledger:
    try:
        document = read_yaml_file(path)
    except YamlFileError as exc:
        raise LedgerError(str(exc)) from exc
    try:
        return Ledger.model_validate(document)
    except ValidationError as exc:
        raise LedgerError("; ".join(field_problems(exc, path))) from exc


@dataclass(frozen=True)
class World:
    """What the ledger's names must exist in: the catalogue, the scenarios, the variants, the baselines."""

    rules: Mapping[str, bool]
    """rule id -> whether the rule has an open_question."""
    scenarios: frozenset[str]
    documents: frozenset[str]
    permitted: Mapping[str, str]
    """permitted variant name -> its system."""
    baselines: Mapping[str, frozenset[str]]
    """baseline file name -> the ids of its entries."""


def problems(ledger: Ledger, world: World) -> list[str]:
    """Every way the ledger is incomplete or names something that does not exist."""
    found: list[str] = []
    listed: Counter[tuple[str, str]] = Counter()
    for index, entry in enumerate(ledger.entries):
        where = f"entries[{index}] ({entry.implementation}: {', '.join(entry.ids)})"
        found.extend(f"{where}: {p}" for p in _entry_problems(entry, ledger, world))
        implementation = ledger.implementations.get(entry.implementation)
        in_baseline = entry.verdict == "implementation-wrong" and not entry.fixed
        if in_baseline and implementation and implementation.baseline:
            listed.update((implementation.baseline, i) for i in entry.baseline_ids())
    for name, implementation in sorted(ledger.implementations.items()):
        if implementation.baseline is None:
            continue
        if implementation.baseline not in world.baselines:
            found.append(
                f"implementations.{name}.baseline: no file {implementation.baseline} in the baselines"
            )
            continue
        for baseline_id in sorted(world.baselines[implementation.baseline]):
            count = listed[(implementation.baseline, baseline_id)]
            if count != 1:
                found.append(
                    f"{implementation.baseline}: entry {baseline_id!r} is accounted for by {count} "
                    "implementation-wrong entries of the ledger, expected exactly 1"
                )
    return found


def _entry_problems(entry: Disagreement, ledger: Ledger, world: World) -> Iterable[str]:
    implementation = ledger.implementations.get(entry.implementation)
    if implementation is None:
        yield f"implementation: {entry.implementation!r} is not under implementations"
    for ident in entry.ids:
        if ident not in world.rules and ident not in world.scenarios:
            yield f"ids: {ident!r} names no rule and no scenario"
    if entry.source.document not in world.documents:
        yield f"source.document: {entry.source.document!r} is not a document the catalogue cites"
    if entry.fixed is not None and entry.verdict != "implementation-wrong":
        yield f"fixed: only an implementation-wrong entry is fixed in its implementation, not {entry.verdict}"
    if entry.verdict == "implementation-wrong" and entry.fixed is not None:
        if entry.baseline:
            yield "baseline: a disagreement fixed in the implementation is not in its baseline"
    elif entry.verdict == "implementation-wrong":
        yield from _baseline_problems(entry, implementation, world)
    elif entry.baseline:
        yield f"baseline: only an implementation-wrong entry is listed in a baseline, this is {entry.verdict}"
    if entry.verdict == "documents-open":
        yield from _open_problems(entry, world)
    elif entry.variant is not None:
        yield f"variant: only a documents-open entry names a permitted variant, this is {entry.verdict}"


def _baseline_problems(
    entry: Disagreement, implementation: Implementation | None, world: World
) -> Iterable[str]:
    if implementation is None:
        return
    if implementation.baseline is None:
        yield f"verdict: implementation-wrong needs a baseline, and {entry.implementation} has none"
        return
    have = world.baselines.get(implementation.baseline, frozenset())
    for ident in entry.baseline_ids():
        if ident not in have:
            yield f"baseline: {ident!r} is not an entry of {implementation.baseline}"


def _open_problems(entry: Disagreement, world: World) -> Iterable[str]:
    if entry.variant is None:
        yield "variant: a documents-open entry names the permitted variant that plays the other reading"
    elif entry.variant not in world.permitted:
        yield f"variant: {entry.variant!r} is not a permitted variant"
    rules = [i for i in entry.ids if i in world.rules]
    if rules and not any(world.rules[r] for r in rules):
        yield f"ids: none of {', '.join(rules)} carries an open_question"


def counts(ledger: Ledger) -> dict[str, Counter[Class]]:
    """system -> class -> number of disagreements (the system is read off the first id)."""
    table: dict[str, Counter[Class]] = {}
    for entry in ledger.entries:
        system = entry.ids[0].split(".", 1)[0].split("/", 1)[0]
        table.setdefault(system, Counter())[entry.verdict] += 1
    return table


def summary_lines(ledger: Ledger) -> list[str]:
    table = counts(ledger)
    lines = [f"{'system':8} " + " ".join(f"{c:>20}" for c in CLASSES) + f" {'all':>5}"]
    for system in sorted(table):
        row = table[system]
        lines.append(f"{system:8} " + " ".join(f"{row[c]:>20}" for c in CLASSES) + f" {sum(row.values()):>5}")
    per_impl = Counter(entry.implementation for entry in ledger.entries)
    lines.append("by implementation: " + ", ".join(f"{k} {v}" for k, v in sorted(per_impl.items())))
    return lines


def current_world() -> World:
    """The world of this clone (or installed package): imported late, the harness does not need it."""
    from conformance import baseline
    from conformance.catalogue.load import load_catalogue
    from conformance.paths import BASELINE_DIR, SCENARIO_ROOT
    from conformance.scenario.load import scenario_files, scenario_id
    from variants import all_permitted

    catalogue = load_catalogue(schema_check=False)
    rules = {rid: bool(c.rule.open_question) for rid, c in catalogue.rules.items()}
    documents = frozenset(c.rule.source.document for c in catalogue.rules.values())
    scenarios = frozenset(scenario_id(p) for p in scenario_files(SCENARIO_ROOT))
    baselines = {
        p.name: frozenset(e.id for e in baseline.load(p)) for p in sorted(BASELINE_DIR.glob("*.yaml"))
    }
    permitted = {name: v.system for name, v in all_permitted().items()}
    return World(rules, scenarios, documents, permitted, baselines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    path = Path(args[0]) if args else LEDGER_FILE
    try:
        ledger = load(path)
    except LedgerError as exc:
        print(f"disagreements: {exc}", file=sys.stderr)
        return 2
    print("\n".join(summary_lines(ledger)))
    found = problems(ledger, current_world())
    for line in found:
        print(f"{path}: {line}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
