"""Slash-command policy (reference.akan.commands) and error folding (reference.akan.explain)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from reference.akan.commands import BUILTINS, Command, CommandTable, fill, split_args
from reference.akan.explain import explained

TABLE = CommandTable()
builtin, menu, parse = TABLE.builtin, TABLE.menu, TABLE.parse


def test_the_documented_example_keeps_the_sentence_as_one_argument() -> None:
    # akan.slash.positional-whitespace-args-with-quotes
    assert parse('/reviewTask t1 "look at the totals"') == Command("reviewTask", ("t1", "look at the totals"))


def test_unquoted_words_are_separate_arguments_and_runs_of_space_count_once() -> None:
    assert split_args("t1   look\tat  the totals ") == ("t1", "look", "at", "the", "totals")


def test_quotes_glue_to_neighbouring_text_and_an_empty_pair_is_an_argument() -> None:
    assert split_args('a"b c"d ""') == ("ab cd", "")
    assert split_args('"unclosed quote runs on') == ("unclosed quote runs on",)


def test_a_line_without_a_leading_slash_is_not_a_command() -> None:
    assert parse("hello /new") is None
    assert parse("/new") == Command("new", ())


def test_six_builtins_and_clear_is_new() -> None:
    # akan.slash.six-builtins
    assert BUILTINS == ("new", "retry", "compact", "copy", "help", "tools")
    assert builtin("clear") == "new"
    assert builtin("standup") is None


def test_menu_lists_builtins_first_and_drops_prompts_they_shadow() -> None:
    # akan.slash.builtins-listed-before-prompts, akan.slash.builtin-wins-collision
    listed = menu(["standup", "copy", "clear", "standup"])
    assert listed == ["/new", "/retry", "/compact", "/copy", "/help", "/tools", "/standup"]


def test_fill_puts_arguments_in_parameter_order_and_leaves_missing_ones_empty() -> None:
    assert fill("{a}-{b}-{c}", ["a", "b", "c"], ["1", "2"]) == "1-2-"
    assert fill("{a} {other}", ["a"], ["{a}"]) == "{a} {other}"


WORDS = st.text(st.characters(blacklist_characters='"', blacklist_categories=("Cs",)), max_size=12)


@given(args=st.lists(WORDS, max_size=6))
def test_quoting_every_argument_gives_the_arguments_back(args: list[str]) -> None:
    line = " ".join(f'"{arg}"' for arg in args)
    assert split_args(line) == tuple(args)


@given(words=st.lists(st.text(st.characters(blacklist_characters='"'), min_size=1).filter(
    lambda w: not any(c.isspace() for c in w)), max_size=6))
def test_without_quotes_arguments_are_exactly_str_split(words: list[str]) -> None:
    line = " ".join(words)
    assert split_args(line) == tuple(line.split())


def test_a_failed_turn_is_folded_into_text_and_loses_the_field() -> None:
    # akan.transcript.error-folded-into-text
    folded = explained({"role": "assistant", "content": "", "error": "HTTP 503: overloaded"})
    assert folded["content"].endswith("HTTP 503: overloaded]")
    assert "error" not in folded
    kept_text = explained({"role": "assistant", "content": "partial", "error": "timeout"})
    assert kept_text["content"].startswith("partial\n\n") and "timeout" in kept_text["content"]
    plain = {"role": "assistant", "content": "ok"}
    assert explained(plain) is plain
