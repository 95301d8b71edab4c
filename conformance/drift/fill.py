"""``python -m conformance.drift.fill SEEDS [--write] [RULE-ID...]``: propose passages for rules.

For every rule (or those named) that cites a document found in SEEDS, prints the best units of its
section (``suggest.propose``) with their score and text, lowest score first so the doubtful ones are read
first. With ``--write``, the proposals for rules that have no ``passages`` yet are written into their
``source``, editing the YAML text in place so the hand-kept layout of the files survives; review them with
``git diff``: the tool ranks, a person decides.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from conformance.catalogue.load import load_catalogue
from conformance.drift.document import Document, parse
from conformance.drift.suggest import propose, query_words, ranked
from conformance.paths import SPEC_ROOT

_ID = re.compile(r"^\s*- id: (\S+)\s*$")
_FLOW = re.compile(r"^(\s+source: \{.*?)\}\s*$")
_SECTION = re.compile(r"^(\s+)section: .*$")


def add_passages(text: str, passages: dict[str, list[str]]) -> str:
    """The catalogue file with ``passages`` added to the source of each rule named (text edit)."""
    out: list[str] = []
    rule: str | None = None
    in_source = False
    for line in text.splitlines():
        found = _ID.match(line)
        rule = found.group(1) if found else rule
        in_source = line.strip() == "source:" or (in_source and not found)  # a params key may be "section"
        wanted = passages.get(rule or "")
        flow, section = _FLOW.match(line), _SECTION.match(line)
        quoted = ", ".join(f'"{p}"' for p in wanted or [])
        if wanted and flow:
            line = f"{flow.group(1)}, passages: [{quoted}]}}"
            passages.pop(rule or "")
        elif wanted and section and in_source:
            out.append(line)
            line = f"{section.group(1)}passages: [{quoted}]"
            passages.pop(rule or "")
            in_source = False
        out.append(line)
    return "\n".join(out) + "\n"


def main(argv: list[str]) -> int:
    write = "--write" in argv
    argv = [a for a in argv if a != "--write"]
    if not argv:
        print("usage: python -m conformance.drift.fill SEEDS_DIR [--write] [RULE-ID...]", file=sys.stderr)
        return 2
    seeds, only = Path(argv[0]), set(argv[1:])
    documents: dict[str, Document] = {}
    catalogue = load_catalogue(SPEC_ROOT, schema_check=False)
    edits: dict[Path, dict[str, list[str]]] = {}
    lines: list[tuple[float, str]] = []
    for rule_id, entry in sorted(catalogue.rules.items()):
        rule = entry.rule
        path = seeds / rule.source.document
        if (only and rule_id not in only) or not path.is_file() or (rule.source.passages and not only):
            continue
        document = documents.setdefault(rule.source.document, parse(path.read_text(encoding="utf-8")))
        section = document.section(rule.source.section)
        if section is None:
            print(f"{entry.path}: {rule_id}: section {rule.source.section!r} not in {path}", file=sys.stderr)
            continue
        query = query_words(rule.title, rule.statement, rule.params)
        units = propose(query, section)
        if units and not rule.source.passages:
            edits.setdefault(entry.path, {})[rule_id] = [u.fingerprint for u in units]
        shown = "; ".join(f"{u.fingerprint} {u.text[:100]!r}" for u in units)
        lines.append((ranked(query, section)[0][0], f"{rule_id} (now {rule.source.passages}): {shown}"))
    for file, wanted in edits.items() if write else []:
        file.write_text(add_passages(file.read_text(encoding="utf-8"), dict(wanted)), encoding="utf-8")
    for score, line in sorted(lines):
        print(f"{score:.2f} {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
