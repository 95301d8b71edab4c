"""``python:<module>:<factory>``: an implementation written in Python, loaded in-process.

The factory (called with no arguments) returns an object with ``hello() -> dict`` (the fields of
``ImplementationInfo``) and ``run(payload) -> record dict``. Raising an exception whose class is named
``CannotExpress`` means skip; any other exception is an error. Each run happens on a daemon thread so a
hanging implementation becomes a timeout error instead of a hung suite (the thread itself cannot be
killed, so after a timeout the object is considered poisoned and later cases are errors too).
"""

from __future__ import annotations

import importlib
import json
import queue
import threading
from typing import Any, Protocol

from conformance.adapters.base import AdapterError, Outcome
from conformance.protocol import ImplementationInfo


class PythonImplementation(Protocol):
    def hello(self) -> dict[str, Any]: ...

    def run(self, payload: dict[str, Any]) -> dict[str, Any]: ...


def load_factory(target: str) -> PythonImplementation:
    module_name, _, attribute = target.rpartition(":")
    if not module_name or not attribute:
        raise AdapterError(f"python adapter spec needs <module>:<factory>, got {target!r}")
    try:
        factory = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as exc:
        raise AdapterError(f"cannot load {target!r}: {exc}") from exc
    implementation: PythonImplementation = factory()
    return implementation


class PythonAdapter:
    def __init__(self, implementation: PythonImplementation) -> None:
        self._impl = implementation
        self._poisoned: str | None = None

    def hello(self) -> ImplementationInfo:
        try:
            return ImplementationInfo.model_validate(self._impl.hello())
        except Exception as exc:
            raise AdapterError(f"hello() failed: {type(exc).__name__}: {exc}") from exc

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
        except Exception as exc:
            if type(exc).__name__ == "CannotExpress":
                return Outcome(skip=str(exc) or "cannot express this scenario")
            return Outcome(error=f"run() raised {type(exc).__name__}: {exc}")
        try:
            return Outcome(record=json.loads(json.dumps(record)))
        except (TypeError, ValueError) as exc:
            return Outcome(error=f"the record is not JSON data: {exc}")

    def close(self) -> None:
        close = getattr(self._impl, "close", None)
        if callable(close):
            close()
