"""The pure parts of spec drift on small made-up documents (no seed needed)."""

from __future__ import annotations

from conformance.drift.align import align
from conformance.drift.document import parse, sentences
from conformance.drift.fingerprint import fingerprint
from conformance.drift.impact import RuleRef, impacts
from conformance.drift.radius import Index, radius
from conformance.drift.report import version_of

OLD = """# Guide

## Alpha

First fact holds. Second fact holds too.

| key | meaning |
| --- | ------- |
| a   | one     |

## Beta

Beta says one thing. Beta says another.
"""


def _rule(rule_id: str, section: str, *texts: str) -> RuleRef:
    return RuleRef(rule_id, "spec/x.yaml", "s", section, tuple(fingerprint(t) for t in texts), "1")


def test_sentences_never_split_inside_code_or_before_a_lower_case_word() -> None:
    assert sentences("Call `a.b(). C` now. e.g. this stays. Next one!") == [
        "Call `a.b(). C` now. e.g. this stays.",
        "Next one!",
    ]


def test_a_fingerprint_ignores_wrapping_emphasis_and_padding_but_not_words() -> None:
    assert fingerprint("The `Session`  owns\nits queue.") == fingerprint("the session owns its **queue**")
    assert fingerprint("The session owns its queue.") != fingerprint("The session owns no queue.")
    assert len(fingerprint("x")) == 8


def test_a_renamed_section_pairs_by_content_and_keeps_its_rules_passages() -> None:
    new = OLD.replace("## Beta", "## Gamma")
    alignment = align(parse(OLD), parse(new))
    assert [(p.kind, p.old and p.old.title, p.new and p.new.title) for p in alignment.sections][-1] == (
        "renamed", "Beta", "Gamma",
    )  # fmt: skip
    found = impacts([_rule("r.beta", "Beta", "Beta says one thing.")], alignment)
    assert [(i.passage, i.section) for i in found] == [("unchanged", "renamed")]


def test_only_the_rule_on_the_edited_sentence_is_reported() -> None:
    new = OLD.replace("Second fact holds too.", "Second fact holds twice.")
    rules = [
        _rule("r.first", "Alpha", "First fact holds."),
        _rule("r.second", "Alpha", "Second fact holds too."),
    ]
    found = impacts(rules, align(parse(OLD), parse(new)))
    assert [(i.rule.id, i.passage) for i in found] == [("r.second", "changed")]


def test_moving_a_sentence_within_its_section_is_no_change() -> None:
    new = OLD.replace("Beta says one thing. Beta says another.", "Beta says another. Beta says one thing.")
    assert all(not p.changes for p in align(parse(OLD), parse(new)).sections)


def test_a_rule_on_added_text_is_new_and_on_removed_text_removed() -> None:
    new = OLD.replace("Beta says another.", "Beta says another. Beta adds a rule.")
    rule = _rule("r.added", "Beta", "Beta adds a rule.")
    assert [i.passage for i in impacts([rule], align(parse(OLD), parse(new)))] == ["new"]
    assert [i.passage for i in impacts([rule], align(parse(new), parse(OLD)))] == ["removed"]


def test_a_rule_without_passages_falls_back_to_its_section() -> None:
    new = OLD.replace("| a   | one     |", "| a   | two     |")
    found = impacts([RuleRef("r.table", "spec/x.yaml", "s", "Alpha", (), "1")], align(parse(OLD), parse(new)))
    assert [i.passage for i in found] == ["section-changed"]


def test_the_blast_radius_follows_scenarios_to_their_goldens_and_variants() -> None:
    index = Index(
        scenarios={"s/a/one": ("r.x",), "s/a/two": ("r.y",)},
        goldens=frozenset({"s/a/one.json"}),
        mutants={"m": ("r.x",)},
        permitted={"p": ("r.x#open_question",), "q": ("protocol:order",)},
    )
    reach = radius("r.x", index)
    assert (reach.scenarios, reach.goldens, reach.mutants, reach.permitted) == (
        ("s/a/one",), ("fixtures/golden/s/a/one.json",), ("m",), ("p",),
    )  # fmt: skip


def test_the_version_comes_from_the_document_file_name() -> None:
    assert version_of("llmz-1.0.2-DOCS.md") == "1.0.2"
    assert version_of("falai-4.0.0-alpha.10-docs.md") == "4.0.0-alpha.10"
    assert version_of("akan-in-page-agent-guideline.md") is None
