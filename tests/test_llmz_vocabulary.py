"""reference.llmz.vocabulary: the tokenizer built from cached constructor arguments is tiktoken's own."""

from __future__ import annotations

from pathlib import Path

import pytest
import tiktoken

from reference.llmz import vocabulary

TEXTS = ["", "hello world", "<|endoftext|> is text", "naïve café 日本語 🙂", "x" * 5000, " \n\t ids: 12345"]


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(vocabulary.CACHE_ENV, str(tmp_path))
    return tmp_path / "tiktoken"


def entries(cache: Path) -> list[Path]:
    """The cache's entries (not its key, ``.key``)."""
    return [path for path in cache.iterdir() if not path.name.startswith(".")]


def test_cached_arguments_build_the_same_tokenizer(cache: Path) -> None:
    first = vocabulary.constructor_params()
    (entry,) = entries(cache)
    second = vocabulary.constructor_params()  # from the entry just written
    assert second == first
    built = tiktoken.Encoding(**second)
    original = tiktoken.get_encoding(vocabulary.ENCODING_NAME)
    for text in TEXTS:
        assert built.encode(text, disallowed_special=()) == original.encode(text, disallowed_special=())
    assert entry.name == vocabulary.cache_key(vocabulary.ENCODING_NAME)


def test_another_vocabulary_misses(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    vocabulary.constructor_params()
    key = vocabulary.cache_key(vocabulary.ENCODING_NAME)
    (cache / str(key)).write_bytes(b"not marshal data")  # a corrupt entry is a miss, then rewritten
    assert vocabulary.constructor_params()["name"] == vocabulary.ENCODING_NAME
    assert len(entries(cache)) == 1
    monkeypatch.setattr(vocabulary, "cache_key", lambda name: "another-key")
    vocabulary.constructor_params()
    assert sorted(p.name for p in entries(cache)) == sorted([str(key), "another-key"])


def test_the_key_covers_the_vocabulary_file() -> None:
    key = vocabulary.cache_key(vocabulary.ENCODING_NAME)
    data = Path(vocabulary.offline.__file__).parent / "data"
    assert key is not None and any(path.suffix == ".tiktoken" for path in data.iterdir())


def test_off_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(vocabulary.CACHE_ENV, "off")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert vocabulary.cache_dir() is None
    assert vocabulary.constructor_params()["name"] == vocabulary.ENCODING_NAME
    assert list(tmp_path.iterdir()) == []
