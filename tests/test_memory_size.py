"""The fast ways ``reference/llmz/memory.py`` measures memory give the answer its definition gives.

``size_of`` counts a long ASCII text instead of encoding it, adds up a container from its entries, and
knows the size of ``true``, ``false``, ``null`` and an integer without encoding them; ``_text_size``
remembers long texts. The definition they shortcut is one line: the byte length of the compact UTF-8 JSON
of the tagged value. The documents leave the memory encoding open (llmz.memory.limit-scope), so no
scenario can pin these counts; this file is where they are pinned, against the definition.

The mutation run uses this file as the module's invariant check (``plan.Target.invariants``): a mutant of
a shortcut that survives every llmz scenario but gives another count fails here, and is counted as killed
by an invariant, apart from the kills by a scenario. So it must stay self-contained (no ``conftest``
imports: the mutation tree holds only this file) and deterministic (``derandomize``).
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from reference.llmz.memory import LONG_TEXT, Memory, size_of


def _defined(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


SETTINGS = settings(derandomize=True, max_examples=150, database=None, deadline=None)

#: Short pieces that stress the counting: quotes, backslashes, control characters, non-ASCII.
_PIECE = st.text(
    alphabet=st.sampled_from(['a', ' ', '"', "\\", "\x01", "\t", "\x7f", "é", "€", "\U0001f600", "/"]),
    max_size=12,
)
#: Texts past ``LONG_TEXT``, where the counted and remembered path is taken: a piece repeated.
_LONG = st.builds(lambda piece, times: (piece or "x") * times, _PIECE, st.integers(LONG_TEXT // 4, LONG_TEXT))
_SCALAR = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(-(10**30), 10**30),
    st.floats(allow_nan=False, allow_infinity=False), _PIECE, st.text(max_size=30), _LONG,
)  # fmt: skip
_VALUE = st.recursive(
    _SCALAR,
    lambda inner: st.one_of(
        st.lists(inner, max_size=6),
        st.dictionaries(st.text(max_size=6), inner, max_size=6),
        # Wider than the width at which containers stop being taken apart.
        st.lists(st.integers(0, 9), min_size=60, max_size=70),
    ),
    max_leaves=40,
)


@SETTINGS
@given(_VALUE)
def test_the_size_of_any_value_is_the_length_of_its_compact_json(value: Any) -> None:
    assert size_of(value) == _defined(value)
    assert size_of(value) == _defined(value), "a remembered text must give the same count again"


@SETTINGS
@given(_LONG)
def test_a_long_text_counts_as_its_encoding_however_it_is_escaped(text: str) -> None:
    assert size_of(text) == _defined(text)
    assert size_of([text, {"k": text}]) == _defined([text, {"k": text}])


@given(st.lists(_VALUE, max_size=4))
@SETTINGS
def test_nested_deeper_than_the_walk_still_counts_exactly(values: list[Any]) -> None:
    deep: Any = values
    for _ in range(6):
        deep = {"d": deep, "n": [False, True, None, -0, 10**20]}
    assert size_of(deep) == _defined(deep)


def test_memory_counts_its_variables_and_objects_by_the_same_definition() -> None:
    text = 'q"' * LONG_TEXT
    memory = Memory(variables={"a": text, "b": [False, None, 12]})
    assert memory.size() == sum(_defined(v) for v in memory.variables.values()) + _defined(memory.objects)
