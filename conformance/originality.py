"""Finding text copied from the seed documents: any run of ten consecutive words they contain.

The project states every rule in its own words; facts and identifiers carry over, prose does not. The
check is mechanical so nobody has to trust their memory: both sides are reduced to lower-case words
(markdown punctuation, quotes and line breaks gone, so re-wrapping or adding backticks hides nothing),
every ten-word window of the seeds goes into a hash set, and every window of our files is looked up.
``python -m conformance.originality [PATH...]`` prints each hit with its file, line and seed.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from conformance.paths import REPO_ROOT

WINDOW = 10
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z0-9]+)*")
SCANNED = ("spec", "fixtures", "reference", "conformance", "tests", "docs", "README.md")
TEXT_SUFFIXES = {
    ".py",
    ".md",
    ".yaml",
    ".yml",
    ".json",
    ".txt",
    ".mjs",
    ".js",
    ".ts",
    ".toml",
    ".html",
    ".css",
}
SKIPPED_DIRS = {"node_modules", "__pycache__", ".git", ".mypy_cache", ".ruff_cache", ".pytest_cache", "build"}
SKIPPED_FILES = {"package-lock.json", "package.json"}  # dependency manifests: versions, not prose


@dataclass(frozen=True)
class Hit:
    path: Path
    line: int
    words: str
    seed: str


def words_with_lines(text: str) -> list[tuple[str, int]]:
    """Lower-case words and the line each starts on; apostrophe variants are unified."""
    text = text.lower().replace("\u2019", "'").replace("\u2018", "'")
    found: list[tuple[str, int]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        found.extend((word, number) for word in _WORD.findall(line))
    return found


def windows(words: list[str]) -> Iterator[tuple[int, tuple[str, ...]]]:
    for start in range(len(words) - WINDOW + 1):
        yield start, tuple(words[start : start + WINDOW])


def seed_index(seed_files: Iterable[Path]) -> dict[tuple[str, ...], str]:
    """Every ten-word window of the seeds -> the name of the first seed containing it."""
    index: dict[tuple[str, ...], str] = {}
    for path in seed_files:
        words = [w for w, _ in words_with_lines(path.read_text(encoding="utf-8", errors="replace"))]
        for _, window in windows(words):
            index.setdefault(window, path.name)
    return index


def project_files(root: Path = REPO_ROOT, scanned: Iterable[str] = SCANNED) -> Iterator[Path]:
    for name in scanned:
        top = root / name
        if top.is_file():
            yield top
            continue
        for directory, subdirs, files in os.walk(top):
            subdirs[:] = sorted(d for d in subdirs if d not in SKIPPED_DIRS)
            for file in sorted(files):
                path = Path(directory) / file
                if path.suffix in TEXT_SUFFIXES and file not in SKIPPED_FILES:
                    yield path


def scan(files: Iterable[Path], index: dict[tuple[str, ...], str]) -> list[Hit]:
    """One hit per copied passage (overlapping windows of the same passage are reported once)."""
    hits: list[Hit] = []
    for path in files:
        tokens = words_with_lines(path.read_text(encoding="utf-8", errors="replace"))
        words = [w for w, _ in tokens]
        covered_until = -1
        for start, window in windows(words):
            seed = index.get(window)
            if seed is not None and start > covered_until:
                hits.append(Hit(path, tokens[start][1], " ".join(window), seed))
            if seed is not None:
                covered_until = start + WINDOW - 1
    return hits


def locate_seeds(root: Path = REPO_ROOT) -> Path | None:
    """``$SEEDS_DIR``, else ``../shared/seeds`` next to the clone (where CI keeps them)."""
    candidates = [Path(os.environ["SEEDS_DIR"])] if os.environ.get("SEEDS_DIR") else []
    candidates.append(root.parent / "shared" / "seeds")
    return next((c for c in candidates if c.is_dir()), None)


def seed_files(directory: Path) -> list[Path]:
    return sorted([*directory.glob("*.md"), *directory.glob("*.txt")])


def main(argv: list[str]) -> int:
    seeds = locate_seeds()
    if seeds is None:
        print("no seed documents found: set SEEDS_DIR", file=sys.stderr)
        return 2
    index = seed_index(seed_files(seeds))
    files = [Path(a) for a in argv] if argv else list(project_files())
    hits = scan(files, index)
    for hit in hits:
        print(f"{hit.path}:{hit.line}: copied from {hit.seed}: {hit.words!r}")
    print(f"{len(hits)} copied passage(s) in {len(files)} files")
    return 1 if hits else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
