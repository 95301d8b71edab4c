"""The shortcuts that make a run fast give the answers the slow paths give, and share nothing between cases.

Each fast path is checked against the slow one it replaces: the strict-pydantic envelope check never
accepts what the published envelope schema refuses, the piecewise memory size is the byte length of the
compact JSON, and ``-k`` selects the same scenarios whether or not files are skipped before parsing. The
worker process is reused between programs and cases, so a program that pollutes its realm (globals,
prototypes, intrinsics) must leave the next program, and the next case, a clean one.
"""

from __future__ import annotations

import copy
import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import minimal_scenario
from llmz_bridges import AnsweringBridge

from conformance.adapters.reference import ReferenceAdapter
from conformance.paths import GOLDEN_ROOT, PROTOCOL_DIR, SCENARIO_ROOT
from conformance.runner import Selection, envelope_conforms, record_problems, run_case, select
from conformance.scenario.load import LoadedScenario, load_all, may_match
from reference.llmz import containment
from reference.llmz.memory import Memory, size_of
from reference.llmz.sandbox import run_program

# -- the envelope ----------------------------------------------------------------------------------------


def _variants(value: Any) -> Iterator[Any]:
    """Copies of ``value`` with one member removed or replaced by a value of another JSON type."""
    if isinstance(value, dict):
        for key in list(value)[:10]:
            yield {k: v for k, v in value.items() if k != key}
            for changed in _variants(value[key]):
                yield {**value, key: changed}
        yield {**value, "extra": 1}
    elif isinstance(value, list):
        for index, item in enumerate(value[:4]):
            for changed in _variants(item):
                yield [*value[:index], changed, *value[index + 1 :]]
    for other in ("", "x", 1, 1.5, True, None, [], {}):
        if type(other) is not type(value) or other != value:
            yield other


def test_the_fast_envelope_check_never_accepts_what_the_schema_refuses() -> None:
    schema = json.loads((PROTOCOL_DIR / "record.schema.json").read_text(encoding="utf-8"))
    published = jsonschema.Draft202012Validator(schema)
    checked = refused = 0
    for path in sorted(GOLDEN_ROOT.rglob("*.json"))[:15]:
        document = json.loads(path.read_text(encoding="utf-8"))
        record = document if "events" in document else next(iter(document.values()))
        small = {"events": record["events"][:3], "final": record.get("final", {})}
        for candidate in itertools.islice(_variants(small), 400):
            fast = envelope_conforms(candidate)
            assert fast == published.is_valid(candidate), (path.name, candidate)
            refused += not fast
            checked += 1
    assert checked > 1000 and refused > 100


def test_a_broken_envelope_is_still_explained_by_the_schema() -> None:
    assert record_problems({"events": [{"type": "x"}], "final": {}}) == []
    problems = record_problems({"events": [{"type": ""}], "extra": 1})
    assert problems and all(problem.startswith("record field") for problem in problems)


# -- memory size -----------------------------------------------------------------------------------------


def _compact(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


@pytest.mark.parametrize(
    "value",
    [
        "x" * 5000,
        'é"\\\n\u2028' * 2000,
        {"$": "object", "v": {"big": "y" * 9000, "n": -0.0, "u": {"$": "undefined"}, "f": 1e300}},
        [["z" * 4096, [1, 2.5, None, True]], {}, []],
        {"k": [[[["deep" * 2000]]]]},
        [{"$": "object", "v": {"n": i}} for i in range(200)],
        {"ü": {"$": "object", "v": {"ß": "long" * 1500}}},
        12345678901234567890,
        'ascii "quoted" \\ back/slash \x7f' * 500,
        "ascii with a control character \x01" * 500,
        "ascii with a tab\t" * 500,
    ],
    ids=[
        "long", "escapes", "tagged", "nested", "deep", "wide", "unicode-keys", "bigint",
        "ascii-quotes", "ascii-control", "ascii-tab",
    ],
)
def test_memory_size_is_the_length_of_the_compact_json(value: Any) -> None:
    assert size_of(value) == _compact(value)
    assert size_of(copy.deepcopy(value)) == _compact(value)  # the same text again, from the cache


def test_memory_size_of_a_changed_value_is_measured_again() -> None:
    memory = Memory(variables={"a": "x" * 10_000})
    before = memory.size()
    memory.variables["a"] = "x" * 10_001
    assert memory.size() == before + 1 == _compact(memory.variables["a"]) + _compact(memory.objects)


# -- -k without parsing every file -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "keyword", ["llmz.memory", "default-limit", "falai/", "akan.relay", "nothing-matches-this"]
)
def test_k_selects_what_parsing_every_file_selects(keyword: str) -> None:
    selection = Selection(None, keyword)
    everything = [item for item in load_all(SCENARIO_ROOT) if selection.wants(item)]
    assert [item.id for item in select(SCENARIO_ROOT, selection)] == [item.id for item in everything]


def test_a_file_is_parsed_when_the_keyword_could_hide_behind_an_escape(scenario_tree: Any) -> None:
    document = minimal_scenario()
    system = document["system"]
    root = scenario_tree({"area/plain": document})
    escaped = yaml_with_escaped_rule(root / system / "area" / "escaped.yaml", document)
    assert not may_match(root / system / "area" / "plain.yaml", root, "zzz")
    assert may_match(root / system / "area" / "plain.yaml", root, "test-rule")
    assert may_match(root / system / "area" / "plain.yaml", root, "area/pl")
    assert may_match(escaped, root, "test-rule")
    loaded = [item for item in select(root, Selection(None, "test-rule")) if isinstance(item, LoadedScenario)]
    assert sorted(item.id.rsplit("/", 1)[1] for item in loaded) == ["escaped", "plain"]


def yaml_with_escaped_rule(path: Path, document: dict[str, Any]) -> Path:
    """The document with its rule ids spelled with a YAML escape (``\\x2d`` for ``-``)."""
    lines = [f"system: {document['system']}", f"title: {document['title']}"]
    spelled = [json.dumps(rule).replace("-", "\\x2d") for rule in document["rules"]]
    lines.append(f"rules: [{', '.join(spelled)}]")
    lines.append("steps: " + json.dumps(document["steps"]))
    lines.append("expect: " + json.dumps(document["expect"]))
    path.write_text("\n".join(lines).replace("test-rule", "test\\x2drule") + "\n", encoding="utf-8")
    assert b"test-rule" not in path.read_bytes()
    return path


# -- no state shared between programs or cases -----------------------------------------------------------


POLLUTE = """
globalThis.leaked = 42
var declared = 'kept?'
Object.prototype.polluted = true
Array.prototype.push = null
JSON.stringify = () => '"forged"'
Math.random = () => 0.5
return 1
"""

PROBE = """
return [typeof leaked, typeof declared, ({}).polluted === undefined, typeof [].push,
        JSON.stringify({a: 1}), Math.random === Math.random && Math.random() !== 0.5 ? 'own' : 'forged']
"""


def _workers() -> list[int]:
    return [process.popen.pid for process in containment._idle]


def test_a_program_leaves_nothing_in_the_realm_of_the_next_one_on_the_same_worker() -> None:
    first = run_program(POLLUTE, AnsweringBridge(), ["t"], chat=False)
    assert first.value == 1
    reused = _workers()
    second = run_program(PROBE, AnsweringBridge(), ["t"], chat=False)
    assert reused and set(_workers()) & set(reused), "the worker was not reused: the test proves nothing"
    assert second.value == ["undefined", "undefined", True, "function", '{"a":1}', "own"]


def test_a_case_leaves_nothing_for_the_next_case(scenario_tree: Any) -> None:
    def case(name: str, code: str) -> dict[str, Any]:
        return {
            "system": "llmz",
            "title": name,
            "rules": ["llmz.memory.variables-persist"],
            "script": [{"tool_calls": [{"code": code}]}],
            "steps": [
                {"op": "append", "messages": [{"role": "user", "content": "go"}]},
                {"op": "execute", "mode": "worker"},
            ],
            "expect": [
                {
                    "rule": "llmz.memory.variables-persist",
                    "path": "events[type=result][0].status",
                    "equals": "success",
                }
            ],
        }

    polluting = POLLUTE.replace("return 1", "return exit('done', { success: true })")
    probing = (
        PROBE.replace("return [", "const seen = [").rstrip()
        + "\nreturn exit('done', { success: true, result: seen })"
    )
    root = scenario_tree(
        {"area/a-pollute": case("pollute", polluting), "area/b-probe": case("probe", probing)}
    )
    adapter = ReferenceAdapter()
    info = adapter.hello()
    results = [run_case(adapter, info, item) for item in select(root)]
    assert [result.verdict for result in results] == ["pass", "pass"], [r.message for r in results]
    record = results[1].record
    assert record is not None
    exits = [event for event in record["events"] if event["type"] == "exit"]
    assert exits[0]["payload"]["result"] == ["undefined", "undefined", True, "function", '{"a":1}', "own"]
