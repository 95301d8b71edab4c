"""``python:<module>:<factory>``: an implementation written in Python, loaded in-process.

The factory (called with no arguments) returns an object with ``hello() -> dict`` (the fields of
``ImplementationInfo``) and ``run(payload) -> record dict``. Raising an exception whose class is named
``CannotExpress`` means skip; any other exception is an error, ``BaseException`` included: ``SystemExit``,
a ``KeyboardInterrupt`` the implementation raises itself or ``GeneratorExit`` costs that case (or, from
``hello()``, the start), never the run (issue 23); only a stop the user asked for passes
(``conformance.stopping``). Each run happens on a daemon thread so a
hanging implementation becomes a timeout error instead of a hung suite (the thread itself cannot be
killed, so after a timeout the object is considered poisoned and later cases are errors too).
"""

from __future__ import annotations

import importlib
import json
import os
import queue
import sys
import threading
from typing import Any, Protocol

from pydantic import ValidationError

from conformance import stopping
from conformance.adapters.base import AdapterError, Outcome
from conformance.protocol import ImplementationInfo


class PythonImplementation(Protocol):
    def hello(self) -> dict[str, Any]: ...

    def run(self, payload: dict[str, Any]) -> dict[str, Any]: ...


CONTRACT = (
    "The python:<module>:<factory> contract: <module> must be importable by the harness's own interpreter "
    "(installed in its environment, in the current directory or on PYTHONPATH); <factory> is a callable "
    "taking no arguments that returns an object with hello() returning a dict (name, version, language, "
    "systems, and optionally capabilities) and run(case) taking the case as a dict and returning the "
    "record as a dict; run() raises an exception whose class is named CannotExpress to skip a case, and "
    "close() is optional. See docs/testing-your-runtime.md, 'A Python implementation'."
)


def contract_error(target: str, problem: str) -> AdapterError:
    """One paragraph: what went wrong with ``python:<target>`` and what the contract asks for."""
    return AdapterError(f"python:{target}: {problem}. {CONTRACT}")


def load_factory(target: str) -> PythonImplementation:
    """Import the module, call the factory and check the object it returns; errors name the contract."""
    module_name, _, attribute = target.rpartition(":")
    if not module_name or not attribute:
        raise contract_error(target, "the spec needs the form <module>:<factory>")
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # as under `python -m conformance`, so the console script agrees
    try:
        module = importlib.import_module(module_name)
    except BaseException as exc:  # a syntax error or a failing import inside the module is the user's to see
        _let_stops_through(exc)
        raise contract_error(target, f"importing {module_name} failed ({type(exc).__name__}: {exc})") from exc
    factory = getattr(module, attribute, None)
    if not callable(factory):
        found = "nothing" if factory is None else f"a {type(factory).__name__}"
        raise contract_error(target, f"{module_name} has {found} named {attribute}, not a callable factory")
    try:
        implementation = factory()
    except BaseException as exc:
        _let_stops_through(exc)
        raise contract_error(target, f"calling {attribute}() raised {type(exc).__name__}: {exc}") from exc
    missing = [name for name in ("hello", "run") if not callable(getattr(implementation, name, None))]
    if missing:
        raise contract_error(
            target,
            f"{attribute}() returned a {type(implementation).__name__} without "
            f"{' and '.join(m + '()' for m in missing)}",
        )
    checked: PythonImplementation = implementation
    return checked


class PythonAdapter:
    def __init__(self, implementation: PythonImplementation, target: str = "<module>:<factory>") -> None:
        self._impl = implementation
        self._target = target
        self._poisoned: str | None = None

    def hello(self) -> ImplementationInfo:
        try:
            answer = self._impl.hello()
        except BaseException as exc:
            _let_stops_through(exc)
            raise contract_error(self._target, f"hello() raised {type(exc).__name__}: {exc}") from exc
        try:
            return ImplementationInfo.model_validate(answer)
        except ValidationError as exc:
            fields = "; ".join(
                f"{'.'.join(map(str, e['loc'])) or '(the answer)'}: {e['msg']}" for e in exc.errors()[:4]
            )
            problem = f"hello() returned {type(answer).__name__} ({fields})"
            raise contract_error(self._target, problem) from exc

    def run(self, payload: dict[str, Any], timeout: float) -> Outcome:
        if self._poisoned:
            return Outcome(error=f"not run: {self._poisoned}")
        answers: queue.Queue[Outcome] = queue.Queue()
        thread = threading.Thread(target=lambda: answers.put(self._play(payload)), daemon=True)
        thread.start()
        try:
            return answers.get(timeout=timeout)
        except queue.Empty:
            self._poisoned = f"an earlier case hung for more than {timeout:g}s"
            return Outcome(error=f"timeout: no record within {timeout:g}s")

    def _play(self, payload: dict[str, Any]) -> Outcome:
        try:
            record = self._impl.run(json.loads(json.dumps(payload)))
        except BaseException as exc:  # on this thread every exception is the implementation's
            if type(exc).__name__ == "CannotExpress":
                return Outcome(skip=str(exc) or "cannot express this scenario")
            return Outcome(error=f"run() raised {type(exc).__name__}: {exc}")
        if not isinstance(record, dict):
            kind = type(record).__name__
            return Outcome(error=f"run() returned a {kind}, not a record dict (see the python: contract)")
        try:
            return Outcome(record=json.loads(json.dumps(record)))
        except (TypeError, ValueError) as exc:
            return Outcome(error=f"the record is not JSON data: {exc}")

    def close(self) -> None:
        close = getattr(self._impl, "close", None)
        if callable(close):
            try:
                close()
            except BaseException as exc:  # the verdicts are in: a failing close() cannot change them
                _let_stops_through(exc)


def _let_stops_through(exc: BaseException) -> None:
    """Re-raise a stop the user asked for (Ctrl-C, SIGTERM); anything else is the implementation's."""
    if stopping.let_through(exc):
        raise exc
