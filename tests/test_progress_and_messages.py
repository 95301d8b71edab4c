"""Progress while running, and plain one-paragraph errors for a python: factory that breaks its contract."""

from __future__ import annotations

import io
import sys
import types
from collections import Counter

import pytest

from conformance.adapters.base import AdapterError
from conformance.adapters.python_factory import CONTRACT, PythonAdapter, load_factory
from conformance.progress import Progress
from conformance.runner import CaseResult


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def play(progress: Progress) -> None:
    for case_id, verdict in [("llmz/a/1", "pass"), ("llmz/a/2", "fail"), ("falai/a/1", "error")]:
        progress.advance(CaseResult(case_id, [], verdict))
    progress.close()


def test_in_a_log_each_system_gets_one_line_with_its_failures(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    out = io.StringIO()
    play(Progress(Counter({"llmz": 2, "falai": 1}), out))
    lines = out.getvalue().splitlines()
    assert [line.split(" (")[0] for line in lines] == [
        "llmz: 2/2 cases, 1 failing",
        "falai: 1/1 cases, 1 failing",
    ]


def test_on_a_terminal_the_line_is_rewritten_after_every_case(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    out = Terminal()
    play(Progress(Counter({"llmz": 2, "falai": 1}), out))
    text = out.getvalue()
    assert text.count("\r\x1b[K") == 3 and "llmz: 1/2 cases, 0 failing" in text
    assert text.endswith("falai: 1/1 cases, 1 failing\n")


def module(name: str, **attributes: object) -> str:
    made = types.ModuleType(name)
    made.__dict__.update(attributes)
    sys.modules[name] = made
    return name


@pytest.mark.parametrize(
    ("target", "problem"),
    [
        ("no_such_module_here:make", "importing no_such_module_here failed (ModuleNotFoundError"),
        (f"{module('fake_factory_a')}:make", "fake_factory_a has nothing named make"),
        (f"{module('fake_factory_b', make=3)}:make", "has a int named make, not a callable"),
        (f"{module('fake_factory_c', make=lambda: 1 / 0)}:make", "calling make() raised ZeroDivisionError"),
        (
            f"{module('fake_factory_d', make=lambda: object())}:make",
            "returned a object without hello() and run()",
        ),
        ("justamodule", "the spec needs the form <module>:<factory>"),
    ],
)
def test_a_broken_factory_is_one_paragraph_naming_the_contract(target: str, problem: str) -> None:
    with pytest.raises(AdapterError) as caught:
        load_factory(target)
    message = str(caught.value)
    assert problem in message and message.endswith(CONTRACT) and "\n" not in message


def test_a_wrong_hello_answer_names_the_fields_and_the_contract() -> None:
    class Impl:
        def hello(self) -> dict[str, object]:
            return {"name": "x"}

        def run(self, payload: dict[str, object]) -> dict[str, object]:
            return {}

    with pytest.raises(AdapterError, match=r"hello\(\) returned dict \(version: Field required") as caught:
        PythonAdapter(Impl(), "m:f").hello()
    assert str(caught.value).endswith(CONTRACT)
