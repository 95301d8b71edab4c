"""Token counts remembered between runs, so a second run of the suite tokenizes (almost) nothing.

Why. A token count is a pure function of the tokenizer and the text, and the same few hundred texts
(system prompts with their tool declarations, scripted messages) are counted in every run of the llmz
scenarios. Counting them again was about a twentieth of a whole run's CPU, and building the tokenizer
(``reference.llmz.vocabulary``) is a further fixed cost that a run whose counts are all known never pays.

How. One JSON file per tokenizer maps a digest of each text (BLAKE2b, 128 bits, of its UTF-8 bytes) to its
count. The file is read on the first lookup; counts made during the run are merged into what is on disk
at exit (re-read first, so concurrent runs lose nothing but their own new entries in a race) and written
under a temporary name, then renamed into place. The file name carries ``vocabulary.cache_key``, which
changes with the vocabulary files, the constructor, tiktoken's version and Python's, so a count made by
another tokenizer is never found. An unreadable or corrupt file is an empty one; an unwritable folder
only means no remembering. ``CONFORMANCE_CACHE_DIR=off`` turns it off with the other caches.

Nothing here can let one case see another's state: the only thing kept is text -> count.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
from pathlib import Path
from typing import Final

from reference import sealed_cache
from reference.llmz import vocabulary

MAX_ENTRIES: Final = 200_000
"""Beyond this many remembered counts the oldest are dropped when the file is written (about 10 MB)."""
MAX_FILE_BYTES: Final = 32 * 1024 * 1024
"""A count file larger than this is neither written nor read (MAX_ENTRIES of them take about a third)."""


class CountStore:
    """Counts by text digest, loaded lazily from ``path`` and merged back into it by ``save``."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.counts: dict[str, int] | None = None
        self.added: dict[str, int] = {}

    @staticmethod
    def digest(text: str) -> str:
        return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()

    def _read(self) -> dict[str, int]:
        """The counts on disk, when the file is this cache's own sealed entry (``reference.sealed_cache``):
        a planted count would change a budget verdict, so any other file is an empty store."""
        if self.path is None:
            return {}
        payload = sealed_cache.read(self.path.parent, self.path.name, MAX_FILE_BYTES)
        try:
            loaded = json.loads(payload) if payload is not None else {}
        except (ValueError, RecursionError):
            return {}
        if not isinstance(loaded, dict):
            return {}
        return {k: v for k, v in loaded.items() if isinstance(v, int) and not isinstance(v, bool)}

    def get(self, key: str) -> int | None:
        if self.counts is None:
            self.counts = self._read()
        return self.counts.get(key)

    def put(self, key: str, count: int) -> None:
        if self.counts is None:
            self.counts = self._read()
        self.counts[key] = count
        self.added[key] = count

    def save(self) -> None:
        """Merge this process's new counts into the file (never raises)."""
        if self.path is None or not self.added:
            return
        merged = {**self._read(), **self.added}
        if len(merged) > MAX_ENTRIES:
            merged = dict(list(merged.items())[-MAX_ENTRIES:])
        text = json.dumps(merged, separators=(",", ":")).encode("ascii")
        if len(text) <= MAX_FILE_BYTES:
            sealed_cache.write(self.path.parent, self.path.name, text)
        self.added = {}


def _store_path(name: str) -> Path | None:
    folder, key = vocabulary.cache_dir(), vocabulary.cache_key(name)
    if folder is None or key is None:
        return None
    return folder / f"counts-{key}.json"


_stores: dict[tuple[str | None, ...], CountStore] = {}


def store(name: str = vocabulary.ENCODING_NAME) -> CountStore:
    """The count store of tokenizer ``name`` for this process and the cache settings in force now (each
    saved at exit): a change of ``CONFORMANCE_CACHE_DIR`` (a test turning caching off) takes effect."""
    environ = os.environ
    setting = (name, environ.get(vocabulary.CACHE_ENV), environ.get("XDG_CACHE_HOME"), environ.get("HOME"))
    if setting not in _stores:
        _stores[setting] = CountStore(_store_path(name))
    return _stores[setting]


@atexit.register
def save_all() -> None:
    for counts in _stores.values():
        counts.save()
