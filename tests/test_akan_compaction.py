"""Compaction decisions (reference.akan.compaction) and the estimate they run on (reference.akan.wire)."""

from __future__ import annotations

from reference.akan import compaction, digest
from reference.akan.policies import DEFAULT_POLICIES
from reference.akan.wire import estimate_tokens, json_text, on_wire


def test_estimate_is_posted_json_characters_over_four_rounded_up() -> None:
    # akan.compaction.estimate.four-chars-per-token
    messages = [{"role": "user", "content": "x" * 10}]
    assert json_text(messages) == '[{"role":"user","content":"xxxxxxxxxx"}]'
    assert estimate_tokens(messages) == 10  # 40 characters
    assert estimate_tokens([{"role": "user", "content": "x" * 11}]) == 11  # 41 characters, rounded up


def test_estimate_counts_characters_as_a_browser_does() -> None:
    # one emoji is two UTF-16 code units, as String.length reports it
    assert estimate_tokens([{"role": "user", "content": "\U0001F600" * 2}]) == 9  # 34 code units


def test_local_messages_are_not_posted() -> None:
    # akan.local.withheld-from-wire
    transcript = [{"role": "user", "content": "a"}, {"role": "local", "content": "b"}]
    assert on_wire(transcript) == [{"role": "user", "content": "a"}]


def test_threshold_is_strictly_past_and_zero_disables() -> None:
    # akan.compaction.threshold.past, akan.compaction.disabled-at-zero
    assert not compaction.should_compact(100, 100, None)
    assert compaction.should_compact(101, 100, None)
    assert not compaction.should_compact(10**9, 0, None)


def test_default_threshold_is_24000() -> None:
    # akan.compaction.threshold.default
    assert DEFAULT_POLICIES.default_at_tokens == 24_000
    assert compaction.DEFAULT_AT_TOKENS == 24_000


def test_an_unhelpful_summary_holds_compaction_for_one_threshold() -> None:
    # akan.compaction.no-shrink.held
    held = compaction.hold_after(before=150, after=160)
    assert held == 160
    assert not compaction.should_compact(260, 100, held)
    assert compaction.should_compact(261, 100, held)
    assert compaction.hold_after(before=150, after=40) is None


def test_digest_is_bounded_and_keeps_the_newest_lines() -> None:
    # akan.compaction.summarizer.bounded-digest
    messages = [{"role": "tool", "tool_call_id": str(i), "content": f"{i}:" + "y" * 5000} for i in range(200)]
    text = digest.digest(messages)
    assert len(text) <= digest.DIGEST_MAX_CHARS
    assert text.startswith("[") and "earlier messages left out" in text
    assert "199:" in text and "\n0:" not in text


def test_digest_names_attachments_without_their_content() -> None:
    message = {
        "role": "user", "content": "see file",
        "attachments": [{"name": "a.png", "kind": "image", "mime": "image/png", "size": 3, "data": "QUJD"}],
    }
    text = digest.digest([message])
    assert "a.png" in text and "QUJD" not in text


def test_summary_request_has_no_tools_and_no_screen() -> None:
    # akan.compaction.summarizer.no-tools-no-screen
    request = compaction.summary_request([{"role": "user", "content": "hi"}], 12_000, 800)
    assert set(request) == {"messages"}
