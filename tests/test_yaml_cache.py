"""The parsed-YAML cache (conformance.yamlcache): a hit only for the same bytes, never a stale value."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance import yamlcache, yamlio
from conformance.yamlio import YamlFileError, read_yaml_file


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(yamlcache.ENV, str(tmp_path / "cache"))
    return tmp_path / "cache" / "yaml"


def entries(cache: Path) -> list[Path]:
    return sorted(p for p in cache.iterdir() if not p.name.startswith(".")) if cache.is_dir() else []


def test_a_second_read_is_served_from_the_cache(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "a.yaml"
    path.write_text("title: first\nitems: [1, 2.5, true, null]\n", encoding="utf-8")
    assert read_yaml_file(path) == {"title": "first", "items": [1, 2.5, True, None]}
    assert len(entries(cache)) == 1
    monkeypatch.setattr(yamlio, "load_yaml", lambda text: pytest.fail("parsed again"))
    assert read_yaml_file(path) == {"title": "first", "items": [1, 2.5, True, None]}


def test_a_changed_file_is_parsed_again(cache: Path, tmp_path: Path) -> None:
    path = tmp_path / "a.yaml"
    path.write_text("title: first\n", encoding="utf-8")
    assert read_yaml_file(path) == {"title": "first"}
    path.write_text("title: second\n", encoding="utf-8")
    assert read_yaml_file(path) == {"title": "second"}
    assert len(entries(cache)) == 2


def test_a_changed_loader_misses(cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "a.yaml"
    path.write_text("title: first\n", encoding="utf-8")
    read_yaml_file(path)
    monkeypatch.setattr(yamlcache, "_loader_identity", lambda: b"another loader")
    assert yamlcache.lookup(path.read_bytes()) == (False, None)


def test_each_hit_is_a_fresh_value(cache: Path, tmp_path: Path) -> None:
    path = tmp_path / "a.yaml"
    path.write_text("items: [1]\n", encoding="utf-8")
    read_yaml_file(path)
    first = read_yaml_file(path)
    first["items"].append(2)
    assert read_yaml_file(path) == {"items": [1]}


def test_a_refused_file_is_refused_every_time(cache: Path, tmp_path: Path) -> None:
    path = tmp_path / "dup.yaml"
    path.write_text("a: 1\na: 2\n", encoding="utf-8")
    for _ in range(2):
        with pytest.raises(YamlFileError, match="duplicate key"):
            read_yaml_file(path)
    assert entries(cache) == []


@pytest.mark.parametrize("text", ["when: 2026-12-01\n", "1: numeric key\n", "blob: !!binary aGk=\n"])
def test_values_json_cannot_spell_are_not_stored(cache: Path, tmp_path: Path, text: str) -> None:
    path = tmp_path / "odd.yaml"
    path.write_text(text, encoding="utf-8")
    first = read_yaml_file(path)
    assert entries(cache) == []
    assert read_yaml_file(path) == first


def test_a_corrupt_entry_is_a_miss(cache: Path, tmp_path: Path) -> None:
    path = tmp_path / "a.yaml"
    path.write_text("title: first\n", encoding="utf-8")
    read_yaml_file(path)
    (entry,) = entries(cache)
    entry.write_bytes(b'{"title": "tru')
    assert read_yaml_file(path) == {"title": "first"}


def test_off_stores_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(yamlcache.ENV, "off")
    assert yamlcache.cache_dir() is None
    path = tmp_path / "a.yaml"
    path.write_text("title: first\n", encoding="utf-8")
    assert read_yaml_file(path) == {"title": "first"}
    assert list(tmp_path.iterdir()) == [path]


def test_an_unwritable_folder_only_means_no_caching(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    monkeypatch.setenv(yamlcache.ENV, str(blocker))  # a file where the folder should be
    path = tmp_path / "a.yaml"
    path.write_text("title: first\n", encoding="utf-8")
    assert read_yaml_file(path) == {"title": "first"}
    assert read_yaml_file(path) == {"title": "first"}
