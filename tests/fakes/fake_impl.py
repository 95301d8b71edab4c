"""A tiny stdio implementation whose behaviour is chosen per case, to exercise every harness failure path.

It speaks the protocol of ``conformance.protocol`` without importing the project (a foreign runtime would
not have it either). The behaviour comes from the command line, or per case from the case's id when its
last segment contains ``fake-<behaviour>`` (``area/a-fake-crash``): a case carries no description.

good      answer with a record that follows the case's system's record schema: one harmless event of that
          system carrying ``received``, the keys of the case it received (so tests can prove the answer
          key never arrives), the system's minimal final state, ``final.status = "ok"`` (akan and falai,
          where ``status`` is an extra field; llmz's own ``status`` is ``idle``) and a random
          ``final.run_id`` (volatile, normalised by the harness)
hang      never answer the run
garbage   answer with a line that is not JSON
crash     exit with status 3 after writing a last word to stderr
wrong-seq answer with seq + 100
bad-record answer with a record whose event lacks ``type``
skip      answer with a skip
refuse    answer with an error
"""

from __future__ import annotations

import json
import sys
import time
import uuid
from typing import Any

#: per system: an event of its vocabulary that claims nothing, and the smallest valid final state
#: (spec/protocol/records/<system>.schema.json)
MINIMAL: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "llmz": (
        {"type": "summary", "content": "fake"},
        {"status": "idle", "transcript": [], "messages": [], "pending": 0, "variables": []},
    ),
    "falai": (
        {"type": "action", "name": "fake", "runId": "fake", "params": {}, "known": False},
        {
            "status": "ok",
            "now": 0,
            "session": {
                "floor": None,
                "runs": [],
                "claims": [],
                "data": {},
                "history": [],
                "lastAssistantAt": None,
            },
        },
    ),
    "akan": (
        {"type": "speak", "sentence": "fake"},
        {
            "status": "ok",
            "transcript": [],
            "tokens": 0,
            "composer": [],
            "is_running": False,
            "is_compacting": False,
            "route": "/",
            "commands": [],
        },
    ),
}


def minimal_record(system: str, **extra: Any) -> dict[str, Any]:
    """A record of ``system`` that its record schema accepts; ``extra`` goes on the event."""
    event, final = MINIMAL.get(system, MINIMAL["akan"])
    return {"events": [{**event, **extra}], "final": dict(final)}


def _record(case: dict[str, Any]) -> dict[str, Any]:
    record = minimal_record(str(case.get("system")), received=sorted(case), id=uuid.uuid4().hex)
    record["final"]["run_id"] = uuid.uuid4().hex
    return record


def _behaviour(default: str, case: dict[str, Any]) -> str:
    name = str(case.get("id") or "").rsplit("/", 1)[-1]
    return name.split("fake-", 1)[1] if "fake-" in name else default


def _answer(seq: int, scenario: dict[str, Any], behaviour: str) -> dict[str, Any] | None:
    if behaviour == "hang":
        time.sleep(3600)
    if behaviour == "garbage":
        sys.stdout.write("this is not json at all\n")
        sys.stdout.flush()
        return None
    if behaviour == "crash":
        sys.stderr.write("fake: crashing on purpose\n")
        sys.stderr.flush()
        sys.exit(3)
    answers: dict[str, dict[str, Any]] = {
        "wrong-seq": {"seq": seq + 100, "record": _record(scenario)},
        "bad-record": {"seq": seq, "record": {"events": [{"text": "no type"}], "final": {}}},
        "skip": {"seq": seq, "skip": {"reason": "fake cannot express this"}},
        "refuse": {"seq": seq, "error": {"message": "fake refused to play"}},
    }
    return answers.get(behaviour, {"seq": seq, "record": _record(scenario)})


def serve(default: str = "good", systems: tuple[str, ...] = ("llmz", "falai", "akan")) -> None:
    sys.stderr.write(f"fake implementation started ({default})\n")
    sys.stderr.flush()
    for line in sys.stdin:
        message = json.loads(line)
        if message["cmd"] == "hello":
            reply: dict[str, Any] | None = {
                "protocol": 2,
                "implementation": {
                    "name": f"fake-{default}",
                    "version": "0.0.1",
                    "language": "python",
                    "systems": list(systems),
                    "capabilities": ["fake-capability"],
                },
            }
        elif message["cmd"] == "run":
            reply = _answer(message["seq"], message["case"], _behaviour(default, message["case"]))
        else:
            return
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    behaviour = sys.argv[1] if len(sys.argv) > 1 else "good"
    serve(behaviour, tuple(sys.argv[2].split(",")) if len(sys.argv) > 2 else ("llmz", "falai", "akan"))
