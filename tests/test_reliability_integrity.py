"""Reliability: nothing outside a run's own inputs can change its verdicts (issue 23, item 1).

A run's inputs are what its user named: the implementation, the scenarios, the catalogue, the baseline.
Files that merely sit where the harness looks (a cache entry, a tree beside an installed package, a link
planted in the report directory) must leave every verdict as it was, or stop the run with exit 2.
"""

from __future__ import annotations

import json
import os
import shutil
import tracemalloc
from pathlib import Path

import pytest
import yaml

from conformance import resources, yamlcache
from conformance.cli import main
from conformance.paths import SCENARIO_ROOT
from conformance.report.files import LOCK_NAME
from conformance.yamlio import read_yaml_file
from reference import sealed_cache

pytestmark = pytest.mark.reliability

SCENARIO = "falai/business-hours/closing-boundary"
REPORT_FILES = ("report.json", "junit.xml", "report.md", "report.html")


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(yamlcache.ENV, str(tmp_path / "cache"))
    return tmp_path / "cache" / "yaml"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A scenario root holding one scenario the reference passes."""
    root = tmp_path / "scenarios"
    target = root / f"{SCENARIO}.yaml"
    target.parent.mkdir(parents=True)
    shutil.copy(SCENARIO_ROOT / f"{SCENARIO}.yaml", target)
    return root


def _run(tree: Path, report_dir: Path) -> tuple[int, dict[str, str]]:
    status = main(["run", "--scenarios", str(tree), "--report-dir", str(report_dir)])
    if status == 2:
        return status, {}
    report = json.loads((report_dir / "report.json").read_text(encoding="utf-8"))
    return status, {case["id"]: case["verdict"] for case in report["scenarios"]}


def _plant(cache: Path, source: Path, document: object) -> Path:
    """What the probe did: a file under the entry's name (anyone can compute it) holding another value."""
    cache.mkdir(parents=True, exist_ok=True)
    entry = cache / yamlcache.key(source.read_bytes())
    entry.write_text(json.dumps(document), encoding="ascii")
    return entry


# -- the parsed-YAML cache -----------------------------------------------------------------------------


def test_a_planted_cache_entry_leaves_the_verdict_unchanged(cache: Path, tree: Path, tmp_path: Path) -> None:
    source = tree / f"{SCENARIO}.yaml"
    document = yaml.safe_load(source.read_text(encoding="utf-8"))
    planted = dict(document, expect=[{"rule": document["rules"][0], "path": "final", "equals": "planted"}])
    _plant(cache, source, planted)
    assert _run(tree, tmp_path / "reports") == (0, {SCENARIO: "pass"})


def test_a_planted_entry_is_rebuilt_and_then_served(cache: Path, tmp_path: Path) -> None:
    source = tmp_path / "a.yaml"
    source.write_text("title: honest\n", encoding="utf-8")
    entry = _plant(cache, source, {"title": "planted"})
    assert read_yaml_file(source) == {"title": "honest"}
    assert read_yaml_file(source) == {"title": "honest"}
    assert not entry.read_bytes().startswith(b"{"), "the planted file was replaced by a sealed entry"


def test_a_deeply_nested_planted_entry_is_a_miss_not_a_crash(cache: Path, tmp_path: Path) -> None:
    source = tmp_path / "a.yaml"
    source.write_text("title: honest\n", encoding="utf-8")
    cache.mkdir(parents=True)
    (cache / yamlcache.key(source.read_bytes())).write_text("[" * 200_000 + "]" * 200_000, encoding="ascii")
    assert read_yaml_file(source) == {"title": "honest"}


def test_a_huge_planted_entry_is_not_read(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "a.yaml"
    source.write_text("title: honest\n", encoding="utf-8")
    cache.mkdir(parents=True)
    with open(cache / yamlcache.key(source.read_bytes()), "wb") as huge:
        huge.truncate(300 * 1024 * 1024)  # sparse: 300 MB to a reader, nothing on disk
    tracemalloc.start()
    try:
        assert read_yaml_file(source) == {"title": "honest"}
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * 1024 * 1024, f"{peak:,} bytes allocated to look the file up"


def test_a_linked_entry_is_a_miss(cache: Path, tmp_path: Path) -> None:
    source = tmp_path / "a.yaml"
    source.write_text("title: honest\n", encoding="utf-8")
    read_yaml_file(source)
    name = yamlcache.key(source.read_bytes())
    elsewhere = tmp_path / "elsewhere"
    os.replace(cache / name, elsewhere)  # a genuine sealed entry, reached through a link
    os.symlink(elsewhere, cache / name)
    assert sealed_cache.read(cache, name, 1 << 20) is None


def test_a_cache_folder_others_can_write_is_not_used(cache: Path, tmp_path: Path) -> None:
    cache.mkdir(parents=True)
    cache.chmod(0o777)
    source = tmp_path / "a.yaml"
    source.write_text("title: honest\n", encoding="utf-8")
    assert read_yaml_file(source) == {"title": "honest"}
    assert list(cache.iterdir()) == []


def test_a_key_others_can_read_is_not_believed(cache: Path, tmp_path: Path) -> None:
    source = tmp_path / "a.yaml"
    source.write_text("title: honest\n", encoding="utf-8")
    read_yaml_file(source)
    (cache / sealed_cache.KEY_NAME).chmod(0o644)
    assert sealed_cache.read(cache, yamlcache.key(source.read_bytes()), 1 << 20) is None


# -- an installed package beside a planted clone layout ------------------------------------------------


def _site_packages(tmp_path: Path, *, shipped_data: bool) -> Path:
    """A site-packages folder holding the package (with or without its data copy) and, beside it, the
    layout a clone has: spec/ids.txt, fixtures/scenarios/ and a pyproject.toml naming the distribution."""
    site = tmp_path / "site-packages"
    package = site / "conformance"
    (package / ("_data/spec" if shipped_data else "")).mkdir(parents=True)
    (site / "spec").mkdir()
    (site / "spec" / "ids.txt").write_text("falai.planted.rule\n", encoding="utf-8")
    (site / "fixtures" / "scenarios" / "falai" / "x").mkdir(parents=True)
    (site / "pyproject.toml").write_text(f'[project]\nname = "{resources.DISTRIBUTION}"\n', encoding="utf-8")
    return package


def test_an_installed_package_never_takes_site_packages_for_a_clone(tmp_path: Path) -> None:
    assert resources.clone_root(_site_packages(tmp_path, shipped_data=True)) is None


def test_a_clone_is_still_recognised(tmp_path: Path) -> None:
    package = _site_packages(tmp_path, shipped_data=False)
    assert resources.clone_root(package) == package.parent


# -- links planted in the report directory --------------------------------------------------------------


def test_a_planted_lock_link_is_refused_and_its_target_untouched(tree: Path, tmp_path: Path) -> None:
    target = tmp_path / "precious.txt"
    target.write_text("keep me\n", encoding="utf-8")
    report_dir = tmp_path / "reports"
    report_dir.mkdir()
    os.symlink(target, report_dir / LOCK_NAME)
    assert _run(tree, report_dir)[0] == 2
    assert target.read_text(encoding="utf-8") == "keep me\n"


def test_a_dangling_lock_link_creates_nothing(tree: Path, tmp_path: Path) -> None:
    report_dir = tmp_path / "reports"
    report_dir.mkdir()
    os.symlink(tmp_path / "created-through-the-link", report_dir / LOCK_NAME)
    assert _run(tree, report_dir)[0] == 2
    assert not (tmp_path / "created-through-the-link").exists()


def test_a_report_directory_that_is_a_link_is_refused(
    tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    real = tmp_path / "real"
    real.mkdir()
    os.symlink(real, tmp_path / "reports")
    assert _run(tree, tmp_path / "reports")[0] == 2
    assert "symbolic link" in capsys.readouterr().err
    assert list(real.iterdir()) == []


@pytest.mark.parametrize("name", REPORT_FILES)
def test_a_link_where_a_report_file_belongs_is_refused(tree: Path, tmp_path: Path, name: str) -> None:
    target = tmp_path / "precious.txt"
    target.write_text("keep me\n", encoding="utf-8")
    report_dir = tmp_path / "reports"
    report_dir.mkdir()
    os.symlink(target, report_dir / name)
    assert _run(tree, report_dir)[0] == 2
    assert target.read_text(encoding="utf-8") == "keep me\n"
