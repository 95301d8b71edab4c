"""Proposing a rule's passages: the units of its section that its own words point at most strongly.

Used once to anchor the catalogue and again whenever a rule is written or its section reworded; a person
checks every proposal (the tool only ranks). Scoring is TF-IDF over words, computed across the section's
units, with the rule's title, statement and parameter values as the query: identifiers such as
``requireChatResponse`` are rare and so weigh most, which is what ties a rule to its sentence.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from typing import Any

from conformance.drift.document import Section, Unit
from conformance.drift.fingerprint import words as _words

SECOND_PASSAGE = 0.75
"""A second unit joins the first when it scores at least this share of the best score."""


def words(text: str) -> list[str]:
    """Words with a plural or third-person ``s`` dropped, so "counts" meets "count"."""
    return [w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in _words(text)]


def query_words(title: str, statement: str, params: dict[str, Any]) -> list[str]:
    return words(" ".join([title, statement, *(_flatten(params))]))


def _flatten(value: Any) -> Iterable[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from _flatten(item)
    elif isinstance(value, list):
        for item in value:
            yield from _flatten(item)
    else:
        yield str(value)


def ranked(query: list[str], section: Section) -> list[tuple[float, Unit]]:
    """The section's units by cosine similarity of TF-IDF vectors, best first."""
    documents = [Counter(words(u.text)) for u in section.units]
    df = Counter(w for d in documents for w in d)
    n = len(documents)

    def vector(counts: Counter[str]) -> dict[str, float]:
        return {w: c * math.log((n + 1) / (df.get(w, 0) + 1)) for w, c in counts.items()}

    q = vector(Counter(query))
    q_norm = math.sqrt(sum(v * v for v in q.values())) or 1.0
    scores = []
    for unit, counts in zip(section.units, documents, strict=True):
        d = vector(counts)
        d_norm = math.sqrt(sum(v * v for v in d.values())) or 1.0
        scores.append((sum(q.get(w, 0.0) * v for w, v in d.items()) / (q_norm * d_norm), unit))
    return sorted(scores, key=lambda pair: -pair[0])


def propose(query: list[str], section: Section) -> list[Unit]:
    """One unit, or two when the runner-up scores nearly as well (a rule resting on two sentences)."""
    ranking = [pair for pair in ranked(query, section) if pair[0] > 0]
    if not ranking:
        return []
    best = ranking[0][0]
    return [unit for score, unit in ranking[:2] if score >= best * SECOND_PASSAGE]
