"""One place per documented number: the lines that restate a rule's numeric ``params``, and whether they
still agree with it (``python -m conformance.restated [--write]``; ``tests/test_defaults_agree.py``).

Theory of operation. A threshold, ceiling or default the documents fix is written once, in its rule's
``params`` (spec/<system>/<area>.yaml). Code in the harness reads it from there
(``conformance.catalogue.params``); what cannot (the reference may not import the harness; a rule's title,
an open question or a scenario's description are prose) restates it, and every such line is listed in
the ledger ``conformance/restated.yaml``: the file, the rule and param, and the words around the number
with the number replaced by a placeholder (``<<n>>`` the plain digits, ``<<n,>>`` with thousands commas,
``<<n_>>`` with underscores, ``<<mb>>`` in 2^20-byte megabytes). Two checks keep the ledger honest:

* **agreement**: some line of the file must have an entry's words around the param's current value;
  when none has, every line with those words around another number is named, with its file, line number
  and what it still says. Change a number in ``params`` and each restating line is named.
* **completeness**: every line that renders a param's current value, in a file that names the rule (the
  rule's own catalogue file, the reference module citing it, a mutant, a scenario), must be covered by an
  entry; a new restatement either derives from the param or is recorded (``--write`` records it).

``--write`` adds entries for unrecorded restatements and keeps every existing entry, so regenerating can
never hide a stale line: an entry whose words no longer occur anywhere in its file is reported until it is
removed by hand. An entry may say ``unrelated: <why>`` for a line that shows the same number by coincidence
(half of one default equals another); it is then only a record. Only whole numbers of at least 100 are
scanned (a ``5`` or a ``0.85`` would match everywhere); smaller params are checked where the code holds them
(``tests/test_defaults_agree.py``).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from conformance.catalogue.load import load_catalogue
from conformance.paths import REPO_ROOT
from conformance.validation import field_problems
from conformance.yamlio import YamlFileError, read_yaml_file

LEDGER = Path(__file__).with_name("restated.yaml")
#: Where restatements are looked for, relative to the clone (docs/ is prose about the suite, not part of it).
SCANNED = (
    "spec/llmz",
    "spec/falai",
    "spec/akan",
    "reference",
    "variants",
    "conformance/fuzz",
    "conformance/scenario",
    "fixtures/scenarios",
)
SUFFIXES = (".py", ".yaml", ".md")
MB = 2**20
SMALLEST = 100

#: Placeholder -> (the regular expression of a number written that way, how a value is written that way).
FORMS: dict[str, tuple[str, Any]] = {
    "<<n,>>": (r"\d{1,3}(?:,\d{3})+", lambda v: f"{v:,}"),
    "<<n_>>": (r"\d{1,3}(?:_\d{3})+", lambda v: f"{v:_}"),
    "<<mb>>": (r"\d+(?:\.\d+)?", lambda v: f"{v / MB:g}"),
    "<<n>>": (r"\d+", str),
}
_UNITS = r"(?= ?(?:MB|MiB)\b| \* MB\b| \* 1024 \* 1024\b)"
_EDGE_BEFORE, _EDGE_AFTER = r"(?<![\w.,$])", r"(?![\w]|[.,_]\d)"
_PLACEHOLDER = r"<<n,>>|<<n_>>|<<mb>>|<<n>>"
_PARAM_LINE = re.compile(r"^\s*(?:params:|-?\s*[a-z_]+:\s*-?[\d.]+\s*$)")


@dataclass(frozen=True)
class Entry:
    """One restating line: ``text`` is the words around the number, the number as a placeholder."""

    file: str
    rule: str
    param: str
    text: str
    unrelated: str | None = None
    """Why this line is not a restatement after all, though it shows the same number (a coincidence):
    it then counts as recorded, and is not checked against the param."""

    def pattern(self) -> re.Pattern[str]:
        parts = re.split(f"({_PLACEHOLDER})", self.text)
        return re.compile(
            "".join(f"({FORMS[part][0]})" if part in FORMS else re.escape(part) for part in parts)
        )

    def expected(self, value: int) -> tuple[str, ...]:
        """The value as each placeholder of ``text`` writes it, in order."""
        return tuple(str(FORMS[part][1](value)) for part in re.findall(_PLACEHOLDER, self.text))


@dataclass(frozen=True)
class Found:
    """A line rendering a param's current value (a restatement, recorded or not)."""

    file: str
    line: int
    rule: str
    param: str
    text: str
    source: str
    """The whole line."""


def numeric_params(spec: Path) -> dict[tuple[str, str], int]:
    """(rule id, param) -> value, for the whole-number params the scan covers."""
    catalogue = load_catalogue(spec, schema_check=False)
    found: dict[tuple[str, str], int] = {}
    for rule_id, entry in catalogue.rules.items():
        for name, value in (entry.rule.params or {}).items():
            if isinstance(value, int) and not isinstance(value, bool) and value >= SMALLEST:
                found[rule_id, name] = value
    return found


def _renderings(value: int) -> list[tuple[str, str]]:
    """(placeholder, regular expression) for each way the value is written, longest first."""
    forms = [("<<n,>>", f"{value:,}"), ("<<n_>>", f"{value:_}")] if value >= 1000 else []
    shown = [(placeholder, re.escape(text)) for placeholder, text in [*forms, ("<<n>>", str(value))]]
    if value >= MB and value % MB == 0:
        shown.insert(0, ("<<mb>>", re.escape(str(value // MB)) + _UNITS))
    return shown


def _context(line: str, start: int, end: int, forms: list[tuple[str, str]]) -> str:
    """The words around ``line[start:end]`` (up to three each side), each rendering of the value in them
    replaced by its placeholder."""
    before = line[:start].split(" ")[-4:] if line[:start].strip() else [""]
    after = line[end:].split(" ")[:4]
    text = " ".join(before) + line[start:end] + " ".join(after)
    for placeholder, regex in forms:
        text = re.sub(_EDGE_BEFORE + regex + _EDGE_AFTER, placeholder, text)
    return text.strip()


def _files(root: Path) -> Iterator[tuple[str, str]]:
    for folder in SCANNED:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix in SUFFIXES and path.is_file() and path != root / LEDGER.relative_to(REPO_ROOT):
                yield path.relative_to(root).as_posix(), path.read_text(encoding="utf-8")


def scan(root: Path, params: dict[tuple[str, str], int]) -> list[Found]:
    """Every line, in a file naming the rule, that renders one of the rule's params' current values."""
    found: list[Found] = []
    files = list(_files(root))
    for (rule, param), value in sorted(params.items()):
        forms = _renderings(value)
        for name, text in files:
            if rule not in text:
                continue
            for number, line in enumerate(text.splitlines(), 1):
                if name.startswith("spec/") and _PARAM_LINE.match(line):
                    continue  # the param itself
                for _, regex in forms:
                    match = re.search(_EDGE_BEFORE + regex + _EDGE_AFTER, line)
                    if match:
                        context = _context(line, match.start(), match.end(), forms)
                        found.append(Found(name, number, rule, param, context, line))
                        break
    return found


class LedgerError(Exception):
    """The ledger cannot be read; the message names the file and the field (issue 23: exit 2, no
    traceback)."""


class RestatedEntry(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    file: str = Field(min_length=1)
    rule: str = Field(min_length=1)
    param: str = Field(min_length=1)
    text: str = Field(min_length=1)
    unrelated: str | None = None


class RestatedLedger(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    restated: list[RestatedEntry] | None = None


def read_ledger(path: Path = LEDGER) -> list[Entry]:
    """The ledger's entries (none when the file is absent or empty); a malformed ledger is a
    ``LedgerError`` naming the file and each bad field."""
    if not path.exists():
        return []
    try:
        document = read_yaml_file(path)
    except YamlFileError as exc:
        raise LedgerError(str(exc)) from exc
    try:
        ledger = RestatedLedger.model_validate({} if document is None else document)
    except ValidationError as exc:
        raise LedgerError("; ".join(field_problems(exc, path))) from exc
    return [Entry(**item.model_dump()) for item in ledger.restated or []]


def _covers(entry: Entry, found: Found) -> bool:
    same = (entry.file, entry.rule, entry.param) == (found.file, found.rule, found.param)
    return same and entry.pattern().search(found.source) is not None


def disagreements(root: Path, entries: list[Entry], params: dict[tuple[str, str], int]) -> list[str]:
    """Each recorded line whose number is no longer the param's value, named by file and line."""
    problems: list[str] = []
    texts: dict[str, list[str]] = {}
    for entry in entries:
        if entry.unrelated is not None:
            continue
        if (entry.rule, entry.param) not in params:
            problems.append(f"{LEDGER.name}: {entry.rule} has no whole-number params.{entry.param} any more")
            continue
        value = params[entry.rule, entry.param]
        if entry.file not in texts:
            texts[entry.file] = _lines(root, entry.file)
        hits = [(n, m) for n, line in enumerate(texts[entry.file], 1) if (m := entry.pattern().search(line))]
        if not hits:
            problems.append(
                f"{entry.file}: no line reads {entry.text!r} any more (restating {entry.rule}.params."
                f"{entry.param}); remove the entry from conformance/{LEDGER.name} if the line is gone"
            )
        want = entry.expected(value)
        if any(match.groups() == want for _, match in hits):
            continue  # the words may recur around other numbers; one line with the value is the restatement
        problems += [
            f"{entry.file}:{number}: says {match.group(0)!r}, but {entry.rule}.params.{entry.param} "
            f"is {value}: it should read {' and '.join(want)}"
            for number, match in hits
        ]
    return problems


def _lines(root: Path, name: str) -> list[str]:
    """The lines of a file an entry names (none when it is gone); one that cannot be read as text, or
    lies outside the clone, is the ledger's error, named."""
    path = root / name
    if not path.resolve().is_relative_to(root.resolve()):
        raise LedgerError(f"{LEDGER.name}: file {name!r} is outside the clone")
    try:
        return path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    except (OSError, UnicodeDecodeError) as exc:
        raise LedgerError(f"{LEDGER.name}: file {name!r} cannot be read as UTF-8 text ({exc})") from exc


def unrecorded(root: Path, entries: list[Entry], params: dict[tuple[str, str], int]) -> list[Found]:
    """Restatements of a current value that no entry covers."""
    return [item for item in scan(root, params) if not any(_covers(entry, item) for entry in entries)]


def check(root: Path = REPO_ROOT, ledger: Path = LEDGER) -> list[str]:
    """Every disagreement and every unrecorded restatement under ``root``, one line each."""
    params = numeric_params(root / "spec")
    entries = read_ledger(ledger)
    problems = disagreements(root, entries, params)
    problems += [
        f"{f.file}:{f.line}: restates {f.rule}.params.{f.param} ({f.text!r}) but is not in "
        f"conformance/{LEDGER.name}: derive it from the param, or record it with "
        "`python -m conformance.restated --write`"
        for f in unrecorded(root, entries, params)
    ]
    return problems


def write(root: Path = REPO_ROOT, ledger: Path = LEDGER) -> int:
    """Record every unrecorded restatement; existing entries stay (a stale one must stay visible)."""
    params = numeric_params(root / "spec")
    entries = read_ledger(ledger)
    new = {Entry(f.file, f.rule, f.param, f.text) for f in unrecorded(root, entries, params)}
    dump(sorted({*entries, *new}, key=lambda e: (e.rule, e.param, e.file, e.text)), ledger)
    return len(new)


def dump(entries: list[Entry], ledger: Path = LEDGER) -> None:
    header = (
        "# Lines that restate a rule's numeric params (conformance/restated.py says how they are checked).\n"
        "# `python -m conformance.restated --write` adds new ones; remove one by hand when its line goes.\n"
    )
    listed = [{k: v for k, v in vars(e).items() if v is not None} for e in entries]
    body = yaml.safe_dump({"restated": listed}, sort_keys=False, allow_unicode=True, width=200)
    ledger.write_text(header + body, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m conformance.restated", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--write", action="store_true", help="record unrecorded restatements in the ledger")
    parser.add_argument("--ledger", type=Path, default=LEDGER, help=f"default: conformance/{LEDGER.name}")
    args = parser.parse_args(argv)
    if args.ledger != LEDGER and not args.ledger.is_file():
        print(f"restated: {args.ledger}: no such ledger file", file=sys.stderr)
        return 2
    try:
        if args.write:
            print(f"recorded {write(ledger=args.ledger)} new restatements in {args.ledger}")
        problems = check(ledger=args.ledger)
    except LedgerError as exc:
        print(f"restated: {exc}", file=sys.stderr)
        return 2
    print("\n".join(problems) or "every restated number agrees with its rule's params")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
