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

from conformance.players import play
from conformance.scenario.load import LoadedScenario, LoadError, load_all

#: One scenario per system that reads well as a conversation; override with --scenario.
DEFAULT_SCENARIOS = (
    "llmz/think-signal/returned-signal-beats-exit",
    "falai/routing/new-flow-at-40-starts",
    "akan/compaction/cut-opens-on-assistant",
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


def _turn(event: dict[str, Any]) -> list[str]:
    lines = [f"  start  {s.get('runId')}" for s in event.get("started", [])]
    for message in event.get("messages", []):
        lines.append(f"  agent  {_short(message.get('text', ''))}  [{message.get('kind', '')}]")
    lines += [f"  code   {_short(o)}" for o in event.get("outcomes", [])]
    return lines or [f"  turn   {_short({k: v for k, v in event.items() if k != 'type'})}"]


def _tool_call(event: dict[str, Any]) -> list[str]:
    args = event.get("input", event.get("arguments"))
    shown = f"  tool   {event.get('name')}({_short(args, 60)})"
    if "output" in event:
        shown += f" → {_short(event['output'], 60)}"
    if "error" in event:
        shown += f" ✗ {_short(event['error'], 60)}"
    return [shown]


PRINTERS: dict[str, Callable[[dict[str, Any]], list[str]]] = {
    "model_request": lambda e: [f"  ·····  model call {e.get('call')} ({e.get('purpose', 'turn')})"],
    "model_response": _model_response,
    "turn": _turn,
    "tool_call": _tool_call,
    "tool_result": lambda e: [f"         ↳ {_short(e.get('content'), 80)}"],
    "delivery": lambda e: [f"  agent  {_short(e.get('content') or e.get('text') or e.get('props'))}"],
    "exit": lambda e: [f"  exit   {e.get('name')} {_short(e.get('payload'), 80)}"],
    "error": lambda e: [f"  error  {e.get('code')}: {_short(e.get('message', ''), 80)}"],
}


def _steps(loaded: LoadedScenario) -> list[str]:
    lines = []
    for step in loaded.document.get("steps", []):
        text = step.get("text") or step.get("messages") or step.get("event") or step.get("op")
        lines.append(f"  step   {step.get('op')}: {_short(text, 90)}")
    return lines


def render(loaded: LoadedScenario, record: dict[str, Any]) -> str:
    title = textwrap.wrap(loaded.scenario.title, 100, initial_indent="   ")
    lines = [f"── {loaded.id}", *title, *_steps(loaded)]
    for event in record["events"]:
        lines.extend(PRINTERS.get(event["type"], _generic)(event))
    if record.get("final"):
        lines.append(f"  final  {_short(record['final'], 200)}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance.demo")
    parser.add_argument("--scenario", action="append", help="scenario id to play (repeatable)")
    args = parser.parse_args(argv)
    wanted = args.scenario or list(DEFAULT_SCENARIOS)
    loaded = {item.id: item for item in load_all()}
    status = 0
    for sid in wanted:
        item = loaded.get(sid)
        if item is None or isinstance(item, LoadError):
            reason = item.message if isinstance(item, LoadError) else "no such scenario"
            print(f"── {sid}: not available ({reason})")
            status = 1
            continue
        print(render(item, play(item.payload)))
        print()
    return status


if __name__ == "__main__":
    raise SystemExit(main())
