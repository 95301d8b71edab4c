"""The llmz-node bridge: the suite's stdio protocol spoken by the real llmz 1.0.1 from npm.

These tests need Node and npm (the first one installs the pinned packages with ``npm ci``, a few seconds
with a warm npm cache); without them the whole module is skipped with the reason.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conformance import baseline
from conformance.adapters.llmz_node import create, ensure_installed, missing_tools
from conformance.adapters.llmz_node.install import BRIDGE_SCRIPT, bridge_command
from conformance.adapters.stdio import StdioAdapter
from conformance.judging.judge import judge
from conformance.paths import REPO_ROOT
from conformance.scenario.model import case_payload, parse_scenario

pytestmark = pytest.mark.skipif(
    bool(missing_tools()), reason=f"the llmz-node bridge needs {' and '.join(missing_tools())} on PATH"
)

TIMEOUT = 30.0
BASELINE = REPO_ROOT / "conformance" / "baselines" / "llmz-1.0.1.yaml"


def worker_scenario(script: list[dict[str, Any]], expect: list[dict[str, Any]]) -> dict[str, Any]:
    """A hand-written worker case: one tool returning stock, one exit, one user message, one execute."""
    return {
        "id": "llmz/bridge/hand-written",
        "system": "llmz",
        "title": "A worker looks up stock and completes",
        "rules": [RULE],
        "setup": {
            "tools": [
                {
                    "name": "getStock",
                    "input": {
                        "type": "object", "properties": {"sku": {"type": "string"}}, "required": ["sku"]
                    },
                    "behaviour": {"returns": 20},
                }
            ],
            "exits": [
                {
                    "name": "done",
                    "description": "Report the stock.",
                    "schema": {
                        "type": "object",
                        "properties": {"available": {"type": "number"}},
                        "required": ["available"],
                    },
                }
            ],
        },
        "script": script,
        "steps": [
            {"op": "append", "messages": [{"role": "user", "content": "How much coffee is left?"}]},
            {"op": "execute", "mode": "worker", "instructions": "Report the coffee stock."},
        ],
        "expect": expect,
    }


def wire(payload: dict[str, Any]) -> dict[str, Any]:
    """What the harness would send for this hand-written scenario: the case, without its answer key."""
    return case_payload(payload["id"], {k: v for k, v in payload.items() if k != "id"})


PROGRAM = "const n = await getStock({ sku: 'coffee' })\nreturn exit('done', { available: n })"
COMPLETES: list[dict[str, Any]] = [{"tool_calls": [{"code": PROGRAM}]}]
RULE = "llmz.exits.result-is"


@pytest.fixture(scope="module")
def bridge() -> Iterator[StdioAdapter]:
    adapter = create()
    yield adapter
    adapter.close()


def play(bridge: StdioAdapter, payload: dict[str, Any]) -> dict[str, Any]:
    outcome = bridge.run(wire(payload), TIMEOUT)
    assert outcome.error is None and outcome.skip is None, outcome
    assert outcome.record is not None
    return outcome.record


def test_install_is_skipped_when_the_lock_file_is_unchanged() -> None:
    ensure_installed()
    assert ensure_installed() == 0.0


def test_bridge_says_hello_as_llmz_1_0_1(bridge: StdioAdapter) -> None:
    info = bridge.hello()
    assert (info.name, info.version, info.language, info.systems) == ("llmz", "1.0.1", "typescript", ["llmz"])


def test_bridge_refuses_a_protocol_it_does_not_speak() -> None:
    lines: list[dict[str, Any]] = [{"cmd": "hello", "protocol": [99]}, {"cmd": "stop"}]
    answers = _converse(lines)
    assert "no common protocol version" in answers[0]["error"]["message"]


def test_hand_written_worker_scenario_passes(bridge: StdioAdapter) -> None:
    expect: list[dict[str, Any]] = [
        {"rule": RULE, "path": "events[type=tool_call][0].input", "equals": {"sku": "coffee"}},
        {"rule": RULE, "path": "events[type=result][0].exit", "equals": "done"},
        {"rule": RULE, "path": "events[type=exit][0].payload", "equals": {"available": 20}},
    ]
    payload = worker_scenario(COMPLETES, expect)
    record = play(bridge, payload)
    assert judge(parse_scenario(_document(payload)).expect, record) == []


def test_a_wrong_expectation_is_caught(bridge: StdioAdapter) -> None:
    wrong = {"rule": RULE, "path": "events[type=exit][0].payload", "equals": {"available": 21}}
    expect: list[dict[str, Any]] = [wrong]
    payload = worker_scenario(COMPLETES, expect)
    mismatches = judge(parse_scenario(_document(payload)).expect, play(bridge, payload))
    assert [m.rule for m in mismatches] == ["llmz.exits.result-is"]


def test_the_model_request_carries_the_native_run_javascript_tool(bridge: StdioAdapter) -> None:
    record = play(bridge, worker_scenario(COMPLETES, []))
    request = next(e for e in record["events"] if e["type"] == "model_request")
    assert [tool["name"] for tool in request["tools"]] == ["run_javascript"]
    assert request["tool_choice"] == {"type": "required", "name": "run_javascript"}
    assert [m["role"] for m in request["messages"]] == ["system", "user"]


def test_an_exhausted_script_fails_the_case_naming_the_call(bridge: StdioAdapter) -> None:
    outcome = bridge.run(wire(worker_scenario([], [])), TIMEOUT)
    assert outcome.error is not None and "the script has no response for call 1" in outcome.error


def test_an_unknown_step_is_a_skip_naming_it(bridge: StdioAdapter) -> None:
    payload = worker_scenario(COMPLETES, [])
    payload["steps"].append({"op": "teleport"})
    outcome = bridge.run(wire(payload), TIMEOUT)
    assert outcome.skip is not None and "teleport" in outcome.skip


def test_a_failing_case_leaves_the_bridge_running(bridge: StdioAdapter) -> None:
    bridge.hello()
    starts = bridge.starts
    broken = worker_scenario(COMPLETES, [])
    broken["steps"][1]["exits"] = ["missing"]
    assert bridge.run(wire(broken), TIMEOUT).error is not None
    assert play(bridge, worker_scenario(COMPLETES, []))["events"]
    assert bridge.starts == starts


def test_a_run_that_never_settles_is_an_error_and_the_bridge_survives(bridge: StdioAdapter) -> None:
    """llmz 1.0.1's timeout cannot interrupt a pending host call; the bridge bounds the execute itself.

    The JavaScript timeout is 1 s, not less: with 200 ms a loaded machine (a fresh-clone CI run beside other
    jobs) let llmz's timer fire before the program had reached the tool call, so llmz interrupted the
    program as it does a busy loop and asked the model again, and the case ran out of script instead."""
    bridge.hello()
    starts = bridge.starts
    payload = worker_scenario(COMPLETES, [])
    payload["setup"]["tools"][0]["behaviour"] = {"hangs": True}
    payload["steps"][1]["options"] = {"timeout": "1s"}
    outcome = bridge.run(wire(payload), TIMEOUT)
    assert outcome.error is not None and "did not settle within 3000 ms" in outcome.error
    assert play(bridge, worker_scenario(COMPLETES, []))["events"]
    assert bridge.starts == starts


def test_a_step_can_lower_the_give_up_limit(bridge: StdioAdapter) -> None:
    """give_up_after replaces the timeout-plus-grace bound, so a scenario about a timeout waits less."""
    payload = worker_scenario(COMPLETES, [])
    payload["setup"]["tools"][0]["behaviour"] = {"hangs": True}
    payload["steps"][1]["options"] = {"timeout": "1s"}  # later than the give-up: no race with llmz's timer
    payload["steps"][1]["give_up_after"] = "300ms"
    outcome = bridge.run(wire(payload), TIMEOUT)
    assert outcome.error is not None and "did not settle within 300 ms" in outcome.error


def test_an_unknown_setup_field_is_a_skip_naming_it(bridge: StdioAdapter) -> None:
    payload = worker_scenario(COMPLETES, [])
    payload["setup"]["tools"][0]["behaviour"]["sparkles"] = True
    outcome = bridge.run(wire(payload), TIMEOUT)
    assert outcome.skip is not None and "setup.tools[0].behaviour.sparkles" in outcome.skip


def test_tokenizer_truncation_honours_the_mode() -> None:
    """thicktoken 1.2.1 ignores the mode; the bridge's own tokenizer must not."""
    script = (
        "import { count, truncate } from './lib/tokenizer.mjs';"
        "const t = 'one two three four five six seven eight nine ten';"
        "console.log(JSON.stringify([count(t), truncate(t, 3, 'head'), truncate(t, 3, 'tail'),"
        " truncate(t, 4, 'middle'), truncate(t, 99)]))"
    )
    done = subprocess.run(
        [bridge_command()[0], "--input-type=module", "-e", script],
        cwd=BRIDGE_SCRIPT.parent, capture_output=True, text=True, timeout=60, check=True,
    )
    count, head, tail, middle, whole = json.loads(done.stdout)
    assert count == 10
    assert (head, tail, middle) == ("one two three", " eight nine ten", "one two nine ten")
    assert whole == "one two three four five six seven eight nine ten"


#: Texts that stress the piece split: runs of spaces before words and line ends, contractions, digits,
#: non-Latin scripts, emoji, special-token spellings, JSON.
TOKENIZER_CHECK = r"""
import { Tiktoken } from 'js-tiktoken/lite';
import ranks from 'js-tiktoken/ranks/cl100k_base';
import { count, truncate } from './lib/tokenizer.mjs';
const plain = new Tiktoken(ranks);
const parts = ['a', 'Bc', ' ', '  ', '\n', '\r\n', '\t', '7', '123456', '.', ',', "'s", "'LL", '"', '{', '}',
  'é', '日本', '😀', '<|endoftext|>', '\u00a0', ' x', '\n\n  '];
let seed = 7;
const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const texts = [JSON.stringify({ a: [1, { b: 'x  y' }], c: 'one\r\ntwo\n\n   ' }), 'z'.repeat(3000)];
for (let i = 0; i < 1500; i++) {
  let text = '';
  for (let n = Math.floor(next() * 40); n > 0; n--) text += parts[Math.floor(next() * parts.length)];
  texts.push(text, text);  // twice: the second answer comes from the caches
}
const cut = (tokens, k, mode) => {
  if (tokens.length <= k) return null;
  if (k === 0) return '';
  if (mode === 'tail') return plain.decode(tokens.slice(tokens.length - k));
  if (mode === 'middle') {
    const head = Math.ceil(k / 2);
    const tail = k - head;
    const end = tail ? plain.decode(tokens.slice(tokens.length - tail)) : '';
    return plain.decode(tokens.slice(0, head)) + end;
  }
  return plain.decode(tokens.slice(0, k));
};
const wrong = [];
for (const text of texts) {
  const tokens = plain.encode(text, [], []);
  if (count(text) !== tokens.length) wrong.push(['count', text]);
  for (const mode of ['head', 'tail', 'middle']) for (const k of [0, 1, 2, 5]) {
    const want = cut(tokens, k, mode) ?? text;
    if (truncate(text, k, mode) !== want) wrong.push([mode, k, text]);
  }
}
console.log(JSON.stringify({ texts: texts.length, wrong: wrong.slice(0, 5) }));
"""


def test_tokenizer_caches_give_js_tiktokens_answers() -> None:
    """The caches change nothing: counts and cuts equal plain js-tiktoken's, the first time and again."""
    ensure_installed()
    done = subprocess.run(
        [bridge_command()[0], "--input-type=module", "-e", TOKENIZER_CHECK],
        cwd=BRIDGE_SCRIPT.parent, capture_output=True, text=True, timeout=120, check=True,
    )
    result = json.loads(done.stdout)
    assert result["texts"] == 3002
    assert result["wrong"] == []


def _document(payload: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in payload.items() if k != "id"}


def _converse(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    ensure_installed()
    done = subprocess.run(
        bridge_command(), input="".join(json.dumps(line) + "\n" for line in lines),
        cwd=BRIDGE_SCRIPT.parent, capture_output=True, text=True, timeout=60, check=True,
    )
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


REPORT_DIR_VARIABLE = "LLMZ_NODE_REPORT_DIR"
"""Where the next test writes the bridge run's reports: a temporary folder unless this names one. CI sets
it to ``build/conformance/llmz`` (what ``nox -s conformance-llmz`` writes) and hands that report to
``nox -s report``, so a CI run plays the suite against llmz 1.0.1 once, here (.ci/run)."""


def test_the_suite_against_llmz_1_0_1_matches_its_baseline(tmp_path: Path) -> None:
    """What `nox -s conformance-llmz` runs: every llmz case passes or is a listed, still-failing deviation."""
    ensure_installed()
    llmz_dir = Path(os.environ.get(REPORT_DIR_VARIABLE) or tmp_path / "llmz-node").resolve()
    done = subprocess.run(
        [
            sys.executable, "-m", "conformance", "run", "--impl", "llmz-node", "--system", "llmz",
            "--expected-failures", str(BASELINE), "--report-dir", str(llmz_dir),
        ],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=600, check=False,
    )
    report = json.loads((llmz_dir / "report.json").read_text(encoding="utf-8"))
    summary = report["summary"]
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert summary["passed"] > 0 and summary["xfailed"] > 0
    assert report["baseline"] == []
    _each_entry_fails_the_way_its_reason_says(report)
    _compare_lists_exactly_what_the_baseline_explains(llmz_dir, tmp_path / "reference")


def _each_entry_fails_the_way_its_reason_says(report: dict[str, Any]) -> None:
    """Scenario entries: still failing on the rules (or with the error) they name. Rule entries: the rule is
    among the failing rules of at least one case, so a 1.0.2 rule excuses only cases that fail on it."""
    cases = {case["id"]: case for case in report["scenarios"]}
    failing_rules = {rule for case in cases.values() for rule in case["failing_rules"]}
    for entry in baseline.load(BASELINE):
        if "/" not in entry.id:
            assert entry.id in failing_rules, f"{entry.id}: no case fails on this rule"
            continue
        case = cases[entry.id]
        assert case["verdict"] == "xfail", (entry.id, case["verdict"])
        if entry.error is not None:
            assert entry.error in case["message"], (entry.id, case["message"][:300])
        elif entry.or_error is not None and not case["failing_rules"]:
            # the timing-dependent other outcome of the same deviation (baseline.Entry.or_error)
            assert entry.or_error in case["message"], (entry.id, case["message"][:300])
            continue
        assert set(entry.fails) <= set(case["failing_rules"]), (entry.id, case["failing_rules"])


def _compare_lists_exactly_what_the_baseline_explains(llmz_dir: Path, reference_dir: Path) -> None:
    """`compare` reference vs llmz 1.0.1: each regression is an xfail the baseline explains, bar skips."""
    from conformance.baseline import load as load_baseline
    from conformance.cli import main
    from conformance.report.compare import compare, load

    assert main(["run", "--system", "llmz", "--report-dir", str(reference_dir)]) == 0
    llmz = load(llmz_dir)
    comparison = compare(load(reference_dir), llmz)
    explained = {c.id for c in comparison.regressed if c.explained}
    covered_scenarios = {s.id for s in llmz.scenarios if s.verdict == "xfail"}
    covered_rules = {rule for s in llmz.scenarios if s.verdict == "xfail" for rule in s.rules}
    assert {c for c in explained if "/" in c} == covered_scenarios
    assert {c for c in explained if "/" not in c} == covered_rules == {
        r.id for r in llmz.rules if r.verdict == "xfail"
    }
    entries = {entry.id for entry in load_baseline(BASELINE)}
    assert {e for e in entries if "/" in e} <= covered_scenarios
    assert {e for e in entries if "/" not in e} <= covered_rules
    assert all(c.new == "skip" for c in comparison.unexplained), comparison.unexplained
    assert not comparison.fixed and not comparison.changed
