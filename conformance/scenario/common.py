"""Parts of a scenario shared by every system: the scripted model and the expectations.

A scenario is the unit the suite runs. ``script`` plays the model (one entry per model call, in order);
``expect`` holds matchers over the record the implementation returns. The harness, never the
implementation, evaluates ``expect``: implementations receive the scenario whole but must not read it.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


class Strict(BaseModel):
    """Unknown fields are errors, so a typo'd field fails loading instead of being ignored."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)


class ScriptedToolCall(Strict):
    """A native tool call in a scripted response. For llmz this is ``run_javascript`` with ``code``."""

    name: str = "run_javascript"
    code: str | None = Field(default=None, description="The JavaScript program, for run_javascript.")
    arguments: dict[str, Any] | None = Field(default=None, description="Arguments of any other native tool.")
    id: str | None = Field(
        default=None, description="Provider call id; minted by the implementation if absent."
    )


class Usage(Strict):
    input_tokens: int = Field(default=0, ge=0)
    output_tokens: int = Field(default=0, ge=0)


class ScriptedFailure(Strict):
    """The provider fails this call instead of answering (HTTP status, optional retry-after seconds)."""

    status: int = Field(ge=100, le=599)
    message: str = "scripted provider failure"
    retry_after: float | None = Field(default=None, ge=0)


class StreamBreak(Strict):
    """A streamed answer whose transport fails partway: ``after`` of the entry's chunks arrive, then it
    breaks and the answer never completes. The entry's tool calls arrive complete once ``calls_after``
    chunks have arrived (unset: only at the end, which a broken stream never reaches)."""

    after: int = Field(ge=0, description="How many of the entry's chunks arrive before the stream breaks.")
    calls_after: int | None = Field(
        default=None,
        ge=0,
        description="Chunks that arrive before the tool calls are complete; unset: at the end.",
    )
    message: str = Field(default="the stream broke", description="What the transport failure says.")


class ScriptEntry(Strict):
    """The model's answer to one call, in the order the calls are made.

    With ``purpose`` set, the entry answers only a call of that purpose (for llmz, ``turn`` or
    ``summary``): each call takes the first unused entry whose purpose is its own or unset. A script
    whose summary answers are addressed to summary calls stays aligned however many summary calls (or
    segments) an implementation makes; a script without any purpose is played strictly in order.
    """

    purpose: str | None = Field(
        default=None,
        min_length=1,
        description="Only a call of this purpose (llmz: turn, summary) takes this entry; unset: any call.",
    )
    text: str = ""
    tool_calls: list[ScriptedToolCall] = Field(default_factory=list)
    json_data: dict[str, Any] | None = Field(
        default=None, alias="json", description="Structured output (falai's understand call, for example)."
    )
    stop_reason: Literal["stop", "tool_calls", "max_tokens"] | None = Field(
        default=None, description="Defaults to tool_calls when there are tool calls, else stop."
    )
    usage: Usage = Field(default_factory=Usage)
    chunks: list[str] | None = Field(default=None, description="Stream deltas, when the call streams.")
    failure: ScriptedFailure | None = None
    continuation: Any = Field(
        default=None,
        description="Provider continuation metadata the answer carries, as opaque JSON (a reasoning "
        "signature, say): an answer with it is signed output. The runtime keeps it with the assistant "
        "message and sends it back unchanged.",
    )
    stream_break: StreamBreak | None = Field(
        default=None, description="The stream breaks partway (needs `chunks`); the answer never completes."
    )
    first_chunk_delay_ms: int | None = Field(
        default=None,
        ge=0,
        le=10_000,
        description="Milliseconds the provider waits before the stream's first chunk (needs `chunks`): a "
        "slow first token (llmz.configuration.streaming-options). Real time over HTTP and in bridges; keep "
        "it short (the suite's cases wait at most a few seconds).",
    )

    @model_validator(mode="after")
    def _break_inside_chunks(self) -> ScriptEntry:
        if self.first_chunk_delay_ms is not None and self.chunks is None:
            raise ValueError("first_chunk_delay_ms needs chunks: only a streamed answer has a first chunk")
        brk = self.stream_break
        if brk is None:
            return self
        if self.chunks is None:
            raise ValueError("stream_break needs chunks: only a streamed answer can break partway")
        if brk.calls_after is not None and not self.tool_calls:
            raise ValueError(
                "stream_break.calls_after needs tool_calls: it says when the entry's calls arrive"
            )
        for name, value in (("after", brk.after), ("calls_after", brk.calls_after)):
            if value is not None and value > len(self.chunks):
                raise ValueError(
                    f"stream_break.{name} is {value}, but the entry has {len(self.chunks)} chunks"
                )
        return self

    def effective_stop_reason(self) -> str:
        if self.stop_reason is not None:
            return self.stop_reason
        return "tool_calls" if self.tool_calls else "stop"


MATCHERS = (
    "equals", "subset", "contains", "regex", "count", "between", "absent", "lacks", "parts_sum_to",
    "in_order", "relation",
)

RelationOp = Literal["equal", "at_most", "at_least", "within"]


class Relation(Strict):
    """Two observations compared with each other instead of one with a constant (see
    ``conformance.judging.relations``): the value at the expectation's ``path`` in this play, and the value
    at ``to`` (default: the same path) in this play or in the twin named by ``play``."""

    op: RelationOp = Field(
        description=(
            "equal: the same JSON value; at_most / at_least: the first number is at most / at least the "
            "second; within: they differ by at most `tolerance`. A list, object or string stands for its "
            "length where a number is compared."
        )
    )
    to: str | None = Field(default=None, min_length=1, description="The other path (default: the same).")
    play: str | None = Field(
        default=None, min_length=1, description="A twin of this scenario whose record `to` is read in."
    )
    tolerance: float | None = Field(default=None, ge=0, description="within: the largest difference allowed.")

    @model_validator(mode="after")
    def _two_observations(self) -> Relation:
        if self.to is None and self.play is None:
            raise ValueError(
                "a relation compares two observations: give `to` (another path), `play` (a twin), or both"
            )
        if (self.op == "within") != (self.tolerance is not None):
            raise ValueError("`tolerance` goes with op within, and op within needs it")
        return self


class Expectation(Strict):
    """One matcher over the record, tied to the rule it checks.

    ``path`` uses the record path language of ``conformance.judging.path`` (see its docstring):
    ``events[type=model_request][1].messages[-1].content``. Exactly one matcher is given.
    """

    rule: str
    path: str = Field(min_length=1)
    equals: Any = None
    subset: Any = None
    contains: Any = None
    regex: str | None = None
    count: int | None = Field(default=None, ge=0)
    between: list[float] | None = Field(
        default=None,
        min_length=2,
        max_length=2,
        description=(
            "[low, high], both included: a number in that range, or as many selected values as count "
            "would find. For boundaries the documents fix only up to sizes they leave open."
        ),
    )
    absent: bool | None = None
    lacks: str | None = Field(
        default=None,
        description=(
            "A regex that must match no string inside what the path selects (which must not be empty): "
            "for something the documents say is left out, without pinning what is there instead."
        ),
    )
    parts_sum_to: str | None = Field(
        default=None,
        min_length=1,
        description=(
            "The path selects one object; the numbers under every other key add up exactly to the number "
            "under this key (llmz's context categories and their total, whatever the categories are called); "
            "values that are not numbers are not parts."
        ),
    )
    in_order: list[Any] | None = Field(
        default=None,
        min_length=2,
        description=(
            "The path selects one list holding, in this order, an element matching each item as `contains` "
            "matches (a dict: a superset of it); any other elements may come before, between and after. "
            "For an order the documents fix between events of different types (a wait inside a call)."
        ),
    )
    relation: Relation | None = None
    why: str | None = Field(default=None, description="What a failure of this check means, for the report.")

    @model_validator(mode="after")
    def _exactly_one_matcher(self) -> Expectation:
        given = [name for name in MATCHERS if name in self.model_fields_set]
        if len(given) != 1:
            raise ValueError(
                f"an expectation needs exactly one of {', '.join(MATCHERS)}; got {given or 'none'}"
            )
        if "between" in given and self.between is not None and self.between[0] > self.between[1]:
            raise ValueError(f"between needs [low, high] with low <= high; got {self.between}")
        if "absent" in given and self.absent is not True:
            raise ValueError(
                "absent must be true (to check that something is present, use count or contains)"
            )
        return self

    @property
    def matcher(self) -> str:
        return next(name for name in MATCHERS if name in self.model_fields_set)


# Each system's case (``LlmzCase``, ...) extends CaseBase in that system's module, so playing one
# system's case imports and builds only that system's models (``conformance.scenario.cases``).
class CaseBase(Strict):
    """What an implementation needs to play a scenario, and nothing it could be judged by."""

    requires: list[str] = Field(
        default_factory=list,
        description="Capability flags an implementation must declare, else the case is a skip.",
    )
    script: list[ScriptEntry] = Field(default_factory=list)
