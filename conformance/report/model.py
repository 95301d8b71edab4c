"""``report.json``: the machine-readable result of one run against one implementation.

``spec/schema/report.schema.json`` is generated from these models. Verdicts per scenario are ``pass``,
``fail``, ``error``, ``skip`` and ``xfail`` (a fail or error the expected-failures baseline covers); per
rule they add ``untested`` (no scenario that ran names the rule) and ``excluded`` (the catalogue says no
test could ever check it).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

ScenarioVerdict = Literal["pass", "fail", "error", "skip", "xfail"]
RuleVerdict = Literal["pass", "fail", "error", "skip", "xfail", "untested", "excluded"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ImplementationReport(_Model):
    name: str
    version: str
    language: str
    systems: list[str] = Field(default_factory=list)
    capabilities: list[str] = Field(default_factory=list)
    spec: str = Field(default="", description="The --impl spec the run used.")


class Summary(_Model):
    passed: int = Field(ge=0)
    failed: int = Field(ge=0, description="Unexpected failures only.")
    errored: int = Field(ge=0, description="Unexpected errors only.")
    skipped: int = Field(ge=0)
    xfailed: int = Field(ge=0, description="Failures and errors covered by the expected-failures baseline.")
    total: int = Field(ge=0)


class FailedCheck(_Model):
    """One expectation a failing scenario did not meet: what it asked for and what the record held."""

    rule: str
    expectation: int = Field(ge=0, description="Index into the scenario's expect list.")
    matcher: str
    path: str
    expected: Any = Field(description="The matcher's argument as the scenario states it.")
    found: str = Field(description="An excerpt (JSON text) of what the path selected in the record.")
    message: str
    why: str | None = None


class ScenarioReport(_Model):
    id: str
    system: str
    area: str
    rules: list[str]
    verdict: ScenarioVerdict
    message: str = ""
    failing_rules: list[str] = Field(default_factory=list, description="Rules whose matchers failed.")
    expected_failure: str | None = Field(default=None, description="The baseline reason, for an xfail.")
    duration_ms: float = Field(ge=0)
    checks: list[FailedCheck] = Field(default_factory=list, description="Failed expectations, for a fail.")
    notes: list[str] = Field(
        default_factory=list,
        description="What judging set aside from the record (events of the implementation's own types, x- "
        "fields) and values of open sets the documents do not name: allowed, shown for the reader.",
    )


class RuleReport(_Model):
    id: str
    verdict: RuleVerdict
    scenarios: list[str] = Field(default_factory=list)


class BaselineProblem(_Model):
    id: str
    problem: Literal["stale", "unknown", "changed"]
    message: str


class RunMetadata(_Model):
    """What a reader needs to know that two reports are comparable (same suite, same rules)."""

    suite_version: str = Field(description="The harness's version ('+clone': run from a clone).")
    catalogue_digest: str = Field(description="sha256 over the catalogue's YAML files (names, bytes).")
    scenarios_digest: str = Field(description="sha256 over the scenario files (names and bytes).")
    protocol_version: int = Field(description="The harness-implementation protocol version the run spoke.")
    started_at: str = Field(description="When the run started, ISO 8601 in UTC.")
    duration_s: float = Field(ge=0, description="Wall time of the run, from loading scenarios to the report.")
    platform: str = Field(description="Operating system and machine the harness ran on.")
    python: str = Field(description="The harness's Python version.")


class Report(_Model):
    run: RunMetadata
    implementation: ImplementationReport
    summary: Summary
    ok: bool = Field(
        description="True iff a case was played, no unexpected fail or error, no baseline problem and no "
        "catalogue error."
    )
    scenarios: list[ScenarioReport]
    rules: list[RuleReport]
    baseline: list[BaselineProblem] = Field(default_factory=list)
    catalogue_errors: list[str] = Field(
        default_factory=list,
        description="Catalogue files that could not be read or are invalid (file, field, what was "
        "expected); any fails the run, since their rules are missing from the report.",
    )
