"""Generated mutants (``nox -s mutation``): the sample, the probe, the scores and the triage file.

The full run takes about a quarter of an hour and stays out of the default tests; here Cosmic Ray runs
two sampled mutants of one small module end to end (about 15 s), and the pieces are checked alone.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest
from conftest import every_scenario, the_catalogue

import variants
from conformance.mutation_tool import exclude, record, score, session, triage
from conformance.mutation_tool.__main__ import main
from conformance.mutation_tool.plan import TARGETS, target, wanted_operator
from conformance.mutation_tool.probe import cold_caches, invariants_hold, ordered, probe
from conformance.paths import REPO_ROOT
from conformance.runner import Selection, select
from conformance.yamlcache import ENV as CACHE_ENV


def test_two_sampled_mutants_run_end_to_end_in_a_copy_of_the_tree(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    item = target("falai/timers")
    original = (REPO_ROOT / item.path).read_text(encoding="utf-8")
    session.run([item], REPO_ROOT, tmp_path, per_module=2, seed=7, log=lambda _: None)
    mutants = score.read_db(tmp_path / "falai" / "timers.sqlite")
    assert len(mutants) == 2
    assert all(m.outcome in ("expectation", "crash", "survived") for m in mutants), mutants
    assert all(" -> " in m.mutation and m.module == "falai/timers" for m in mutants)
    assert any(m.outcome == "expectation" for m in mutants), "a sampled timer mutant should fail a case"
    assert (REPO_ROOT / item.path).read_text(encoding="utf-8") == original, "the clone was mutated"
    assert (tmp_path / "tree-falai" / item.path).read_text(encoding="utf-8") == original, "not restored"
    (tmp_path / "empty.yaml").write_text("entries: []\n", encoding="utf-8")
    empty = str(tmp_path / "empty.yaml")
    record_root = tmp_path / "record"
    code = main(
        ["run", "--module", "falai/timers", "--out", str(tmp_path), "--per-module", "2", "--triage", empty,
         "--record", str(record_root)]
    )  # fmt: skip
    written = json.loads((tmp_path / "score.json").read_text(encoding="utf-8"))
    kept = json.loads((record_root / "falai" / "timers.json").read_text(encoding="utf-8"))
    assert [(m["location"], m["outcome"]) for m in kept["mutants"]] == [
        (m.location, m.outcome) for m in score.read_db(tmp_path / "falai" / "timers.sqlite")
    ], "the record keeps each sampled mutant and how it ended"
    assert not (record_root / "figures.json").exists(), "a one-module run does not write the figures"
    rescored = main(["score", "--module", "falai/timers", "--out", str(tmp_path / "again"),
                     "--triage", empty, "--record", str(record_root)])  # fmt: skip
    again = json.loads((tmp_path / "again" / "score.json").read_text(encoding="utf-8"))
    assert again["modules"] == written["modules"] and rescored == code, "the record gives the same figures"
    assert written["modules"]["falai/timers"]["mutants"] == 2
    population = written["modules"]["falai/timers"]["population"]
    assert population["excluded"] == {"decorator": 1}, "SilenceKey's @dataclass(frozen=True) is set aside"
    assert population["wanted"] > 2
    excluded = exclude.excluded_in(REPO_ROOT / item.path)
    sampled_lines = {int(m.location.split(":")[0]) for m in mutants}
    assert not sampled_lines & set(excluded), "an excluded line was sampled"
    assert set(written["systems"]) == {"falai"}
    assert code == (1 if written["untriaged"] else 0)
    gap = {**GOOD, "module": "falai/timers", "verdict": "gap", "rule": "falai.silence.x", "status": "open"}
    (tmp_path / "triage.yaml").write_text(json.dumps({"entries": [gap]}), encoding="utf-8")
    code = main(
        [
            "score",
            "--module",
            "falai/timers",
            "--out",
            str(tmp_path),
            "--triage",
            str(tmp_path / "triage.yaml"),
            "--record",
            str(record_root),
        ]
    )
    assert code == (1 if written["untriaged"] else 0), "an open gap is a finding, listed, not an error"
    assert "open gap: falai/timers 12:4 core/NumberReplacer (falai.silence.x)" in capsys.readouterr().out
    assert json.loads((tmp_path / "score.json").read_text(encoding="utf-8"))["open_gaps"] == 1


def test_the_sample_is_seeded_uniform_and_keeps_to_wanted_operators() -> None:
    jobs = [(f"j{i}", op, i) for i, op in enumerate(["core/NumberReplacer", "core/RemoveDecorator"] * 20)]
    first = session.choose(jobs, 5, random.Random("7:x"))
    assert first == session.choose(list(reversed(jobs)), 5, random.Random("7:x")), "depends on order"
    assert len(first) == 5
    assert all(int(job[1:]) % 2 == 0 for job in first), "an unwanted operator was sampled"
    assert session.choose(jobs, 100, random.Random(1)) == {f"j{i}" for i in range(0, 40, 2)}
    assert first != session.choose(jobs, 5, random.Random("8:x"))


def test_the_operator_filter() -> None:
    assert wanted_operator("core/ReplaceComparisonOperator_Lt_LtE")
    assert wanted_operator("core/NumberReplacer")
    assert not wanted_operator("core/ReplaceComparisonOperator_Eq_Is")
    assert not wanted_operator("core/ReplaceBinaryOperator_Add_BitXor")
    assert not wanted_operator("core/VariableReplacer")


def test_every_target_exists_and_names_a_scenario_area() -> None:
    for item in TARGETS:
        assert (REPO_ROOT / item.path).is_file(), item.path
        for area in item.first:
            assert (REPO_ROOT / "fixtures" / "scenarios" / item.system / area).is_dir(), (item.name, area)
    with pytest.raises(KeyError, match="known: falai/routing"):
        target("falai/nothing")


def test_the_probe_passes_the_reference_and_orders_areas_first_and_last() -> None:
    code, line = probe("falai", ["silence"])
    assert (code, line.split()[1]) == (0, "survived")
    items = ordered(select(selection=Selection(systems={"llmz"})), ["memory"], ["hostile"])
    areas = [i.id.split("/")[1] for i in items]
    assert areas[0] == "memory" and areas[-1] == "hostile"
    assert areas.index("basics") < areas.index("hostile")


def test_the_probe_turns_the_caches_off_so_a_mutant_computes_what_a_warm_cache_would_answer(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """With remembered counts and cuts, a mutant of ``preview.kept_chars`` survived every scenario although it
    crashes on any text it has to measure (llmz/preview 119:11)."""
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    cold_caches()
    assert os.environ[CACHE_ENV] == "off"


@pytest.mark.parametrize(
    ("worker", "test", "output", "outcome"),
    [
        ("normal", "killed", "mutation-probe: expectation falai/x/y falai.a.b\n", "expectation"),
        ("normal", "killed", "mutation-probe: crash falai/x/y the adapter raised\n", "crash"),
        ("normal", "killed", "mutation-probe: invariant tests/test_memory_size.py\n", "invariant"),
        ("normal", "killed", "timeout", "crash"),
        ("normal", "killed", "Traceback (most recent call last): ...", "crash"),
        ("normal", "survived", "mutation-probe: survived 56 cases\n", "survived"),
        ("exception", None, "boom", "incompetent"),
        ("normal", "incompetent", "", "incompetent"),
    ],
)
def test_a_result_is_classified_by_how_the_mutant_died(
    worker: str, test: str | None, output: str, outcome: str
) -> None:
    assert score.classify(worker, test, output)[0] == outcome


def test_scores_count_crash_kills_apart_and_leave_incompetents_out() -> None:
    def mutant(outcome: str, module: str = "falai/routing", system: str = "falai") -> score.Mutant:
        return score.Mutant(module, system, "core/NumberReplacer", 0, "1:0", "1 -> 2", outcome, "")

    mutants = [mutant("expectation"), mutant("crash"), mutant("survived"), mutant("incompetent")]
    mutants.append(mutant("expectation", "akan/cut", "akan"))
    summary = score.summarise(mutants, [], {})
    assert summary["modules"]["falai/routing"] == {
        "mutants": 4, "killed": 2, "killed_by_expectation": 1, "killed_by_crash_only": 1,
        "killed_by_invariant": 0, "survived": 1, "incompetent": 1, "score": 0.6667,
        "expectation_score": 0.3333, "survivors_equivalent": 0, "survivors_open_in_documents": 0,
        "rule_score": 0.6667,
        "adjusted_score": 0.6667, "open_share": 0.0,
    }  # fmt: skip
    assert summary["overall"]["score"] == 0.75
    survivor = mutants[2]
    triaged = triage.Entry(
        module=survivor.module, operator=survivor.operator, location=survivor.location,
        mutation=survivor.mutation, verdict="equivalent", reason="a reason of ten characters or more",
    )  # fmt: skip
    rescored = score.summarise(mutants, [triaged], {})
    assert rescored["modules"]["falai/routing"]["rule_score"] == 1.0, "an equivalent survivor still counted"
    assert rescored["modules"]["falai/routing"]["score"] == 0.6667, "the raw score must not move"
    assert rescored["untriaged"] == 0
    assert summary["untriaged"] == 1
    assert "overall" in score.table(summary)
    assert score.mutation_text("--- a\n+++ b\n@@ -1 +1 @@\n-    x < 1\n+    x <= 1\n") == "x < 1 -> x <= 1"


def test_the_core_modules_get_their_own_figure_beside_the_full_set() -> None:
    def mutant(outcome: str, module: str, system: str) -> score.Mutant:
        return score.Mutant(module, system, "core/NumberReplacer", 0, "1:0", "1 -> 2", outcome, "")

    assert target("falai/routing").core and not target("falai/engine").core
    mutants = [
        mutant("expectation", "falai/routing", "falai"),
        mutant("survived", "falai/engine", "falai"),
        mutant("expectation", "falai/engine", "falai"),
        mutant("survived", "akan/relay", "akan"),
    ]
    summary = score.summarise(mutants, [], {})
    assert summary["core"]["modules"] == ["falai/routing"]
    assert summary["core"]["systems"]["falai"]["score"] == 1.0
    assert "akan" not in summary["core"]["systems"], "a system with no core module run has no core figure"
    assert summary["core"]["overall"]["mutants"] == 1
    assert summary["systems"]["falai"]["score"] == 0.6667
    assert summary["overall"]["score"] == 0.5
    printed = score.table(summary)
    assert "* falai/routing" in printed and "  falai/engine" in printed
    assert "core overall" in printed and "all overall" in printed
    assert session.budget(target("falai/routing"), 20, 10) == 20
    assert session.budget(target("falai/engine"), 20, 10) == 10
    assert session.budget(target("falai/engine"), 20, None) == 20


# -- the triage file ---------------------------------------------------------------------------------------

GOOD = {
    "module": "falai/routing",
    "operator": "core/NumberReplacer",
    "location": "12:4",
    "mutation": "15 -> 16",
    "verdict": "equivalent",
    "reason": "a reason of ten characters or more",
}


@pytest.mark.parametrize(
    ("change", "complaint"),
    [
        ({"verdict": "maybe"}, "verdict"),
        ({"verdict": "gap"}, "names its rule"),
        ({"verdict": "gap", "rule": "falai.routing.x"}, "status: open"),
        ({"verdict": "gap", "rule": "falai.routing.x", "status": "closed"}, "closed_by"),
        ({"verdict": "open-in-the-documents", "rule": "falai.routing.x"}, "open question"),
        ({"status": "open"}, "gap entries only"),
        ({"location": "line 12"}, "location"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_a_bad_triage_entry_is_an_error_naming_the_file_and_field(
    tmp_path: Path, change: dict[str, str], complaint: str
) -> None:
    path = tmp_path / "triage.yaml"
    path.write_text(json.dumps({"entries": [{**GOOD, **change}]}), encoding="utf-8")
    with pytest.raises(triage.TriageError, match=complaint) as info:
        triage.load(path)
    assert str(path) in str(info.value)


def test_a_duplicate_triage_entry_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "triage.yaml"
    path.write_text(json.dumps({"entries": [GOOD, GOOD]}), encoding="utf-8")
    with pytest.raises(triage.TriageError, match="a second entry"):
        triage.load(path)


def test_the_committed_triage_names_real_rules_scenarios_and_mutants() -> None:
    entries = triage.load()
    rules = the_catalogue().rules
    scenarios = {item.id for item in every_scenario()}
    mutants = variants.all_mutants()
    for e in entries:
        where = f"{e.module} {e.location} {e.operator}"
        assert target(e.module).name == e.module
        if e.rule is not None:
            assert e.rule in rules, f"{where}: no rule {e.rule}"
        if e.verdict == "open-in-the-documents":
            assert rules[e.rule].rule.open_question, f"{where}: {e.rule} has no open_question"  # type: ignore[index]
        if e.verdict == "gap" and e.status == "closed":
            assert e.closed_by in scenarios, f"{where}: no scenario {e.closed_by}"
            assert e.mutant in mutants, f"{where}: no mutant {e.mutant}"
            assert e.rule in mutants[e.mutant].rules, f"{where}: {e.mutant} does not name {e.rule}"  # type: ignore[index]


# -- excluded lines and moved entries ----------------------------------------------------------------------


def test_decorator_lines_are_excluded_and_any_no_mutate_marker_is_an_error() -> None:
    source = (
        "from dataclasses import dataclass\n"
        "@dataclass(\n"
        "    frozen=True)\n"
        "class A:\n"
        "    x: int = 0\n"
        "def f(v: str) -> int:\n"
        '    if v == "a":\n'
        "        return 1\n"
        "    return 2\n"
    )
    lines = exclude.excluded_lines(source)
    assert lines == {2: "decorator", 3: "decorator"}
    assert exclude.exclusion_of(lines, (3, 11), (3, 15)) == "decorator"
    assert exclude.exclusion_of(lines, (5, 13), (5, 14)) is None, "a dataclass field's default is a rule's"
    for marker in ("# pragma: no mutate", "# pragma: no mutate: fast-path", "#pragma:no mutate: type-guard"):
        with pytest.raises(exclude.ExclusionError, match=r"m\.py:1: .* no line is excluded by a marker"):
            exclude.excluded_lines(f"x = 1  {marker}\n", "m.py")


def test_no_measured_module_hides_a_line_from_the_sample() -> None:
    for item in TARGETS:
        exclude.excluded_in(REPO_ROOT / item.path)  # raises on any no-mutate marker (Cosmic Ray skips it)


def test_an_entry_whose_line_moved_still_matches_by_its_mutation_unless_ambiguous() -> None:
    entry = triage.Entry(**GOOD)
    verdicts = triage.Verdicts([entry], {"falai/routing": ["x = 1", "15"]})
    assert verdicts.get(("falai/routing", "core/NumberReplacer", "12:4", "15 -> 16")) is entry
    assert verdicts.moved == []
    assert verdicts.get(("falai/routing", "core/NumberReplacer", "14:4", "15 -> 16")) is entry
    assert verdicts.moved == [(entry, "14:4")]
    assert verdicts.get(("falai/routing", "core/NumberReplacer", "14:4", "15 -> 17")) is None
    twin = triage.Entry(**{**GOOD, "location": "20:4"})
    moved = ("falai/routing", "core/NumberReplacer", "14:4", "15 -> 16")
    sources = {"falai/routing": ["15"]}
    assert triage.Verdicts([entry, twin], sources).get(moved) is None, "two entries with that text: ambiguous"
    assert triage.Verdicts([entry], {"falai/routing": ["15", "15"]}).get(moved) is None, "line not unique"
    assert triage.Verdicts([entry]).get(moved) is None, "no source, no match by text"


# -- the invariant tests a survivor must still pass ------------------------------------------------------


def test_the_probe_kills_a_survivor_by_its_invariants_and_passes_the_reference(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    item = target("llmz/memory")
    assert item.invariants == ("tests/test_memory_size.py",)
    session.copy_tree(REPO_ROOT, tmp_path, item.invariants)
    assert (tmp_path / "tests" / "test_memory_size.py").is_file() and (tmp_path / "pytest.ini").is_file()
    assert "--invariants tests/test_memory_size.py" in session.test_command(item)
    monkeypatch.chdir(tmp_path)
    assert invariants_hold(list(item.invariants)), "the unmutated reference fails its own invariant"
    module = tmp_path / item.path
    source = module.read_text(encoding="utf-8")
    mutated = source.replace("return 5 if value is False else 4", "return 6 if value is False else 4")
    assert mutated != source, "the line this test mutates moved"
    module.write_text(mutated, encoding="utf-8")
    assert not invariants_hold(list(item.invariants)), "a fast path counting false as 6 bytes passed"


# -- the committed record ------------------------------------------------------------------------------


def test_the_committed_record_recomputes_the_committed_figures_and_answers_for_the_triage(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """What ``nox -s mutation`` checks on a fresh clone: the figures, the triage against the sample (every
    survivor has an entry, every entry matches a sampled mutant) and no module stale or unrecorded."""
    code = main(["score", "--check", "--out", str(tmp_path)])
    printed = capsys.readouterr().out
    assert code == 0, printed[-3000:]


def test_a_record_problem_fails_the_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    item = target("falai/timers")
    mutants = [
        score.Mutant(item.name, "falai", "core/NumberReplacer", 0, "12:4", "15 -> 16", "survived", ""),
        score.Mutant(item.name, "falai", "core/NumberReplacer", 1, "13:4", "1 -> 2", "expectation", ""),
    ]
    meta = {"tool": "cosmic-ray x", "seed": 7, "budget": 20}  # the plan's sample: the triage answers for it
    built = record.build(item, mutants, {"wanted": 9, "excluded": {}}, meta, record.source_digest(item))
    root = tmp_path / "record"
    record.write(built, record.path_for(item, root))
    orphan = {**GOOD, "module": item.name, "location": "40:1"}
    (tmp_path / "t.yaml").write_text(json.dumps({"entries": [orphan]}), encoding="utf-8")
    args = ["score", "--module", item.name, "--record", str(root), "--out", str(tmp_path), "--triage"]
    assert main([*args, str(tmp_path / "t.yaml")]) == 1
    printed = capsys.readouterr().out
    assert "untriaged: falai/timers 12:4" in printed
    assert "triage entry matches no sampled mutant: falai/timers 40:1" in printed
    fitting = {**GOOD, "module": item.name}
    (tmp_path / "t.yaml").write_text(json.dumps({"entries": [fitting]}), encoding="utf-8")
    assert main([*args, str(tmp_path / "t.yaml")]) == 0, capsys.readouterr().out
    record.write(built.model_copy(update={"source_sha256": "0" * 64}), record.path_for(item, root))
    assert main([*args, str(tmp_path / "t.yaml"), "--check"]) == 1
    assert "stale record: falai/timers" in capsys.readouterr().out
    record.path_for(item, root).write_text('{"module": "falai/timers"}', encoding="utf-8")
    assert main([*args, str(tmp_path / "t.yaml")]) == 2
    assert "timers.json" in capsys.readouterr().err


def test_tidy_moves_an_entry_whose_line_moved_and_drops_one_no_sample_holds(tmp_path: Path) -> None:
    here = triage.Entry(**GOOD)
    moved = triage.Entry(**{**GOOD, "location": "30:1", "mutation": "3 -> 4"})
    gone = triage.Entry(**{**GOOD, "location": "40:1", "mutation": "5 -> 6"})
    other = triage.Entry(**{**GOOD, "module": "falai/timers"})
    operator = "core/NumberReplacer"
    sampled = {"falai/routing": [(operator, "12:4", "15 -> 16"), (operator, "31:1", "3 -> 4")]}
    kept, changes = triage.tidy([here, moved, gone, other], sampled)
    assert [(e.module, e.location) for e in kept] == [
        ("falai/routing", "12:4"), ("falai/routing", "31:1"), ("falai/timers", "12:4")
    ]  # fmt: skip
    assert len(changes) == 2 and "dropped" in changes[1] and "40:1" in changes[1]
    triage.write(kept, tmp_path / "t.yaml")
    assert triage.load(tmp_path / "t.yaml") == kept, "the written file reads back as written"
