"""Per-rule verdicts: a rule passes only when every scenario naming it passed."""

from __future__ import annotations

from conformance.runner import CaseResult
from conformance.verdicts import rule_verdicts


def test_rule_verdicts_take_the_worst_case_and_list_untested_rules() -> None:
    cases = [
        CaseResult("s/a/1", ["r.a", "r.b"], "fail", "", ["r.b"]),
        CaseResult("s/a/2", ["r.a", "r.c"], "pass"),
        CaseResult("s/a/3", ["r.c", "r.d"], "error"),
        CaseResult("s/a/4", ["r.e"], "skip"),
        CaseResult("s/a/5", ["r.e", "r.f"], "pass"),
    ]
    verdicts = {rule: v for rule, (v, _) in rule_verdicts(cases, ["r.a", "r.z"]).items()}
    assert verdicts == {
        "r.a": "fail",  # s/a/1 failed on r.b's matcher, but a failed scenario proves nothing for r.a
        "r.b": "fail",
        "r.c": "error",
        "r.d": "error",
        "r.e": "skip",
        "r.f": "pass",
        "r.z": "untested",
    }
    assert rule_verdicts(cases, [])["r.a"][1] == ["s/a/1", "s/a/2"]
