"""A ``python:<module>:<factory>`` implementation: ``python:fakes.pyimpl:make``."""

from __future__ import annotations

import contextlib
import os
import signal
from typing import Any

from fakes.fake_impl import minimal_record


class CannotExpress(Exception):
    pass


class FakePython:
    def hello(self) -> dict[str, Any]:
        return {
            "name": "fake-python",
            "version": "1",
            "language": "python",
            "systems": ["llmz", "falai", "akan"],
        }

    def run(self, payload: dict[str, Any]) -> dict[str, Any]:
        name = str(payload.get("id") or "").rsplit("/", 1)[-1]
        if name.endswith("fake-skip"):
            raise CannotExpress("fake python cannot express this")
        if name.endswith("fake-crash"):
            raise RuntimeError("fake python blew up")
        if name.endswith("fake-sysexit"):
            raise SystemExit(0)
        if name.endswith("fake-keyboard"):
            raise KeyboardInterrupt
        if name.endswith("fake-genexit"):
            raise GeneratorExit
        if name.endswith("fake-swallowed-stop"):
            _drop_a_stop()
        if name.endswith("fake-osexit"):
            os._exit(9)  # no exception to contain: the process is gone (a worker of run --jobs)
        return minimal_record(str(payload.get("system")), received=sorted(payload))


def _drop_a_stop() -> None:
    """What a SIGTERM handled inside a ``__del__`` or a gc callback leaves: the stop noted, its exception
    dropped (Python prints it as "Exception ignored in" and goes on)."""
    from conformance import stopping

    with contextlib.suppress(stopping.Stopped):
        stopping._on_signal(signal.SIGTERM, None)


def make() -> FakePython:
    return FakePython()


class ExitingHello(FakePython):
    """hello() ends the process as a success, if the harness lets it (issue 23)."""

    def hello(self) -> dict[str, Any]:
        raise SystemExit(0)


class ExitingClose(FakePython):
    def close(self) -> None:
        raise SystemExit(0)


def make_exiting_hello() -> ExitingHello:
    return ExitingHello()


def make_exiting_close() -> ExitingClose:
    return ExitingClose()


def make_exiting_factory() -> FakePython:
    raise SystemExit(0)
