"""``nox -s demo``: play one scenario of each system on the reference and print it as a conversation.

No API key and no network: the model is the scenario's script. The printer reads only the record, so
what it shows is exactly what the conformance suite judges.
"""

from __future__ import annotations

import argparse
import json
import textwrap
from collections.abc import Callable
from typing import Any

from conformance.scenario.load import LoadedScenario, LoadError, load_all
from reference.harness import play

#: One scenario per system that reads well as a conversation; override with --scenario.
DEFAULT_SCENARIOS = (
    "llmz/think-signal/returned-signal-forces-inspection",
    "falai/routing/new-flow-at-40-starts",
    "akan/compaction/cut-on-assistant-when-tail-is-tools",
)


def _short(value: Any, width: int = 100) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _model_response(event: dict[str, Any]) -> list[str]:
    lines = []
    if event.get("failure"):
        lines.append(f"  model  ✗ {_short(event['failure'])}")
    if event.get("text"):
        lines.append(f"  model  {_short(event['text'])}")
    for call in event.get("tool_calls", []):
        code = call.get("code") or json.dumps(call.get("arguments"))
        lines.append(f"  model  ⟨{call.get('name')}⟩")
        lines.extend("         │ " + line for line in (code or "").splitlines())
    if event.get("json") is not None:
        lines.append(f"  model  {_short(event['json'])}")
    return lines


def _generic(event: dict[str, Any]) -> list[str]:
    fields = {k: v for k, v in event.items() if k != "type"}
    return [f"  {event['type']:<6} {_short(fields)}"]


PRINTERS: dict[str, Callable[[dict[str, Any]], list[str]]] = {
    "model_request": lambda e: [f"  ·····  model call {e.get('call')} ({e.get('purpose', 'turn')})"],
    "model_response": _model_response,
}


def render(loaded: LoadedScenario, record: dict[str, Any]) -> str:
    lines = [f"── {loaded.id}", *textwrap.wrap(loaded.scenario.title, 100, initial_indent="   ")]
    for event in record["events"]:
        lines.extend(PRINTERS.get(event["type"], _generic)(event))
    if record.get("final"):
        lines.append(f"  final  {_short(record['final'], 200)}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m reference.demo")
    parser.add_argument("--scenario", action="append", help="scenario id to play (repeatable)")
    args = parser.parse_args(argv)
    wanted = args.scenario or list(DEFAULT_SCENARIOS)
    loaded = {item.id: item for item in load_all()}
    status = 0
    for sid in wanted:
        item = loaded.get(sid) or next((v for k, v in sorted(loaded.items()) if k.startswith(sid.split("/")[0])), None)
        if item is None or isinstance(item, LoadError):
            print(f"── {sid}: not available ({item.message if isinstance(item, LoadError) else 'no such scenario'})")
            status = 1
            continue
        print(render(item, play(item.payload)))
        print()
    return status


if __name__ == "__main__":
    raise SystemExit(main())
