"""The committed verdicts on the surviving generated mutants (``conformance/mutation_triage.yaml``).

A survivor is a change to the reference that no scenario notices. Each gets one verdict:

* ``equivalent`` -- the change cannot alter what any implementation shows (dead code, a value that is
  recomputed, a bound no documented input reaches); the reason says why.
* ``open-in-the-documents`` -- the change picks another reading the documents allow; the entry names the
  rule, whose ``open_question`` in the catalogue states the choice, and the suite rightly accepts both.
* ``gap`` -- the change breaks a documented rule nobody pins; the entry names the rule. A gap stays
  ``status: open`` until a scenario pins it, then says ``status: closed`` with ``closed_by`` (the
  scenario id) and ``mutant`` (the hand-written mutant in ``variants/mutants`` that names the rule).

Survivors are matched to entries by module, operator, location (``line:column`` of the mutated node, as
Cosmic Ray reports it) and the mutation itself (one operator can change one place in two ways), all
stable for the same source. An edit elsewhere in the module moves the location but not the mutation, so
when no entry has the survivor's location, the one entry with its module, operator and mutation text
stands for it (``moved``, reported so the location can be brought up to date) -- but only when the
mutated source line occurs once in the module: a ``continue`` or a decorator repeated elsewhere is
ambiguous, as are two entries with the same text, and matches nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from conformance.validation import field_problems
from conformance.yamlio import YamlFileError, read_yaml_file

TRIAGE_FILE = Path(__file__).resolve().parent.parent / "mutation_triage.yaml"

Verdict = Literal["equivalent", "open-in-the-documents", "gap"]


class Entry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    module: str = Field(pattern=r"^(llmz|falai|akan)/[a-z_]+$", description="e.g. falai/routing")
    operator: str = Field(pattern=r"^core/\w+$")
    location: str = Field(pattern=r"^\d+:\d+$", description="line:column of the mutated node")
    mutation: str = Field(min_length=3, description="the changed source, before -> after")
    verdict: Verdict
    reason: str = Field(min_length=10)
    rule: str | None = None
    open_question: str | None = None
    status: Literal["open", "closed"] | None = None
    closed_by: str | None = None
    mutant: str | None = None

    @model_validator(mode="after")
    def _fields_for_verdict(self) -> Entry:
        if self.verdict in ("gap", "open-in-the-documents") and not self.rule:
            raise ValueError(f"a {self.verdict} entry names its rule (field rule)")
        if self.verdict == "open-in-the-documents" and not self.open_question:
            raise ValueError("an open-in-the-documents entry quotes the rule's open question (open_question)")
        if self.verdict == "gap":
            if self.status is None:
                raise ValueError("a gap entry says status: open, or status: closed once a scenario pins it")
            if self.status == "closed" and not (self.closed_by and self.mutant):
                raise ValueError("a closed gap names the scenario (closed_by) and the mutant (mutant)")
        elif self.status is not None or self.closed_by or self.mutant:
            raise ValueError("status, closed_by and mutant belong to gap entries only")
        return self

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.module, self.operator, self.location, self.mutation)


class TriageFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    entries: list[Entry] = Field(default_factory=list)


class TriageError(ValueError):
    pass


def load(path: Path = TRIAGE_FILE) -> list[Entry]:
    """The entries of ``path``; a bad file raises :class:`TriageError` naming the file and each field."""
    try:
        parsed = TriageFile.model_validate(read_yaml_file(path))
    except YamlFileError as exc:
        raise TriageError(str(exc)) from exc
    except ValidationError as exc:
        raise TriageError("\n".join(field_problems(exc, path))) from exc
    seen: set[tuple[str, str, str, str]] = set()
    for index, entry in enumerate(parsed.entries):
        if entry.key in seen:
            raise TriageError(f"{path}: entries.{index}: a second entry for {' | '.join(entry.key)}")
        seen.add(entry.key)
    return parsed.entries


def open_gaps(entries: list[Entry]) -> list[Entry]:
    return [e for e in entries if e.verdict == "gap" and e.status == "open"]


class Verdicts:
    """Survivor -> entry, by exact key first, else by the mutation text alone when that is unambiguous."""

    def __init__(self, entries: list[Entry], sources: dict[str, list[str]] | None = None) -> None:
        """``sources``: each module's source lines, stripped (without them nothing matches by text)."""
        self.sources = sources or {}
        self.exact = {e.key: e for e in entries}
        by_text: dict[tuple[str, str, str], list[Entry]] = {}
        for e in entries:
            by_text.setdefault((e.module, e.operator, e.mutation), []).append(e)
        self.by_text = by_text
        self.moved: list[tuple[Entry, str]] = []
        """Entries matched at another location: (entry, the survivor's location)."""

    def get(self, key: tuple[str, str, str, str]) -> Entry | None:
        if key in self.exact:
            return self.exact[key]
        module, operator, location, mutation = key
        found = self.by_text.get((module, operator, mutation), [])
        before = mutation.split(" -> ", 1)[0].split(" / ")
        lines = self.sources.get(module, [])
        if len(found) != 1 or any(lines.count(line) != 1 for line in before):
            return None
        if (found[0], location) not in self.moved:
            self.moved.append((found[0], location))
        return found[0]


def tidy(
    entries: list[Entry],
    sampled: dict[str, list[tuple[str, str, str]]],
    killed: frozenset[tuple[str, ...]] = frozenset(),
) -> tuple[list[Entry], list[str]]:
    """The entries kept after a new sample of the modules in ``sampled`` (module -> its sampled mutants'
    (operator, location, mutation)), and what changed. An entry the sample holds stays, unless it is an
    equivalent or open verdict on a mutant a scenario now kills (``killed``: their keys); one whose mutation
    the sample holds once at another location (an edit moved the line) is moved there; any other entry of
    those modules answers for no sampled mutant and goes (git keeps it). Other modules' entries stay."""
    exact = {(module, *m) for module, mutants in sampled.items() for m in mutants}
    taken = {e.key for e in entries}
    kept: list[Entry] = []
    changes: list[str] = []
    for e in entries:
        if e.key in killed and e.verdict != "gap":
            changes.append(f"dropped (now killed): {e.module} {e.location} {e.operator}: {e.mutation}")
            continue
        if e.module not in sampled or e.key in exact:
            kept.append(e)
            continue
        moved = [
            loc
            for op, loc, text in sampled[e.module]
            if op == e.operator and text == e.mutation and (e.module, op, loc, text) not in taken
        ]
        if len(moved) == 1:
            kept.append(e.model_copy(update={"location": moved[0]}))
            taken.add((e.module, e.operator, moved[0], e.mutation))
            changes.append(f"moved: {e.module} {e.operator} {e.location} -> {moved[0]}")
        else:
            changes.append(f"dropped (no sampled mutant): {e.module} {e.location} {e.operator}: {e.mutation}")
    return kept, changes


def write(entries: list[Entry], path: Path = TRIAGE_FILE) -> None:
    import yaml

    body = yaml.safe_dump(
        {"entries": [e.model_dump(exclude_none=True) for e in entries]},
        sort_keys=False, width=110, allow_unicode=True,
    )  # fmt: skip
    path.write_text(HEADER + body, encoding="utf-8")


HEADER = (
    "# Verdicts on the surviving generated mutants (python -m conformance.mutation_tool); see\n"
    "# conformance/mutation_tool/triage.py for the format. Every entry answers for one mutant of the\n"
    "# committed sample (conformance/mutation_record/); `python -m conformance.mutation_tool tidy` moves\n"
    "# entries whose line moved and drops those no sampled mutant matches.\n"
)
