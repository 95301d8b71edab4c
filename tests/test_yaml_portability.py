"""Every YAML file the project ships means the same to every YAML parser we know of.

The harness reads YAML with libyaml's C loader when it is installed; libyaml accepts a few plain scalars
in flow collections (``{text: did it work?}``) that PyYAML's pure-Python loader, and other parsers, reject.
A scenario that only loads on one machine is a broken scenario, so each file must load with the
pure-Python loader too, to the same value.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from conformance.paths import REPO_ROOT
from conformance.yamlio import load_yaml

FILES = sorted(
    path
    for folder in ("spec", "fixtures", "conformance")
    for path in (REPO_ROOT / folder).rglob("*.y*ml")
    if "node_modules" not in path.parts
)


def test_there_are_yaml_files() -> None:
    assert len(FILES) > 100


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(Path(p).relative_to(REPO_ROOT)))
def test_pure_python_loader_reads_the_same_value(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    try:
        portable = yaml.load(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        pytest.fail(f"{path}: only libyaml accepts this file; quote the scalar it points at:\n{exc}")
    assert portable == load_yaml(text), f"{path}: the two YAML loaders read different values"


def test_a_repeated_key_is_refused_naming_both_lines() -> None:
    """A second ``open_question:`` on one rule would silently replace the first; the loader says so."""
    text = "id: r\nopen_question: detailed\nlevel: must\nopen_question: short\n"
    with pytest.raises(yaml.YAMLError, match=r"duplicate key 'open_question' \(first at line 2\)"):
        load_yaml(text)


def test_merge_keys_are_not_mistaken_for_repeats() -> None:
    assert load_yaml("base: &b {x: 1}\nuse: {<<: *b, y: 2}\n") == {"base": {"x": 1}, "use": {"x": 1, "y": 2}}
