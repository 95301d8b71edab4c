"""Token counts remembered between runs (reference.llmz.token_counts): kept, merged, never stale."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reference import sealed_cache
from reference.llmz import token_counts, tokens, vocabulary


def test_counts_survive_the_process_and_merge_with_what_another_wrote(tmp_path: Path) -> None:
    path = tmp_path / "counts.json"
    first = token_counts.CountStore(path)
    first.put(first.digest("hello"), 1)
    first.save()
    other = token_counts.CountStore(path)
    other.put(other.digest("world"), 1)
    concurrent = json.dumps({first.digest("elsewhere"): 3}).encode()
    sealed_cache.write(tmp_path, path.name, concurrent)  # a concurrent run saved meanwhile
    other.save()
    again = token_counts.CountStore(path)
    assert again.get(again.digest("world")) == 1
    assert again.get(again.digest("elsewhere")) == 3
    assert again.get(again.digest("never counted")) is None


def test_a_corrupt_or_foreign_file_is_an_empty_store(tmp_path: Path) -> None:
    path = tmp_path / "counts.json"
    for text in ("not json", "[1, 2]", json.dumps({"k": "seven", "b": True})):
        sealed_cache.write(tmp_path, path.name, text.encode())
        assert token_counts.CountStore(path).get("k") is None
        assert token_counts.CountStore(path).get("b") is None


def test_the_store_follows_the_cache_setting(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(vocabulary.CACHE_ENV, "off")
    assert token_counts.store().path is None
    monkeypatch.setenv(vocabulary.CACHE_ENV, str(tmp_path))
    kept = token_counts.store().path
    assert kept is not None and kept.parent == tmp_path / "tiktoken"
    key = vocabulary.cache_key(vocabulary.ENCODING_NAME)
    assert key is not None and key in kept.name, "another tokenizer's counts are never found"


def test_a_remembered_count_is_the_tokenizers_count(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(vocabulary.CACHE_ENV, str(tmp_path))
    text = "count me once, then remember me: ünïcödé and 12345"
    expected = len(vocabulary.encoding().encode(text, disallowed_special=()))
    tokens.count_text.cache_clear()
    assert tokens.count_text(text) == expected
    remembered = token_counts.store()
    assert remembered.get(remembered.digest(text)) == expected
    remembered.save()
    assert remembered.path is not None
    saved = sealed_cache.read(remembered.path.parent, remembered.path.name, token_counts.MAX_FILE_BYTES)
    assert saved is not None and json.loads(saved)[remembered.digest(text)] == expected


def test_a_count_file_this_cache_did_not_seal_is_ignored(tmp_path: Path) -> None:
    """A planted count would change a budget verdict (issue 23): only sealed files are read."""
    path = tmp_path / "counts.json"
    store = token_counts.CountStore(path)
    path.write_text(json.dumps({store.digest("hello"): 999}))
    assert token_counts.CountStore(path).get(store.digest("hello")) is None
