"""Spec drift (issue 25): the llmz 1.0.1 -> 1.0.2 release as the real case, its reverse, and an edited copy.

The seed documents are never copied into the repository: the tests read them where
``conformance.originality`` finds them ($SEEDS_DIR, else ../shared/seeds) and skip with the reason when
they are absent; the edited copy is built here, at test time, from the seed file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.catalogue.load import load_catalogue
from conformance.cli import main
from conformance.drift.align import align
from conformance.drift.command import load_index, rule_refs
from conformance.drift.document import Document, parse
from conformance.drift.impact import RuleImpact, impacts, uncited
from conformance.drift.radius import radius
from conformance.originality import locate_seeds

DOCS = "llmz-1.0.2-DOCS.md"
SEEDS = locate_seeds()
needs_seeds = pytest.mark.skipif(
    SEEDS is None or not (SEEDS / DOCS).is_file(),
    reason="the llmz seed documents are not here: set SEEDS_DIR or keep them in ../shared/seeds",
)

#: Hand-checked (2026-12-06, reading both versions): the rules the 1.0.1 -> 1.0.2 report names whose passage
#: did not change in substance *for that rule*. Each rests on a sentence 1.0.2 extended with a clause about
#: something else, so the unit changed but what the rule says of it did not.
NOT_SUBSTANTIVE = {
    # "Inspection": the sentence gained "preserving whitespace, code and literal
    # tags" (llmz.inspection.standalone-text-verbatim, since 1.0.2); "shown directly" is as in 1.0.1.
    "llmz.inspection.standalone-text-direct",
    # "Streaming and delivery": the sentence gained "but does not count as delivered speech" (the chat
    # guard's llmz.chat-guard.unhandled-text-not-speech); "kept in history" is as in 1.0.1.
    "llmz.streaming.text-kept-without-handler",
}


def _read(name: str) -> Document:
    assert SEEDS is not None
    return parse((SEEDS / name).read_text(encoding="utf-8"))


def _impacts(old: Document, new: Document) -> dict[str, RuleImpact]:
    rules = rule_refs(load_catalogue(schema_check=False), DOCS)
    return {i.rule.id: i for i in impacts(rules, align(old, new))}


def _since(version: str) -> set[str]:
    catalogue = load_catalogue(schema_check=False)
    return {i for i, e in catalogue.rules.items() if e.rule.system == "llmz" and e.rule.since == version}


@needs_seeds
def test_every_rule_since_1_0_2_is_reported_new_or_changed() -> None:
    reported = _impacts(_read("llmz-1.0.1-DOCS.md"), _read(DOCS))
    since = _since("1.0.2")
    assert len(since) == 38
    missed = sorted(r for r in since if r not in reported or reported[r].passage not in ("new", "changed"))
    assert not missed, f"rules new in 1.0.2 the drift report does not name as new or changed: {missed}"


@needs_seeds
def test_at_most_a_tenth_of_the_reported_rules_rest_on_an_unchanged_passage() -> None:
    reported = _impacts(_read("llmz-1.0.1-DOCS.md"), _read(DOCS))
    unexplained = sorted(set(reported) - _since("1.0.2") - NOT_SUBSTANTIVE)
    assert not unexplained, f"reported, neither new in 1.0.2 nor hand-checked: {unexplained}"
    assert set(reported) >= NOT_SUBSTANTIVE, "the hand-checked list names a rule no longer reported"
    assert len(NOT_SUBSTANTIVE) <= len(reported) / 10, (len(NOT_SUBSTANTIVE), len(reported))


@needs_seeds
def test_the_reverse_release_reports_the_same_rules_mirrored() -> None:
    old, new = _read("llmz-1.0.1-DOCS.md"), _read(DOCS)
    forward, backward = _impacts(old, new), _impacts(new, old)
    assert set(backward) == set(forward)
    mirror = {"new": "removed", "changed": "changed"}
    assert {r: mirror[i.passage] for r, i in forward.items()} == {r: i.passage for r, i in backward.items()}


@needs_seeds
def test_catalogue_since_agrees_with_drift_for_every_llmz_rule() -> None:
    """New in 1.0.2 by the drift report <-> ``since: "1.0.2"``; untouched <-> ``since: "1.0.1"``; a rule on
    an edited sentence may be either (the sentence may keep the old fact and add a new one). Rules citing
    the error catalogue (which has one version) are all 1.0.1."""
    reported = _impacts(_read("llmz-1.0.1-DOCS.md"), _read(DOCS))
    catalogue = load_catalogue(schema_check=False)
    wrong = []
    for rule_id, entry in catalogue.rules.items():
        if entry.rule.system != "llmz":
            continue
        status = reported[rule_id].passage if rule_id in reported else "unchanged"
        expected = {"new": {"1.0.2"}, "unchanged": {"1.0.1"}, "changed": {"1.0.1", "1.0.2"}}[status]
        if entry.rule.source.document != DOCS:
            expected = {"1.0.1"}
        if entry.rule.since not in expected:
            wrong.append(f"{rule_id}: since {entry.rule.since}, drift says {status}")
    assert not wrong, "\n".join(wrong)


def _edited_copy(text: str) -> tuple[str, dict[str, str]]:
    """The 1.0.2 guide with one sentence edited, the Hooks section renamed and a sentence added to Runtime
    configuration; returns the text and the fingerprints/titles the test expects to see reported."""
    document = parse(text)
    persistence = document.section("Persistence and recovery")
    assert persistence is not None
    edited = next(u for u in persistence.units if u.fingerprint == "f023a623")  # custom exits, workers
    assert text.count(edited.text) == 1
    text = text.replace(edited.text, edited.text[:-1] + ", except where a host opts in.")
    assert text.count("\n## Hooks\n") == 1
    text = text.replace("\n## Hooks\n", "\n## Execution hooks\n")
    configuration = document.section("Runtime configuration")
    assert configuration is not None
    last = configuration.units[-1]
    text = text.replace(last.text, last.text + " Unknown options must be rejected with a named error.")
    return text, {"edited": edited.fingerprint}


@needs_seeds
def test_an_edited_copy_reports_exactly_its_three_edits_with_rules_scenarios_and_goldens(
    tmp_path: Path,
) -> None:
    assert SEEDS is not None
    text, _ = _edited_copy((SEEDS / DOCS).read_text(encoding="utf-8"))
    new = tmp_path / "edited" / DOCS
    new.parent.mkdir()
    new.write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    assert main(["spec", "drift", str(SEEDS / DOCS), str(new), "--out", str(out)]) == 0
    report = json.loads((out / "drift.json").read_text(encoding="utf-8"))

    hooks = {
        i for i, e in load_catalogue(schema_check=False).rules.items() if e.rule.source.section == "Hooks"
    }
    rules = {r["id"]: r for r in report["rules"]}
    assert {r for r, v in rules.items() if v["passage"] == "changed"} == {
        "llmz.chat-guard.custom-exits-unaffected",
        "llmz.chat-guard.worker-unaffected",
    }
    assert {r for r, v in rules.items() if v["section"] == "renamed"} == hooks
    assert all(
        rules[r]["passage"] == "unchanged" and rules[r]["section_new"] == "Execution hooks" for r in hooks
    )
    assert set(rules) == hooks | {
        "llmz.chat-guard.custom-exits-unaffected",
        "llmz.chat-guard.worker-unaffected",
    }
    assert [(c["section"], c["kind"]) for c in report["candidates"]] == [("Runtime configuration", "added")]
    assert {(s["kind"], s["old"], s["new"]) for s in report["sections"]} == {
        ("same", "Persistence and recovery", "Persistence and recovery"),
        ("renamed", "Hooks", "Execution hooks"),
        ("same", "Runtime configuration", "Runtime configuration"),
    }
    index = load_index()
    for rule_id, entry in rules.items():
        reach = radius(rule_id, index)
        assert entry["scenarios"] == list(reach.scenarios), rule_id
        assert entry["goldens"] == [f"fixtures/golden/{s}.json" for s in reach.scenarios], rule_id
    worker = rules["llmz.chat-guard.worker-unaffected"]
    assert any(line.startswith("+") and "opts in" in line for line in worker["diff"])
    assert worker["scenarios"] and worker["mutants"]
    assert sum(len(rules[r]["scenarios"]) for r in hooks) >= len(hooks) - 1  # one Hooks rule is excluded
    markdown = (out / "drift.md").read_text(encoding="utf-8")
    assert "## Changed normative passages no rule cites" in markdown and "Execution hooks" in markdown


@needs_seeds
def test_every_catalogue_anchor_resolves_in_its_document(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["spec", "anchors", "--seeds", str(SEEDS)]) == 0, capsys.readouterr().out


@needs_seeds
def test_a_stale_anchor_is_reported_with_its_file_and_field(tmp_path: Path) -> None:
    from conformance.drift.anchors import unresolved
    from conformance.drift.impact import RuleRef

    stale = RuleRef("llmz.x.y", "spec/llmz/x.yaml", "s", "Hooks", ("00000000",), "1.0.1")
    gone = RuleRef("llmz.x.z", "spec/llmz/x.yaml", "s", "No such heading", (), "1.0.1")
    problems = unresolved([stale, gone], _read(DOCS), DOCS)
    assert len(problems) == 2
    assert "field source.passages: 00000000" in problems[0]
    assert "field source.section: 'No such heading'" in problems[1]


@needs_seeds
def test_uncited_normative_passages_of_1_0_2_are_listed() -> None:
    old, new = _read("llmz-1.0.1-DOCS.md"), _read(DOCS)
    rules = rule_refs(load_catalogue(schema_check=False), DOCS)
    found = uncited(align(old, new), rules)
    # Both in "Tools and exits": the not-durable sentence moved into its own paragraph (edited), and the
    # authorization-barrier sentence is new; the catalogue states neither as a rule of its own.
    assert [(c.section, c.change.kind) for c in found] == [
        ("Tools and exits", "changed"),
        ("Tools and exits", "added"),
    ]


def test_a_document_the_catalogue_does_not_cite_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = tmp_path / "a.md", tmp_path / "b.md"
    a.write_text("# T\n\nOne.\n", encoding="utf-8")
    b.write_text("# T\n\nTwo.\n", encoding="utf-8")
    assert main(["spec", "drift", str(a), str(b), "--out", str(tmp_path / "out")]) == 2
    assert "--document" in capsys.readouterr().err


@needs_seeds
def test_the_anchor_command_fails_on_a_catalogue_whose_passage_was_edited_away(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from conformance.paths import SPEC_ROOT

    spec = tmp_path / "spec"
    (spec / "llmz").mkdir(parents=True)
    text = (SPEC_ROOT / "llmz" / "hooks.yaml").read_text(encoding="utf-8")
    anchored = load_catalogue(schema_check=False).rules["llmz.hooks.on-exit"].rule.source.passages[0]
    (spec / "llmz" / "hooks.yaml").write_text(text.replace(anchored, "0badf00d"), encoding="utf-8")
    assert main(["spec", "anchors", "--seeds", str(SEEDS), "--spec", str(spec)]) == 1
    out = capsys.readouterr().out
    assert "llmz.hooks.on-exit: field source.passages: 0badf00d not found" in out
    assert "llmz.hooks.names: field source.passages: 0badf00d" in out  # the hook table's rows, that one too
    assert "14 rules' anchors checked, 2 do not resolve" in out
