"""Answers the llmz ``probe`` step (conformance.scenario.llmz_probes) with the reference's host API.

Each probe calls what a Python host of the reference would call: the guards (through the session's
policies, so a mutant's guards answer), the iterations and exports of the last ``ExecutionResult``, the
session's ``to_json``, a standalone ``render``. The "second copy of the library" the guard probes need is
the reference's error and signal modules loaded again under another module name: new classes, the same
brand, which is what a second import of llmz gives a JavaScript host.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Callable, Iterator
from functools import cache
from types import ModuleType
from typing import Any

import reference.llmz as library
from conformance.scenario.llmz import Setup
from conformance.scenario.llmz_probes import ProbeStep
from reference.llmz import Component, LlmzError, Policies, Session, ThinkSignal
from reference.llmz.api import ExecutionResult
from reference.llmz.errors import CATALOGUE
from reference.llmz.render import render

FOREIGN_CODE = "INVALID_MESSAGE"
"""The code of the failure the second copy makes (an invalid message appended to one of its sessions)."""


@cache
def second_copy(module: str) -> ModuleType:
    """``module`` loaded again from its file under another name: distinct classes, same source."""
    found = importlib.util.find_spec(module)
    assert found is not None and found.origin is not None
    spec = importlib.util.spec_from_file_location(f"{module}__second_copy", found.origin)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = loaded  # as an import would: dataclasses look their module up there
    spec.loader.exec_module(loaded)
    return loaded


def _other_code(code: str) -> str:
    return "INTERNAL_ERROR" if code != "INTERNAL_ERROR" else "INVALID_CODE"


class Guards:
    """The guards of one runtime (its policies), as a host calls them: detached functions."""

    def __init__(self, policies: Policies) -> None:
        self.policies = policies

    def is_llmz_error(self, value: object, code: str) -> bool:
        return self.policies.recognises(value, code)

    def class_guard(self, code: str) -> Callable[[object], bool]:
        guard = self.policies.class_guard(CATALOGUE[code][0], self.policies.recognises)
        return guard  # detached: a plain function, not called through its class

    def pair(self, value: object, code: str, prefix: str = "") -> dict[str, bool]:
        return {
            f"{prefix}is_llmz_error": self.is_llmz_error(value, code),
            f"{prefix}class_guard": self.class_guard(code)(value),
        }

    def failure(self, error: LlmzError) -> dict[str, Any]:
        code, other = error.code, _other_code(error.code)
        renamed = Exception.__new__(type(error))
        renamed.__dict__.update(error.__dict__)
        renamed.class_name, renamed.message = "Error", "renamed by the host"
        parsed = json.loads(
            json.dumps(
                {"name": error.class_name, "code": code, "message": error.message, "critical": error.critical}
            )
        )
        forged = Exception(error.message)
        for key, value in parsed.items():
            setattr(forged, key, value)
        return {
            "code": code,
            "is_llmz_error": self.is_llmz_error(error, code),
            "other_code": self.is_llmz_error(error, other),
            "class_guard": self.class_guard(code)(error),
            "other_class_guard": self.class_guard(other)(error),
            "renamed": self.class_guard(code)(renamed),
            **self.pair(parsed, code, "json_"),
            **self.pair(forged, code, "forged_"),
        }

    def foreign(self) -> dict[str, Any]:
        made = second_copy("reference.llmz.errors").LlmzError(FOREIGN_CODE, "not a message")
        return {
            "code": made.code,
            "is_instance": isinstance(made, LlmzError),
            "is_llmz_error": self.is_llmz_error(made, FOREIGN_CODE),
            "class_guard": self.class_guard(FOREIGN_CODE)(made),
            "other_class_guard": self.class_guard(_other_code(FOREIGN_CODE))(made),
        }

    def think_signal(self) -> dict[str, bool]:
        foreign = second_copy("reference.llmz.api").ThinkSignal("look")
        return {
            "local": self.policies.is_think_signal(ThinkSignal("look")),
            "foreign": self.policies.is_think_signal(foreign),
            "plain": self.policies.is_think_signal(Exception("look")),
        }

    def parsed_diagnostics(self, result: ExecutionResult) -> dict[str, int]:
        coded = [item for item in _objects(json.loads(json.dumps(result.diagnostics()))) if _has_code(item)]
        accepted = [
            item for item in coded if any(self.pair(item, item["code"]).values()) if item["code"] in CATALOGUE
        ]
        return {"coded": len(coded), "accepted": len(accepted)}


def _has_code(item: dict[str, Any]) -> bool:
    return isinstance(item.get("code"), str)


def _objects(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from _objects(item)
    elif isinstance(value, list):
        for item in value:
            yield from _objects(item)


def failures_of(result: ExecutionResult) -> list[LlmzError]:
    """``result.error`` and each iteration's ``exception`` and ``errors``, each object once."""
    found: list[LlmzError] = []
    candidates = [result.error]
    for iteration in result.iterations:
        candidates += [iteration.exception, *iteration.errors]
    for candidate in candidates:
        if isinstance(candidate, LlmzError) and all(candidate is not seen for seen in found):
            found.append(candidate)
    return found


def _error(error: LlmzError) -> dict[str, Any]:
    record = error.as_record()
    return {key: record[key] for key in ("code", "class", "recoverable", "message")}


def answer(
    step: ProbeStep, setup: Setup, session: Session, result: ExecutionResult | None, policies: Policies
) -> dict[str, Any]:
    """The fields of the ``probe`` event for one step."""
    fields: dict[str, Any] = {"probe": step.probe}
    if step.probe == "snapshot":
        try:
            saved = json.loads(json.dumps(session.to_json()))
        except LlmzError as error:
            return {**fields, "error": _error(error)}
        version = {"version": saved["version"]} if "version" in saved else {}
        return {**fields, "snapshot": saved, **version}
    if step.probe == "render":
        return {**fields, **_render(step, setup, policies)}
    if step.probe == "legacy":
        return {
            **fields,
            "legacy": {
                "snapshot_signal": hasattr(library, "SnapshotSignal"),
                "snapshot_class": hasattr(library, "Snapshot"),
                "result_snapshot": result is not None and getattr(result, "snapshot", None) is not None,
            },
        }
    if step.probe == "error_class":
        return {**fields, "constructed": _constructed(step, policies)}
    if result is None:
        raise ValueError(f"steps: probe {step.probe} needs an earlier execute step")
    guards = Guards(policies)
    if step.probe == "guards":
        return {
            **fields,
            "failures": [guards.failure(error) for error in failures_of(result)],
            "foreign": guards.foreign(),
            "think_signal": guards.think_signal(),
            "parsed_diagnostics": guards.parsed_diagnostics(result),
        }
    if step.probe == "iterations":
        return {**fields, "iterations": [_iteration(it, guards, policies) for it in result.iterations]}
    return {
        **fields,
        "diagnostics": json.loads(json.dumps(result.diagnostics())),
        "summary": json.loads(json.dumps(result.to_json())),
    }


def _iteration(iteration: Any, guards: Guards, policies: Policies) -> dict[str, Any]:
    exception = iteration.exception
    described: dict[str, Any] | None = None
    if isinstance(exception, LlmzError):
        described = {"code": exception.code, "typed": guards.is_llmz_error(exception, exception.code)}
        trace = policies.stacktrace(exception)
        if trace is not None:
            described["stacktrace"] = trace
    elif exception is not None:
        described = {"code": str(exception), "typed": False}
    error = iteration.error
    return {"index": iteration.index, "error": error, "exception": described}


def _render(step: ProbeStep, setup: Setup, policies: Policies) -> dict[str, Any]:
    from conformance.players.llmz import _effects  # the same translation the chat components get
    from conformance.scenario.invalid import raw

    spec = next((c for c in setup.chat.components if raw(c.name) == step.component), None)
    if spec is None:
        raise ValueError(
            f"steps: probe render names component {step.component!r}, not in setup.chat.components"
        )
    component = Component(str(raw(spec.name)), props=spec.props, effects=_effects(spec.effects))
    try:
        return {"rendered": render(component, step.props, policies)}
    except LlmzError as error:
        return {"error": _error(error)}


def _plain(value: object) -> object:
    """A field as the record carries it: an exception as its message."""
    return str(value) if isinstance(value, Exception) else value


def _constructed(step: ProbeStep, policies: Policies) -> dict[str, Any]:
    """A host constructing the exported error class ``step.error_class`` (the cause as an ordinary
    exception), and what the made failure carries (llmz.errors.code-formatting-failed)."""
    assert step.error_class is not None
    given: dict[str, object] = {
        key: (Exception(value) if key == "cause" else value) for key, value in step.fields.items()
    }
    made = policies.exported_error(step.error_class, step.message, given)
    if made is None:
        return {"exported": False}
    carried = {key: _plain(made.details.get(key)) for key in step.fields}
    return {
        "exported": True,
        "code": made.code,
        "critical": made.critical,
        "fields": carried,
        "class_guard": policies.class_guard(step.error_class, policies.recognises)(made),
    }
