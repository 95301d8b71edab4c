"""The reference as an implementation under test over stdio: ``python -m conformance.players.server``.

It speaks the protocol of ``conformance.protocol`` on stdin/stdout, so the suite can run the reference
exactly as it runs a foreign runtime (``--variant NAME`` plays a mutant or a permitted variant). It is
also the smallest correct server to read when writing an adapter of your own.
"""

from __future__ import annotations

import gc
import importlib
import json
import os
import sys
import types
from typing import Any

from conformance.exiting import exiting
from conformance.players import CannotExpress, hello_info, play, resolve_variant
from conformance.protocol_versions import PROTOCOL_VERSIONS


def _variant(name: str | None) -> Any:
    if name is None:
        return None
    try:
        return resolve_variant(name)
    except KeyError as exc:
        raise SystemExit(str(exc.args[0])) from exc


def _answer(line: str, name: str | None, variant: Any) -> dict[str, Any] | None:
    message = json.loads(line)
    command = message.get("cmd")
    if command == "hello":
        offered = [v for v in message.get("protocol", []) if v in PROTOCOL_VERSIONS]
        if not offered:
            return {"error": {"message": f"no common protocol version in {message.get('protocol')}"}}
        return {"protocol": max(offered), "implementation": hello_info(name)}
    if command == "run":
        seq = message["seq"]
        try:
            return {"seq": seq, "record": play(message["case"], variant)}
        except CannotExpress as exc:
            return {"seq": seq, "skip": {"reason": str(exc)}}
        except Exception as exc:  # the harness reports it as this case's error verdict
            return {"seq": seq, "error": {"message": f"{type(exc).__name__}: {exc}"}}
    if command == "stop":
        return None
    return {"error": {"message": f"unknown command {command!r}"}}


def _variant_name(argv: list[str]) -> str | None:
    """The ``--variant`` asked for. argparse is imported only when there are arguments: the plain server,
    which is what a run over stdio starts, saves its import at every start."""
    if not argv:
        return None
    import argparse

    parser = argparse.ArgumentParser(prog="python -m conformance.players.server")
    parser.add_argument(
        "--variant", "--mutant", dest="variant", help="play a mutant or a permitted variant (see variants)"
    )
    name: str | None = parser.parse_args(argv).variant
    return name


def skip_pydantic_plugin_discovery() -> None:
    """Tell pydantic, before it first looks, that this process uses no pydantic plugins.

    Why: the first validator pydantic builds looks for plugins among the entry points of every installed
    distribution, importing ``importlib.metadata`` (and with it ``email``, ``zipfile``, ``csv``) to scan
    them: about a tenth of this server's start-up, paid again by every child a run starts, for validators
    that never use a plugin. ``PYDANTIC_DISABLE_PLUGINS=__all__`` is pydantic's own switch for "no
    plugins"; it skips the scan but not the import, so the module doing both
    (``pydantic.plugin._loader``, whose one entry point is ``get_plugins``) is given as one that answers
    what the switch makes it answer. A user who set the variable (to keep some plugins) gets pydantic's
    own behaviour, and so does a process that already imported the loader.
    """
    loader = "pydantic.plugin._loader"
    if "PYDANTIC_DISABLE_PLUGINS" in os.environ or loader in sys.modules:
        return
    os.environ["PYDANTIC_DISABLE_PLUGINS"] = "__all__"
    stub = types.ModuleType(loader, "No pydantic plugins (conformance.players.server).")
    stub.get_plugins = lambda: ()  # type: ignore[attr-defined]

    def real(name: str) -> Any:
        """Anything else a pydantic version asks of the module comes from the real one (imported then),
        so a pydantic whose loader changed costs this server its saving, never its correctness."""
        if name.startswith("__"):  # the import system's own probes (``__path__``): a plain module has none
            raise AttributeError(name)
        sys.modules.pop(loader, None)
        return getattr(importlib.import_module(loader), name)

    stub.__getattr__ = real  # type: ignore[method-assign]
    sys.modules[loader] = stub


def main(argv: list[str] | None = None, *, own_process: bool = False) -> int:
    """Serve stdin until ``stop`` or end of input. ``own_process``: this server is the whole process (its
    ``__main__``), so it may tune the process for a short life; a caller that goes on after it returns
    (a test) leaves the collector and pydantic as they were."""
    name = _variant_name(sys.argv[1:] if argv is None else argv)
    variant = _variant(name)
    if own_process:
        skip_pydantic_plugin_discovery()
        # Until the first case is answered the heap only grows (the player, the reference and pydantic
        # are imported and the case's validator built), so collecting finds next to nothing while
        # scanning more and more: a tenth of the start-up. After it, the start-up heap is frozen (never
        # scanned again) and the collector runs as usual over what the cases create.
        gc.disable()
    played = not own_process
    for line in sys.stdin:
        if not line.strip():
            continue
        answer = _answer(line, name, variant)
        if answer is None:
            return 0
        sys.stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
        sys.stdout.flush()
        if not played and "seq" in answer:
            played = True
            gc.freeze()
            gc.enable()
    return 0


if __name__ == "__main__":
    status = main(own_process=True)
    exiting()
    raise SystemExit(status)
