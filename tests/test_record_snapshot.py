"""reference.record.snapshot: the fast copy that replaced copy.deepcopy for recorded data."""

from __future__ import annotations

import copy
from collections import OrderedDict
from typing import Any

from reference.record import Recorder, snapshot


def test_equal_and_independent_at_every_level() -> None:
    original: dict[str, Any] = {"a": [1, {"b": [2.5, None, True]}], "t": ("x", [3]), "s": "text"}
    copied = snapshot(original)
    assert copied == original
    copied["a"][1]["b"].append("changed")
    copied["t"][1].append(4)
    assert original == {"a": [1, {"b": [2.5, None, True]}], "t": ("x", [3]), "s": "text"}


def test_keeps_exact_types() -> None:
    original = {"o": OrderedDict(k=[1]), "t": (1, 2), "f": 1.0, "i": 1, "b": False}
    copied = snapshot(original)
    assert {key: type(value) for key, value in copied.items()} == {
        key: type(value) for key, value in original.items()
    }
    copied["o"]["k"].append(2)
    assert original["o"]["k"] == [1]  # other types are deep-copied whole


def test_a_structure_that_contains_itself_is_copied_as_deepcopy_does() -> None:
    loop: list[Any] = [1]
    loop.append(loop)
    copied = snapshot(loop)
    assert copied is not loop and copied[1] is copied


def test_deep_data_is_copied() -> None:
    deep: list[Any] = []
    for _ in range(300):
        deep = [deep]
    assert snapshot(deep) == deep and snapshot(deep) is not deep


def test_recorder_keeps_what_was_emitted_not_what_it_became() -> None:
    recorder = Recorder()
    live = {"items": [1]}
    recorder.emit("seen", state=live)
    live["items"].append(2)
    recorder.final = {"state": live}
    record = recorder.to_dict()
    live["items"].append(3)
    assert record["events"] == [{"type": "seen", "state": {"items": [1]}}]
    assert record["final"] == {"state": {"items": [1, 2]}}
    assert record == copy.deepcopy(record)
