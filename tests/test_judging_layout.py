"""Layout-tolerant matching: where the documents fix content but not layout, every layout passes.

Each pair of tests shows the tolerance both ways: the other layout of the same content passes, and
different content in either layout still fails (so the tolerance never turns a wrong value into a pass).
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.judging.layout import align, duration_ms, instant_ms, json_container, parts_text
from conformance.judging.matchers import check
from conformance.scenario.common import Expectation

PARTS = [
    {"type": "text", "text": "Hello, "},
    {"type": "image", "data": "iVBO"},
    {"type": "text", "text": "Ana"},
]


def verdict(value: Any, **matcher: Any) -> str | None:
    return check({"final": {"value": value}}, Expectation(rule="akan.x", path="final.value", **matcher))


@pytest.mark.parametrize("value", ["Hello, Ana", PARTS])
def test_a_message_text_matches_as_one_string_or_as_parts(value: Any) -> None:
    assert verdict(value, equals="Hello, Ana") is None
    assert verdict({"content": value}, subset={"content": "Hello, Ana"}) is None
    assert verdict(value, contains="Ana") is None
    assert verdict(value, regex="^Hello, Ana$") is None


@pytest.mark.parametrize("value", ["Hello, Bob", [{"type": "text", "text": "Hello, Bob"}]])
def test_other_text_fails_in_either_layout(value: Any) -> None:
    assert verdict(value, equals="Hello, Ana") is not None
    assert verdict(value, contains="Ana") is not None
    assert verdict(value, regex="Ana") is not None


def test_parts_text_skips_parts_that_carry_no_text() -> None:
    assert parts_text(PARTS) == "Hello, Ana"
    assert parts_text([{"type": "image", "data": "x"}]) is None
    assert parts_text(["a", "b"]) is None  # a list of strings is a list, not content parts
    assert parts_text([]) is None


@pytest.mark.parametrize(
    ("written", "ms"),
    [
        ("24h", 86_400_000),
        ("1d", 86_400_000),
        ("86400s", 86_400_000),
        ("1440m", 86_400_000),
        ("86400000ms", 86_400_000),
        ("2w", 1_209_600_000),
    ],
)
def test_durations_are_read_in_every_unit(written: str, ms: int) -> None:
    assert duration_ms(written) == ms


def test_a_duration_matches_in_another_unit_and_fails_when_it_is_another_length() -> None:
    assert verdict("86400s", equals="24h") is None
    assert verdict({"wait": "2d"}, subset={"wait": "48h"}) is None
    assert verdict("86401s", equals="24h") is not None
    assert verdict(["24h"], contains="1d") is None
    assert verdict(86_400_000, equals="24h") is not None  # a bare number has no unit to read


def test_non_durations_are_compared_as_text() -> None:
    assert duration_ms("24 hours") is None
    assert align("5m", "five minutes") == ("5m", "five minutes")


RAW = '{"status": "shipped", "rows": 3}'
PARSED = {"status": "shipped", "rows": 3}


@pytest.mark.parametrize("content", [RAW, PARSED])
def test_tool_content_matches_as_raw_json_text_or_parsed(content: Any) -> None:
    assert verdict(content, regex=r'"status"\s*:\s*"shipped"') is None
    assert verdict(content, regex="^shipped$") is None
    assert verdict(content, subset={"status": "shipped"}) is None
    assert verdict(content, equals=PARSED) is None
    assert verdict(content, equals=RAW) is None


@pytest.mark.parametrize("content", ['{"status": "pending"}', {"status": "pending"}])
def test_other_tool_content_fails_in_either_layout(content: Any) -> None:
    assert verdict(content, regex=r'"status"\s*:\s*"shipped"') is not None
    assert verdict(content, subset={"status": "shipped"}) is not None


@pytest.mark.parametrize("content", [RAW, PARSED])
def test_a_never_shows_regex_must_hold_in_every_layout(content: Any) -> None:
    assert verdict(content, regex=r'^(?![\s\S]*"status"\s*:\s*"shipped")') is not None
    assert verdict(content, regex=r"\A(?![\s\S]*shipped)") is not None
    assert verdict(content, regex=r"^(?![\s\S]*pending)") is None


def test_json_container_reads_only_objects_and_arrays() -> None:
    assert json_container(RAW) == PARSED
    assert json_container("[1, 2]") == [1, 2]
    assert json_container("3") is None
    assert json_container("{not json") is None


@pytest.mark.parametrize(
    "found",
    ["2026-01-05T13:30:00Z", "2026-01-05T13:30:00.000Z", "2026-01-05T14:30:00+01:00", 1_767_619_800_000],
)
def test_an_instant_matches_as_iso_text_or_epoch_milliseconds(found: Any) -> None:
    assert verdict(found, equals="2026-01-05T13:30:00Z") is None
    assert verdict({"at": found}, subset={"at": "2026-01-05T13:30:00.000Z"}) is None


@pytest.mark.parametrize("found", ["2026-01-05T13:30:01Z", 1_767_619_800_001, "2026-01-05 13:30"])
def test_another_instant_fails_in_every_layout(found: Any) -> None:
    assert verdict(found, equals="2026-01-05T13:30:00Z") is not None


def test_a_bare_number_is_not_an_instant_beside_another_number() -> None:
    assert instant_ms("1767619800000") is None
    assert verdict(1_767_619_800_000, equals=1_767_619_800_001) is not None
