"""The fingerprint of a passage: a short hash of its words, never a copy of them.

Words are lower-cased runs of letters and digits, so what a fingerprint survives is exactly what does not
change a passage's substance: line breaks, markdown emphasis and backticks, quotes, table padding. Eight hex
digits (32 bits) keep catalogue entries short; within one section of a few dozen units a collision is
about one in a hundred million.
"""

from __future__ import annotations

import hashlib
import re

_WORD = re.compile(r"[a-z0-9]+")
FINGERPRINT = re.compile(r"^[0-9a-f]{8}$")


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def fingerprint(text: str) -> str:
    """The first eight hex digits of SHA-256 over the passage's words joined by single spaces."""
    return hashlib.sha256(" ".join(words(text)).encode()).hexdigest()[:8]


def similarity(a: str, b: str) -> float:
    """How much two passages share, 0..1, by word sequence (difflib's ratio over their words)."""
    from difflib import SequenceMatcher

    return SequenceMatcher(None, words(a), words(b), autojunk=False).ratio()
