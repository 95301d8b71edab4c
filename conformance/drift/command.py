"""``python -m conformance spec ...``: the drift report and the anchor check (the I/O around the pure parts).

``spec drift OLD.md NEW.md`` prints the report and writes ``build/spec/drift.json`` and ``drift.md``;
``spec anchors`` checks every rule's section and passages against the source documents. Exit status: 0
done (drift) or every anchor resolves (anchors); 1 an anchor does not resolve; 2 a file or document
cannot be read or named.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import stat
import sys
from pathlib import Path
from typing import Any

from conformance.catalogue.load import Catalogue, load_catalogue
from conformance.catalogue.model import SOURCE_DOCUMENTS
from conformance.drift.align import align
from conformance.drift.anchors import unresolved
from conformance.drift.document import Document, parse
from conformance.drift.impact import RuleRef, impacts, uncited
from conformance.drift.radius import Index
from conformance.drift.report import build, console, to_markdown, version_of
from conformance.paths import BUILD_ROOT, GOLDEN_ROOT, SCENARIO_ROOT, SPEC_ROOT
from conformance.report.files import file_problem, write_atomic

OUTPUTS = ("drift.json", "drift.md")


class DriftError(Exception):
    """A file or document that cannot be used; the message says which and why."""


def add_parser(commands: Any) -> None:
    spec = commands.add_parser("spec", help="the catalogue against its source documents")
    actions = spec.add_subparsers(dest="spec_command", required=True)
    drift = actions.add_parser("drift", help="what a new document version changes, rule by rule")
    drift.add_argument("old", type=Path, metavar="OLD.md")
    drift.add_argument("new", type=Path, metavar="NEW.md")
    drift.add_argument("--document", choices=SOURCE_DOCUMENTS, help="the catalogue's name for the document "
                       "(default: whichever of the two file names is one)")  # fmt: skip
    drift.add_argument("--out", type=Path, default=BUILD_ROOT / "spec", help="default: build/spec/")
    drift.add_argument("--spec", type=Path, default=SPEC_ROOT, help=argparse.SUPPRESS)
    anchors = actions.add_parser("anchors", help="every rule's section and passages resolve in its document")
    anchors.add_argument(
        "--seeds", type=Path, help="the source documents' folder (default: as the tests find it)"
    )
    anchors.add_argument("--spec", type=Path, default=SPEC_ROOT, help=argparse.SUPPRESS)


def command(args: argparse.Namespace) -> int:
    try:
        return drift(args) if args.spec_command == "drift" else check_anchors(args)
    except DriftError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def rule_refs(catalogue: Catalogue, document: str) -> list[RuleRef]:
    return [
        RuleRef(rule_id, _shown(entry.path), entry.rule.statement, entry.rule.source.section,
                tuple(entry.rule.source.passages), entry.rule.since)
        for rule_id, entry in sorted(catalogue.rules.items())
        if entry.rule.source.document == document
    ]  # fmt: skip


def _shown(path: Path) -> str:
    """A catalogue file as a reviewer finds it: relative to the current directory where it can be."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(path)


MAX_DOCUMENT_BYTES = 2 * 1024 * 1024
"""The largest document ``spec drift`` reads: twenty times the largest source document (about 90 KB).
Anything larger is not a release of one of them, and aligning it would take minutes (issue 23)."""


def read_document(path: Path) -> Document:
    """The parsed document; a file that is missing, too large, binary or not UTF-8 is a ``DriftError``
    naming it and saying what was expected."""
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_DOCUMENT_BYTES + 1)
    except OSError as exc:
        raise DriftError(f"{path}: cannot read the document ({exc.strerror or exc})") from exc
    if len(data) > MAX_DOCUMENT_BYTES:
        raise DriftError(
            f"{path}: larger than {MAX_DOCUMENT_BYTES // 1024 // 1024} MB; expected a markdown document "
            "(the source documents are under 100 KB)"
        )
    nul = data.find(b"\0")
    if nul >= 0:
        raise DriftError(
            f"{path}: holds a NUL byte at offset {nul}: a binary file, expected a markdown document"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DriftError(
            f"{path}: not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}); expected a markdown "
            "document saved as UTF-8"
        ) from exc
    return parse(text)


def output_problem(out: Path) -> str | None:
    """Why the reports cannot be written into ``out``: it is a link, a file, or holds something other
    than a regular file where a report goes (``conformance.report.files`` follows no link either)."""
    with contextlib.suppress(FileNotFoundError, NotADirectoryError):
        mode = os.lstat(out).st_mode
        if stat.S_ISLNK(mode):
            return f"--out {out}: is a symbolic link; give the real folder"
        if not stat.S_ISDIR(mode):
            return f"--out {out}: is not a folder"
    for name in OUTPUTS:
        problem = file_problem(out / name)
        if problem:
            return f"--out {out}: {problem}"
    return None


def document_name(old: Path, new: Path, given: str | None) -> str:
    if given:
        return given
    for path in (new, old):
        if path.name in SOURCE_DOCUMENTS:
            return path.name
    raise DriftError(
        f"neither {old.name} nor {new.name} is a document the catalogue cites; name it with --document "
        f"(one of {', '.join(SOURCE_DOCUMENTS)})"
    )


def drift(args: argparse.Namespace) -> int:
    name = document_name(args.old, args.new, args.document)
    old, new = read_document(args.old), read_document(args.new)
    problem = output_problem(args.out)
    if problem:
        raise DriftError(problem)
    rules = rule_refs(load_catalogue(args.spec, schema_check=False), name)
    alignment = align(old, new)
    report = build(
        name,
        (version_of(args.old.name), version_of(args.new.name)),
        alignment,
        impacts(rules, alignment),
        uncited(alignment, rules),
        load_index(),
    )
    write_atomic(args.out / "drift.json", json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    write_atomic(args.out / "drift.md", to_markdown(report))
    print(
        "\n".join([*console(report)[:-1], f"reports: {args.out}/drift.json, drift.md", console(report)[-1]])
    )
    return 0


def load_index(scenario_root: Path = SCENARIO_ROOT, golden_root: Path = GOLDEN_ROOT) -> Index:
    """Scenario rule lists, golden files and variants of the clone (or the installed package)."""
    from conformance.scenario.load import scenario_files, scenario_id
    from conformance.yamlio import YamlFileError, read_yaml_file
    from variants import all_mutants, all_permitted

    scenarios: dict[str, tuple[str, ...]] = {}
    for path in scenario_files(scenario_root) if scenario_root.exists() else []:
        try:
            document = read_yaml_file(path)
        except YamlFileError:
            continue  # an unreadable scenario is nox -s spec's to report
        rules = document.get("rules") if isinstance(document, dict) else None
        scenarios[scenario_id(path, scenario_root)] = tuple(str(r) for r in rules or [])
    goldens = (
        frozenset(p.relative_to(golden_root).as_posix() for p in golden_root.rglob("*.json"))
        if golden_root.exists()
        else frozenset()
    )
    return Index(
        scenarios,
        goldens,
        {name: m.rules for name, m in all_mutants().items()},
        {name: v.exercises for name, v in all_permitted().items()},
    )


def check_anchors(args: argparse.Namespace) -> int:
    from conformance.originality import locate_seeds

    seeds = args.seeds or locate_seeds()
    if seeds is None or not seeds.is_dir():
        raise DriftError("no source documents found: pass --seeds DIR or set SEEDS_DIR")
    problems, checked = anchor_problems(load_catalogue(args.spec, schema_check=False), seeds)
    print("\n".join([*problems, f"{checked} rules' anchors checked, {len(problems)} do not resolve"]))
    return 1 if problems else 0


def anchor_problems(catalogue: Catalogue, seeds: Path) -> tuple[list[str], int]:
    """Every rule whose section or passages are not in its document (as found in ``seeds``), and how many
    rules were checked (those whose document is there)."""
    problems: list[str] = []
    checked = 0
    for name in SOURCE_DOCUMENTS:
        rules = rule_refs(catalogue, name)
        if rules and (seeds / name).is_file():
            problems += unresolved(rules, read_document(seeds / name), name)
            checked += len(rules)
    return problems, checked
