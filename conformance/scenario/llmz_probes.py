"""The llmz ``probe`` step: asking the host-side API a question and recording its answer.

Some documented llmz facts live only in the host API, not on the wire: how the error guards classify a
value, what ``iteration.error`` and ``iteration.exception`` hold, what ``result.diagnostics()`` and
``result.toJSON()`` export, which format version a saved session states, what a standalone method does
with a recoverable failure. A ``probe`` step makes the adapter call that API at that point of the
scenario and put the answers in one ``probe`` event; the harness judges the answers like any other part
of the record. Each probe names the llmz call it maps to; a port in another language answers with its
own equivalent (docs/testing-llmz.md, "Answering probes"). The answers are defined in
``spec/protocol/records/llmz.md``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from conformance.scenario.common import Strict

ProbeName = Literal["guards", "iterations", "diagnostics", "snapshot", "render", "legacy", "error_class"]
"""What the adapter is asked:

* ``guards``: classify the failures of the last execute (``result.error``, each iteration's
  ``exception`` and ``errors``) with ``isLLMzError`` and the class guards, called detached; also a copy
  with another name and message, its JSON round trip, a look-alike the library did not make, a failure
  made by a second, independently loaded copy of the library, ThinkSignals from both copies, and the
  objects with a code in the parsed ``result.diagnostics()``;
* ``iterations``: each iteration of the last execute: ``iteration.error`` and ``iteration.exception``
  (its code, whether ``isLLMzError`` accepts it with that code, its ``stacktrace``);
* ``diagnostics``: ``result.diagnostics()`` and ``result.toJSON()`` of the last execute, as JSON data;
* ``snapshot``: ``session.toJSON()`` now, as JSON data, and the format version it states;
* ``render``: ``component.render(props)`` of a setup component, called by the host outside any run;
* ``legacy``: whether the previous API's snapshot signal and snapshot class are exported and whether the
  last result offers a snapshot;
* ``error_class``: construct the exported error class ``error_class`` (``new CodeFormattingError(message,
  source)`` in llmz; a port uses its own constructor) carrying the documented ``fields`` given, and read
  back its ``code``, ``critical``, those fields and its class guard. This pins catalogue entries no
  documented input provokes (CODE_FORMATTING_FAILED, INTERNAL_ERROR): the class, code, criticality and
  fields are public API even when no scenario can make the runtime raise them. It also pins SESSION_STATE's
  criticality, which the session probes (a refused execute or toJSON inside a run) report only by code.
"""

_NEEDS_COMPONENT = ("render",)
_ERROR_CLASS_KEYS = {"error_class", "message", "fields"}


class ProbeStep(Strict):
    """Ask the host API one question (see ProbeName); the answer is one ``probe`` event."""

    op: Literal["probe"]
    probe: ProbeName
    component: str | None = Field(default=None, min_length=1, description="`render`: a setup.chat component.")
    props: Any = Field(default=None, description="`render`: the props to render.")
    error_class: str | None = Field(
        default=None,
        pattern=r"^[A-Z][A-Za-z0-9]*Error$",
        description="`error_class`: the exported error class to construct (a catalogue class name).",
    )
    message: str = Field(default="made by the host", description="`error_class`: the error's message.")
    fields: dict[Literal["source", "cause"], str] = Field(
        default_factory=dict,
        description="`error_class`: documented fields to pass: `source` (a text), `cause` (the message of "
        "an ordinary Error passed as the cause).",
    )

    @model_validator(mode="after")
    def _arguments(self) -> ProbeStep:
        if self.probe in _NEEDS_COMPONENT and self.component is None:
            raise ValueError(f"probe {self.probe} needs `component` (the name of a setup.chat component)")
        if self.probe not in _NEEDS_COMPONENT and self.model_fields_set & {"component", "props"}:
            raise ValueError(f"probe {self.probe} takes no `component` or `props`; only render does")
        if self.probe == "error_class" and self.error_class is None:
            raise ValueError("probe error_class needs `error_class` (an exported error class name)")
        if self.probe != "error_class" and self.model_fields_set & _ERROR_CLASS_KEYS:
            raise ValueError(f"probe {self.probe} takes no `error_class`, `message` or `fields`")
        return self
