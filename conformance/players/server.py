"""The reference as an implementation under test over stdio: ``python -m conformance.players.server``.

It speaks the protocol of ``conformance.protocol`` on stdin/stdout, so the suite can run the reference
exactly as it runs a foreign runtime (``--variant NAME`` plays a mutant or a permitted variant). It is
also the smallest correct server to read when writing an adapter of your own.
"""

from __future__ import annotations

import argparse
import json
import sys
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance.players.server")
    parser.add_argument(
        "--variant", "--mutant", dest="variant", help="play a mutant or a permitted variant (see variants)"
    )
    args = parser.parse_args(argv)
    variant = _variant(args.variant)
    for line in sys.stdin:
        if not line.strip():
            continue
        answer = _answer(line, args.variant, variant)
        if answer is None:
            return 0
        sys.stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    status = main()
    exiting()
    raise SystemExit(status)
