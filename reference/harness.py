"""The reference as an implementation under test: ``play`` in-process, or a stdio server.

``python -m reference.harness [--mutant NAME]`` speaks the protocol of ``conformance.protocol`` on
stdin/stdout, so the suite can run the reference exactly as it runs a foreign runtime.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import sys
from typing import Any

from conformance.players.common import ProviderFactory
from conformance.protocol import PROTOCOL_VERSIONS
from conformance.scenario.model import parse_case
from reference.mutants import get_mutant

NAME = "reference"
VERSION = "0.1.0"
SYSTEMS = ("llmz", "falai", "akan")


def hello_info(mutant: str | None = None) -> dict[str, Any]:
    capabilities: list[str] = []
    for system in SYSTEMS:
        module = importlib.import_module(f"reference.{system}.play")
        capabilities.extend(getattr(module, "CAPABILITIES", ()))
    return {
        "name": NAME if mutant is None else f"{NAME}[{mutant}]",
        "version": VERSION,
        "language": "python",
        "systems": list(SYSTEMS),
        "capabilities": sorted(capabilities),
    }


class CannotExpress(Exception):
    """Raised by a player for a scenario feature it does not implement: reported as a skip."""


def play(
    payload: dict[str, Any], mutant: str | None = None, provider: ProviderFactory | None = None
) -> dict[str, Any]:
    """Play one case (as sent on the wire: no title, rules or expectations) and return its record."""
    document = {k: v for k, v in payload.items() if k != "id"}
    scenario = parse_case(document)
    module = importlib.import_module(f"reference.{scenario.system}.play")
    patch = get_mutant(mutant).patch() if mutant else contextlib.nullcontext()
    with patch:
        record: dict[str, Any] = (
            module.play(scenario) if provider is None else module.play(scenario, provider)
        )
    return record


def _answer(line: str, mutant: str | None) -> dict[str, Any] | None:
    message = json.loads(line)
    command = message.get("cmd")
    if command == "hello":
        offered = [v for v in message.get("protocol", []) if v in PROTOCOL_VERSIONS]
        if not offered:
            return {"error": {"message": f"no common protocol version in {message.get('protocol')}"}}
        return {"protocol": max(offered), "implementation": hello_info(mutant)}
    if command == "run":
        seq = message["seq"]
        try:
            return {"seq": seq, "record": play(message["case"], mutant)}
        except CannotExpress as exc:
            return {"seq": seq, "skip": {"reason": str(exc)}}
        except Exception as exc:  # the harness reports it as this case's error verdict
            return {"seq": seq, "error": {"message": f"{type(exc).__name__}: {exc}"}}
    if command == "stop":
        return None
    return {"error": {"message": f"unknown command {command!r}"}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m reference.harness")
    parser.add_argument("--mutant", help="run a deliberately broken variant (see reference.mutants)")
    args = parser.parse_args(argv)
    for line in sys.stdin:
        if not line.strip():
            continue
        answer = _answer(line, args.mutant)
        if answer is None:
            return 0
        sys.stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
