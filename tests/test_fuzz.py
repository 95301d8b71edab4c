"""The differential fuzzer: silent on the reference and its permitted variants, loud on broken thresholds.

Each search is bounded (at most 60 generated cases) so the suite stays fast; the seeds are fixed, so a
search is the same every run. A finding must be a scenario the ordinary runner can load, that passes the
reference and fails the mutant it was found on.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from conformance.adapters.base import Adapter
from conformance.adapters.registry import create
from conformance.baseline import Entry
from conformance.cli import main
from conformance.fuzz import generator_for
from conformance.fuzz.akan import _fates, attachments_facts
from conformance.fuzz.engine import SearchResult, play, search
from conformance.fuzz.known import Known, load_known
from conformance.fuzz.llmz import LlmzGenerator
from conformance.fuzz.llmz_loop import EXITS, TOOL, loop_facts
from conformance.fuzz.write import Provenance, write
from conformance.runner import run_all, select
from conformance.scenario.load import LoadedScenario
from conformance.systems import SYSTEMS
from variants import all_permitted


def _search(system: str, impl: str, examples: int, seed: int) -> SearchResult:
    reference, implementation = create("reference"), create(impl)
    return search(
        generator_for(system), reference, implementation, examples=examples, seed=seed, max_findings=1
    )


@pytest.mark.parametrize("system", SYSTEMS)
def test_the_reference_agrees_with_itself(system: str) -> None:
    result = _search(system, "reference", 60, seed=3)
    assert result.examples == 60 and result.skipped == 0
    assert result.findings == []


@pytest.mark.parametrize("variant", sorted(all_permitted()))
def test_a_permitted_variant_never_disagrees(variant: str) -> None:
    system = all_permitted()[variant].system
    result = _search(system, f"reference[{variant}]", 12, seed=5)
    assert [finding.comparison.mismatches for finding in result.findings] == []


def _verdicts(root: Path, impl: str) -> list[str]:
    adapter: Adapter = create(impl)
    items = select(root)
    assert items and all(isinstance(item, LoadedScenario) for item in items)
    _, results = run_all(adapter, items)
    return [result.verdict for result in results]


@pytest.mark.parametrize(
    ("system", "mutant", "seed", "rules"),
    [
        ("falai", "falai-takeover-margin-16", 6, {"falai.routing.takeover.margin"}),
        ("falai", "falai-new-flow-min-41", 2, {"falai.routing.new-flow-min-score"}),
        (
            "akan",
            "akan-threshold-halved",
            5,
            {"akan.compaction.threshold.past", "akan.compaction.threshold.default"},
        ),
        ("akan", "akan-message-bytes-unchecked", 2, {"akan.attachments.ceiling.per-message-bytes"}),
        (
            "llmz",
            "llmz-budget-no-reserve-floor",
            0,
            {
                "llmz.budget.output-reserve.floor",
                "llmz.budget.output-reserve.model-output-limit",
                "llmz.errors.token-overflow",
            },
        ),
    ],
)
def test_a_broken_threshold_is_found_and_written_as_a_scenario_that_catches_it(
    system: str, mutant: str, seed: int, rules: set[str], tmp_path: Path
) -> None:
    impl = f"reference[{mutant}]"
    result = _search(system, impl, 60, seed)
    assert len(result.findings) == 1
    finding = result.findings[0]
    assert finding.comparison.rules & rules
    generator = generator_for(system)
    write(
        tmp_path,
        generator.area(finding.comparison.case),
        finding.comparison,
        Provenance(impl, system, seed, 60, finding.examples),
    )
    assert _verdicts(tmp_path, "reference") == ["pass"]
    assert _verdicts(tmp_path, impl) == ["fail"]


@pytest.mark.parametrize(
    ("family", "mutant", "seed", "rules"),
    [
        ("compaction", "llmz-compaction-trigger-early", 1, {"llmz.compaction.trigger-ratio"}),
        ("compaction", "llmz-compaction-trigger-late", 0, {"llmz.compaction.trigger-ratio"}),
        ("compaction", "llmz-compaction-summary-uncapped", 2, {"llmz.compaction.max-summary-tokens"}),
        ("compaction", "llmz-compaction-recent-not-preferred", 3, {"llmz.compaction.keep-recent-iterations"}),
        ("memory", "llmz-memory-unbounded", 0, {"llmz.errors.memory-capacity"}),
        ("memory", "llmz-memory-objects-not-counted", 0, {"llmz.memory.limit-scope"}),
        ("loop", "llmz-loop-one-extra", 0, {"llmz.configuration.loop-bounds-iterations"}),
        ("loop", "llmz-loop-one-short", 0, {"llmz.configuration.loop-bounds-iterations"}),
        ("loop", "llmz-inspection-loses-to-exit", 0, {"llmz.think-signal.beats-exit"}),
        ("loop", "llmz-signal-only-when-thrown", 0, {"llmz.think-signal.beats-exit"}),
    ],
)
def test_each_llmz_family_finds_the_mutant_of_its_boundary_and_writes_a_scenario_that_catches_it(
    family: str, mutant: str, seed: int, rules: set[str], tmp_path: Path
) -> None:
    impl = f"reference[{mutant}]"
    generator = LlmzGenerator((family,))
    result = search(generator, create("reference"), create(impl), examples=60, seed=seed, max_findings=1)
    assert len(result.findings) == 1
    finding = result.findings[0]
    assert finding.comparison.rules & rules
    assert generator.area(finding.comparison.case) == family
    write(tmp_path, family, finding.comparison, Provenance(impl, "llmz", seed, 60, finding.examples))
    assert _verdicts(tmp_path, "reference") == ["pass"]
    assert _verdicts(tmp_path, impl) == ["fail"]


def test_llmz_families_are_checked() -> None:
    with pytest.raises(ValueError, match="budget, memory, loop, compaction"):
        LlmzGenerator(("routing",))


def test_the_command_writes_findings_and_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "fuzz",
            "--impl",
            "reference[falai-takeover-margin-16]",
            "--system",
            "falai",
            "--examples",
            "30",
            "--seed",
            "6",
            "--out",
            str(tmp_path),
        ]
    )
    out = capsys.readouterr().out
    files = sorted(tmp_path.rglob("*.yaml"))
    assert code == 1 and len(files) == 1
    assert f"wrote {files[0]}" in out and "does not reproduce" not in out
    text = files[0].read_text(encoding="utf-8")
    assert text.startswith("# Generated by the differential fuzzer")
    assert "--seed 6" in text and "[falai.routing.takeover.margin]" in text


def test_the_command_exits_0_without_disagreement(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["fuzz", "--impl", "reference", "--system", "akan", "--examples", "20", "--out", str(tmp_path)]
    )
    assert code == 0 and "no disagreement" in capsys.readouterr().out
    assert list(tmp_path.rglob("*.yaml")) == []


@pytest.mark.parametrize(
    "argv",
    [
        ["--impl", "nonsense", "--system", "falai"],
        ["--impl", "reference[no-such-mutant]", "--system", "falai"],
        ["--impl", "reference", "--system", "falai", "--examples", "0"],
    ],
)
def test_usage_errors_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fuzz", *argv]) == 2
    assert capsys.readouterr().err.startswith("error: ")


def test_a_file_whose_fate_depends_on_what_a_megabyte_is_is_not_compared() -> None:
    case = {
        "system": "akan",
        "steps": [
            {
                "op": "attach",
                "files": [
                    {"name": "f1", "type": "image/png", "size": 4_100_000},  # over 4 x 10^6, under 4 x 2^20
                    {"name": "f2", "type": "image/png", "size": 4_194_305},  # over both
                    {"name": "f3", "type": "image/png", "size": 10},
                ],
            }
        ],
    }
    assert [(name, sorted(fates)) for name, fates in _fates(case)] == [
        ("f1", [False, True]),
        ("f2", [False]),
        ("f3", [True]),
    ]
    record = {
        "events": [
            {"type": "attachment_added", "name": "f1", "kind": "image", "size": 4_100_000},
            {"type": "attachment_refused", "name": "f2", "reason": "file-too-large", "text": "f2"},
            {"type": "attachment_added", "name": "f3", "kind": "image", "size": 10},
        ],
        "final": {"composer": ["f1", "f3"]},
    }
    paths = {fact.path for fact in attachments_facts(case, record)}
    assert not any("f1" in path for path in paths)
    assert "events[type=attachment_refused][name=f2]" in paths and "final.composer" not in paths


# -- known deviations (--expected-failures) ------------------------------------------------------------


def _baseline(tmp_path: Path, entries: list[dict[str, str]]) -> Path:
    path = tmp_path / "baseline.yaml"
    path.write_text(yaml.safe_dump(entries), encoding="utf-8")
    return path


#: What the margin mutant's disagreements fail on: the margin, and what a wrong takeover does next.
MARGIN_RULES = (
    "falai.routing.takeover.margin",
    "falai.routing.takeover.effect",
    "falai.message.single-floor",
)


def _fuzz_margin_mutant(out: Path, baseline: Path | None) -> int:
    argv = ["fuzz", "--impl", "reference[falai-takeover-margin-16]", "--system", "falai"]
    argv += ["--examples", "30", "--seed", "6", "--out", str(out)]
    return main([*argv, *(["--expected-failures", str(baseline)] if baseline else [])])


def test_a_disagreement_the_baseline_lists_is_a_known_deviation_not_a_finding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    entries = [{"id": rule, "reason": f"known: the margin is read as 16 ({rule})"} for rule in MARGIN_RULES]
    entries.append({"id": "falai/routing/catch-all-obeys-if", "reason": "errs", "error": "boom"})
    code = _fuzz_margin_mutant(tmp_path / "out", _baseline(tmp_path, entries))
    out = capsys.readouterr().out
    assert code == 0, out
    assert list((tmp_path / "out").rglob("*.yaml")) == []
    assert "known deviation [falai.routing.takeover.margin] in " in out
    assert "known: the margin is read as 16 (falai.routing.takeover.margin)" in out
    assert f"{len(MARGIN_RULES)} rules known to fail, 1 entries naming no rule" in out


def test_a_baseline_on_another_rule_hides_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    entries = [{"id": "falai.routing.new-flow-min-score", "reason": "not the rule this mutant breaks"}]
    code = _fuzz_margin_mutant(tmp_path / "out", _baseline(tmp_path, entries))
    assert code == 1
    assert len(list((tmp_path / "out").rglob("*.yaml"))) == 1
    assert "known deviation" not in capsys.readouterr().out


def test_a_baseline_naming_an_unknown_id_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _baseline(tmp_path, [{"id": "falai.routing.no-such-rule", "reason": "typo"}])
    assert _fuzz_margin_mutant(tmp_path / "out", path) == 2
    assert "falai.routing.no-such-rule" in capsys.readouterr().err


def test_the_search_looks_past_a_known_deviation() -> None:
    rules = {rule: Entry(id=rule, reason="known") for rule in MARGIN_RULES}
    reference, implementation = create("reference"), create("reference[falai-takeover-margin-16]")
    result = search(
        generator_for("falai"), reference, implementation, examples=30, seed=6, known=Known(rules)
    )
    assert result.findings == [] and result.known["falai.routing.takeover.margin"] >= 1


def test_an_error_is_known_only_through_an_entry_that_names_the_error() -> None:
    listed = {
        "r.value": Entry(id="r.value", reason="wrong value"),
        "r.crash": Entry(id="r.crash", reason="crashes", error="TOKEN_OVERFLOW"),
    }
    known = Known(listed)
    error = frozenset({"<error>"})
    assert known.covering(error, ["r.value"], "the adapter raised TypeError") == []
    assert known.covering(error, ["r.crash"], "the bridge said TOKEN_OVERFLOW at call 1") == ["r.crash"]
    assert known.covering(error, ["r.crash"], "the adapter raised TypeError") == []
    assert known.covering(frozenset({"r.value"}), ["r.value"], None) == ["r.value"]
    assert known.covering(frozenset({"r.value", "r.other"}), ["r.value"], None) == []


def test_a_scenario_entry_makes_the_rules_it_fails_known(tmp_path: Path) -> None:
    scenario = "falai/routing/catch-all-obeys-if"
    entries = [
        {"id": scenario, "reason": "the margin is read as 16", "fails": list(MARGIN_RULES[:2])},
        {"id": MARGIN_RULES[1], "reason": "its own entry"},
    ]
    known = load_known(_baseline(tmp_path, entries), set(MARGIN_RULES), {scenario})
    assert known.reason(MARGIN_RULES[0]) == f"as in {scenario}: the margin is read as 16"
    assert known.reason(MARGIN_RULES[1]) == "its own entry"
    assert MARGIN_RULES[2] not in known.rules


def test_a_signal_beside_an_exit_in_the_last_allowed_iteration_leaves_the_run_at_the_limit() -> None:
    """The mixed loop facts: the exit attempted beside a signal never applies, and the signal's iteration
    counts against options.loop, so a clean exit one answer later is too late."""
    signal = {"reason": "look first", "context": {"level": 3}, "via": "throw"}
    case = {
        "system": "llmz",
        "setup": {"tools": [{"name": TOOL, "behaviour": {"think_signal": signal}}], "exits": EXITS},
        "script": [
            {"tool_calls": [{"code": "return 1"}]},
            {
                "tool_calls": [
                    {"code": f'const s = await {TOOL}({{}})\nreturn exit("early", {{ result: 2 }})'}
                ]
            },
            {"tool_calls": [{"code": 'return exit("done", { result: 3 })'}]},
        ],
        "steps": [
            {"op": "append", "messages": [{"role": "user", "content": "Count."}]},
            {"op": "execute", "mode": "worker", "options": {"loop": 2}},
        ],
    }
    record = play(create("reference"), case, 30).record
    assert record is not None
    facts = {(fact.rule, fact.path): fact.value for fact in loop_facts(case, record)}
    assert facts == {
        ("llmz.think-signal.beats-exit", "events[type=exit][name=early]"): 0,
        ("llmz.configuration.loop-bounds-iterations", "events[type=model_request]"): 2,
        ("llmz.errors.iteration-limit", "events[type=result][0]"): {
            "status": "error",
            "error_code": "ITERATION_LIMIT",
        },
    }
    case["steps"][1]["options"] = {"loop": 3}
    record = play(create("reference"), case, 30).record
    assert record is not None
    facts = {(fact.rule, fact.path): fact.value for fact in loop_facts(case, record)}
    assert facts[
        ("llmz.configuration.loop-bounds-iterations", "events[type=exit][name=done][*].payload.result")
    ] == [3]
    assert facts[("llmz.configuration.loop-bounds-iterations", "events[type=model_request]")] == 3
