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
