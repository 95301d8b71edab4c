"""Reading YAML safely, strictly and fast: the only way the harness reads a YAML file.

libyaml's C loader is used when present (ten times faster), else PyYAML's pure-Python one; both get the
same strict constructor, because every file the harness reads (scenarios, catalogue files, baselines) is
written by hand or by a tool and may be hostile or simply wrong. What plain ``safe_load`` lets through,
and this loader refuses, each with the file, line and column:

* **duplicate keys**: ``safe_load`` keeps the last one, so a second ``expect:`` block silently replaces a
  failing first one and the scenario passes;
* **alias bombs**: anchors are shared, not copied, so a few lines can stand for billions of values that
  explode later (when the scenario is sent as JSON). The document's expanded size (values plus the
  characters of every scalar, counting each alias in full) is bounded by ``MAX_EXPANDED``, its nesting by
  ``MAX_DEPTH``, and an alias that contains itself is refused;
* **NaN and infinities** (``.nan``, ``.inf``): JSON cannot spell them, so they could not reach an
  implementation honestly;
* **files that are too large or not UTF-8**: refused before parsing, naming the byte offset.

``read_yaml_file`` remembers what it parsed (``conformance.yamlcache``, keyed by the file's bytes and this
loader's code), so a file is parsed once, not on every run.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from conformance import yamlcache

MAX_FILE_BYTES = 8 * 1024 * 1024
"""The largest YAML file read (the largest shipped scenario is under 100 KB)."""
MAX_EXPANDED = 32 * 1024 * 1024
"""Expanded size bound: one per value plus the length of every scalar, each alias counted in full."""
MAX_DEPTH = 256
"""How deeply collections may nest (shipped files stay under 20)."""

_BASE: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_MERGE_TAG = "tag:yaml.org,2002:merge"


class YamlFileError(ValueError):
    """A YAML file that cannot be read; the message names the file and where the problem is."""


def _expanded_size(root: Node) -> int:
    """Size of the document with every alias expanded, computed without expanding anything.

    Each distinct node is measured once (memoised by identity), so the walk is linear in the file even
    when the expansion is astronomically large. Raises ``ConstructorError`` for a node that contains
    itself (a recursive alias) or nesting deeper than ``MAX_DEPTH``.
    """
    sizes: dict[int, int] = {}
    on_path: set[int] = set()
    # An explicit stack of (node, depth, children-visited) keeps deep documents off Python's own stack.
    stack: list[tuple[Node, int, bool]] = [(root, 1, False)]
    while stack:
        node, depth, expanded = stack.pop()
        key = id(node)
        if expanded:
            on_path.discard(key)
            sizes[key] = 1 + sum(sizes[id(child)] for child in _children(node))
            continue
        if key in sizes:
            continue
        if key in on_path:
            raise yaml.constructor.ConstructorError(
                None, None, "an alias refers to a value that contains it (a recursive alias)", node.start_mark
            )
        if depth > MAX_DEPTH:
            raise yaml.constructor.ConstructorError(
                None, None, f"values nest deeper than {MAX_DEPTH} levels", node.start_mark
            )
        if isinstance(node, ScalarNode):
            sizes[key] = 1 + len(str(node.value))
            continue
        on_path.add(key)
        stack.append((node, depth, True))
        stack.extend((child, depth + 1, False) for child in _children(node) if id(child) not in sizes)
    return sizes[id(root)]


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [part for pair in node.value for part in pair]
    return []


class StrictLoader(_BASE):  # type: ignore[valid-type,misc]
    """SafeLoader that refuses duplicate keys, alias bombs, deep nesting and non-finite numbers."""

    def construct_document(self, node: Node) -> Any:
        size = _expanded_size(node)
        if size > MAX_EXPANDED:
            raise yaml.constructor.ConstructorError(
                None,
                None,
                f"the document expands to {size:,} values and characters once aliases are followed "
                f"(at most {MAX_EXPANDED:,}); an alias bomb?",
                node.start_mark,
            )
        return super().construct_document(node)

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Any, Any]:
        if isinstance(node, MappingNode):
            seen: dict[Any, Node] = {}
            for key_node, _ in node.value:
                if key_node.tag == _MERGE_TAG:
                    continue  # ``<<`` merges are explicit overrides, not duplicates
                key = self.construct_object(key_node, deep=True)
                try:
                    first = seen.setdefault(key, key_node)
                except TypeError:
                    continue  # an unhashable key: the base constructor reports it
                if first is not key_node:
                    raise yaml.constructor.ConstructorError(
                        "while constructing a mapping",
                        node.start_mark,
                        f"found duplicate key {key!r} (first at line {first.start_mark.line + 1})",
                        key_node.start_mark,
                    )
        return super().construct_mapping(node, deep=deep)  # type: ignore[no-any-return]

    def construct_finite_float(self, node: ScalarNode) -> float:
        value = float(super().construct_yaml_float(node))
        if not math.isfinite(value):
            raise yaml.constructor.ConstructorError(
                None,
                None,
                f"{node.value!r} is not a finite number; JSON cannot carry NaN or infinities "
                "(quote it to mean the text)",
                node.start_mark,
            )
        return value


StrictLoader.add_constructor("tag:yaml.org,2002:float", StrictLoader.construct_finite_float)


def load_yaml(text: str) -> Any:
    """Like ``yaml.safe_load``, strictly (see the module docstring); raises ``yaml.YAMLError`` with the
    line and column of the problem."""
    try:
        return yaml.load(text, Loader=StrictLoader)
    except RecursionError as exc:
        raise yaml.YAMLError(f"values nest too deeply to read (over {MAX_DEPTH} levels)") from exc


def decode_utf8(data: bytes, path: Path) -> str:
    """The text of a file that must be UTF-8; ``YamlFileError`` names the first bad byte and its line."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise YamlFileError(
            f"{path}: not UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start} (line {line}); "
            "save the file as UTF-8"
        ) from None


def read_yaml_file(path: Path, max_bytes: int = MAX_FILE_BYTES) -> Any:
    """Read, check and parse one YAML file; every problem is a ``YamlFileError`` naming ``path``."""
    return parse_yaml_bytes(read_file_bytes(path, max_bytes), path)


def read_file_bytes(path: Path, max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a file ``read_yaml_file`` would read (``YamlFileError`` when unreadable or too large);
    for callers that look at the bytes before parsing them (``parse_yaml_bytes``)."""
    try:
        with path.open("rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise YamlFileError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    if len(data) > max_bytes:
        raise YamlFileError(f"{path}: larger than {max_bytes:,} bytes; refusing to read it")
    return data


def parse_yaml_bytes(data: bytes, path: Path) -> Any:
    """The document in ``data`` (the bytes of ``path``, which errors name), parsed as ``read_yaml_file``
    parses it: from the cache when these bytes were parsed before."""
    found, document = yamlcache.lookup(data)
    if found:
        return document
    text = decode_utf8(data, path)
    try:
        document = load_yaml(text)
    except yaml.YAMLError as exc:
        raise YamlFileError(f"{path}: cannot read YAML: {exc}") from exc
    yamlcache.store(data, document)
    return document
