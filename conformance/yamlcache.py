"""A cache of parsed YAML documents, so a run reads JSON instead of parsing YAML it has parsed before.

Why. Every run reads the catalogue and the scenario files; parsing them with the strict loader
(``conformance.yamlio``) was the largest single cost of a run after playing the cases. The files rarely
change between runs, and ``json.loads`` of the same document is many times faster than YAML.

Why it is never stale. An entry is found by a SHA-256 key over

* the exact bytes of the file (not its name, size or modification time), and
* the loader: the source of ``conformance/yamlio.py`` and of this module, PyYAML's version and which base
  loader (C or pure Python) is in use,

so a changed file, a changed strictness rule or another PyYAML version simply misses. Only documents that
loaded *without* error are stored (a file the loader refuses is parsed, and refused, on every run), and
only when JSON spells their value exactly (mappings with text keys, lists, text, integers, floats,
booleans, null: what every shipped file holds); anything else (a date, binary, a numeric key) is parsed
every time. Aliases are stored expanded, which is what the value means; the loader already bounds that
size. Every hit is a fresh ``json.loads``, so callers may change what they get.

Why it is never someone else's. A file that sits under an entry's name is not believed for having that
name (anyone can compute the key): entries are sealed with the folder's secret key and read back only
when the seal verifies, the file is this user's own and no larger than ``entry_bound`` allows
(``reference.sealed_cache``, issue 23). A planted, altered, oversized or linked entry is a miss and is
rebuilt; a folder other users can write is not used at all.

Where. ``$CONFORMANCE_CACHE_DIR`` if set (``off`` turns the cache off), else ``$XDG_CACHE_HOME`` or
``~/.cache``, under ``conformance/yaml``. Entries are written to a temporary name and renamed into place,
so concurrent runs (pytest-xdist) never read half an entry; an unreadable or corrupt entry is a miss and
an unwritable folder only means no caching: the cache can make a run faster, never make it fail.
"""

from __future__ import annotations

import hashlib
import json
import os
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from reference import sealed_cache

ENV = "CONFORMANCE_CACHE_DIR"
OFF = "off"
_GROWTH = 8
_SLACK = 64 * 1024


def cache_dir() -> Path | None:
    """Where entries live, or None when the cache is turned off (the environment is read on every call,
    for tests; the folder it names is worked out once per setting)."""
    environ = os.environ
    return _cache_dir(environ.get(ENV), environ.get("XDG_CACHE_HOME"), environ.get("HOME"))


@cache
def _cache_dir(chosen: str | None, xdg: str | None, home: str | None) -> Path | None:
    if chosen is not None:
        return None if chosen.strip().lower() in ("", OFF) else Path(chosen) / "yaml"
    base = xdg or str(Path.home() / ".cache")
    return Path(base) / "conformance" / "yaml"


@cache
def _loader_identity() -> bytes:
    """What else decides a parse besides the bytes: the loader's code and the library under it."""
    from conformance import yamlio

    digest = hashlib.sha256()
    for module_file in (Path(yamlio.__file__), Path(__file__)):
        digest.update(module_file.read_bytes())
    digest.update(f"|{yaml.__version__}|{yamlio._BASE.__name__}|".encode())
    return digest.digest()


def key(data: bytes) -> str:
    """The entry name of a file whose bytes are ``data``."""
    return hashlib.sha256(_loader_identity() + data).hexdigest()


def faithful(value: Any) -> bool:
    """Whether ``json.loads(json.dumps(value))`` gives back ``value`` with the same types throughout."""
    stack = [value]
    while stack:
        item = stack.pop()
        if item is None or isinstance(item, str | bool | int | float):
            continue
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict) and all(type(k) is str for k in item):
            stack.extend(item.values())
        else:
            return False
    return True


def entry_bound(data: bytes) -> int:
    """The largest entry kept for a file of ``data``'s size: a document whose JSON is many times its YAML
    (aliases expanded) is parsed every time rather than stored, and nothing larger is ever read back."""
    return _GROWTH * len(data) + _SLACK


def lookup(data: bytes) -> tuple[bool, Any]:
    """(True, document) for bytes parsed before, else (False, None). Only this cache's own sealed entries
    are believed (``reference.sealed_cache``); any other file under the entry's name is a miss."""
    folder = cache_dir()
    if folder is None:
        return False, None
    payload = sealed_cache.read(folder, key(data), entry_bound(data))
    if payload is None:
        return False, None
    try:
        return True, json.loads(payload)
    except (ValueError, RecursionError):
        return False, None


def store(data: bytes, document: Any) -> None:
    """Remember ``document`` as the parse of ``data`` when JSON spells it exactly; never raises."""
    folder = cache_dir()
    if folder is None or not faithful(document):
        return
    try:
        text = json.dumps(document, separators=(",", ":")).encode("ascii")
    except (ValueError, TypeError, RecursionError):
        return
    if len(text) <= entry_bound(data):
        sealed_cache.write(folder, key(data), text)
