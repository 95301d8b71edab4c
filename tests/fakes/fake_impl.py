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

Hostile behaviours (the reliability suite, ``tests/test_reliability_stdio.py``):

grandchild-exit    start a grandchild that inherits stdout and sleeps, then exit (code 5)
grandchild-hang    start such a grandchild, then hang
grandchild-escape  start such a grandchild in a new session (out of our process group), then exit
segfault           die by SIGSEGV;  abort: die by SIGABRT;  exit139: exit with status 139;  exit0: exit 0
stray-after        answer, then write a log line to stdout
stray-before       write a log line to stdout, then answer
duplicate          answer twice
nan                answer with a record holding a bare NaN (not JSON)
deep               answer with a record nested 100,000 levels deep
huge-line          write 3 MB without a newline (over a small line cap), then answer
flood              write 5,000 log lines to stdout, then hang
close-stdout       close stdout and hang
binary             write bytes that are not UTF-8 as the answer
seq-string         answer with ``"seq": "<n>"``;  seq-bool: ``"seq": true``
both               answer with a record and an error at once
blank-lines        write 1,000 blank lines, then answer
split              write the answer in two parts with a pause between them
stderr-flood       write 5 MB to stderr without a newline, then answer
big-record         answer with a 20 MB record
stale              answer with the previous case's seq, then hang (a record of another case)
own-many, x-many   a record with 5,000 events of its own types; with 10,000 x- fields
x-deep, x-top      x- fields nested 450 levels deep; an x- field at the top of the record
x-controls         an x- key and value of a megabyte holding every control character
open-controls      an undocumented open-set value and an own event type of that text
type-case          an event type that is a documented one in other case (``SPEAK``)
enormous           a twin (an id with ``~``) answers with a 5 MB ``final.status``
close-stdin        close stdin, then answer (the next write to it fails)
controls           answer with an error whose message holds every control character, lone surrogates,
                   bidirectional overrides and HTML;  controls-skip: a skip with that reason;
                   controls-fail: a record whose ``final.status`` holds it (lone surrogates too)

Whole-process behaviours (command line only): ``hello-garbage``, ``hello-hang``, ``ignore-stop``;
``controls`` as the default also puts that text into the implementation's name.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
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


#: Every character a writer must not pass through as it is (issue 23, item 5).
SURROGATES_TOO = (
    "\ud800 \udfff \ufffe \uffff \u202e \u2066 <script>alert(1)</script> <b>&amp;</b> ]]> \x1b]0;title\x07 "
    + "".join(chr(code) for code in range(0xA0))
)


#: The same without lone surrogates, which the protocol's text fields refuse (not valid Unicode text); a
#: record's values may still hold them (``controls-fail``).
CONTROLS = "".join(c for c in SURROGATES_TOO if not 0xD800 <= ord(c) <= 0xDFFF)


def _record(case: dict[str, Any]) -> dict[str, Any]:
    record = minimal_record(str(case.get("system")), received=sorted(case), id=uuid.uuid4().hex)
    record["final"]["run_id"] = uuid.uuid4().hex
    return record


def _behaviour(default: str, case: dict[str, Any]) -> str:
    name = str(case.get("id") or "").rsplit("/", 1)[-1]
    return name.split("fake-", 1)[1] if "fake-" in name else default


def _grandchild(new_session: bool = False) -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=new_session
    )
    sys.stderr.write(f"grandchild pid {child.pid}\n")
    sys.stderr.flush()


def _write(data: str | bytes) -> None:
    sys.stdout.flush()
    sys.stdout.buffer.write(data.encode() if isinstance(data, str) else data)
    sys.stdout.buffer.flush()


def _hostile(seq: int, scenario: dict[str, Any], behaviour: str) -> dict[str, Any] | None:
    """The behaviours of the reliability suite; None means: nothing (more) to answer."""
    good = {"seq": seq, "record": _record(scenario)}
    if behaviour.startswith("grandchild"):
        _grandchild(new_session=behaviour == "grandchild-escape")
        if behaviour == "grandchild-hang":
            time.sleep(3600)
        os._exit(5)
    if behaviour in ("segfault", "abort"):
        os.kill(os.getpid(), signal.SIGSEGV if behaviour == "segfault" else signal.SIGABRT)
        time.sleep(5)
    if behaviour in ("exit139", "exit0"):
        sys.stdout.flush()
        os._exit(139 if behaviour == "exit139" else 0)
    if behaviour == "stray-after":
        _write(json.dumps(good) + "\n")
        time.sleep(0.05)
        _write("log: that went well\n")
        return None
    if behaviour == "stray-before":
        _write("log: starting the case\n")
        return good
    if behaviour == "duplicate":
        _write(json.dumps(good) + "\n")
        return good
    if behaviour == "nan":
        _write(f'{{"seq": {seq}, "record": {{"events": [], "final": {{"status": NaN}}}}}}\n')
        return None
    if behaviour == "deep":
        depth = 100_000
        nested = "[" * depth + "]" * depth
        _write(f'{{"seq": {seq}, "record": {{"events": [], "final": {{"x": {nested}}}}}}}\n')
        return None
    if behaviour == "huge-line":
        _write("x" * 3_000_000 + "\n")
        return good
    if behaviour == "flood":
        _write("log: busy\n" * 5000)
        time.sleep(3600)
    if behaviour == "close-stdout":
        sys.stdout.flush()
        os.close(1)
        time.sleep(3600)
    if behaviour == "binary":
        _write(b"\xff\xfe\x00garbage\x80\n")
        return None
    if behaviour in ("seq-string", "seq-bool"):
        return {"seq": str(seq) if behaviour == "seq-string" else True, "record": _record(scenario)}
    if behaviour == "both":
        return {**good, "error": {"message": "and also failed"}}
    if behaviour == "blank-lines":
        _write("\n" * 1000)
        return good
    if behaviour == "split":
        text = json.dumps(good) + "\n"
        _write(text[:10])
        time.sleep(0.3)
        _write(text[10:])
        return None
    if behaviour == "stderr-flood":
        sys.stderr.write("e" * 5_000_000)
        sys.stderr.flush()
        return good
    if behaviour == "big-record":
        record = _record(scenario)
        record["events"][0]["blob"] = "b" * 20_000_000
        return {"seq": seq, "record": record}
    if behaviour == "close-stdin":
        os.close(0)
        return good
    if behaviour == "stale":
        _write(json.dumps({"seq": seq - 1, "record": _record(scenario)}) + "\n")
        time.sleep(3600)
    return _contract(seq, scenario, behaviour) or good


#: An open-set value (``console.level``), an x- key and an own event type made of the worst text.
WORST = "w" + CONTROLS + "q" * 1_000_000


def _contract(seq: int, scenario: dict[str, Any], behaviour: str) -> dict[str, Any] | None:
    """The record contract's hostile records (``tests/test_reliability_records.py``), akan-shaped."""
    record = _record(scenario)
    events, final = record["events"], record["final"]
    if behaviour == "own-many":
        events += [{"type": f"own-{i}", "x-n": i} for i in range(5000)]
    elif behaviour == "x-many":
        final.update({f"x-{i}": i for i in range(5000)})
        events[0].update({f"x-{i}": "v" * 100 for i in range(5000)})
    elif behaviour == "x-deep":
        nested: dict[str, Any] = {}
        for _ in range(150):
            nested = {"data": [{"x-in": nested}], "x-more": [nested and {}]}
        final["nested"] = nested
    elif behaviour == "x-top":
        record["x-trace"] = {"id": "abc", "spans": list(range(1000))}
    elif behaviour == "x-controls":
        final["x-" + WORST] = WORST
    elif behaviour == "open-controls":
        events.append({"type": "console", "level": WORST, "text": "hi"})
        events.append({"type": "Speak" + WORST, "sentence": "x"})
    elif behaviour == "type-case":
        events.append({"type": "SPEAK", "sentence": "shouted"})
    elif behaviour == "enormous":
        final["status"] = "ok" if scenario.get("id", "").find("~") < 0 else "o" + "k" * 5_000_000
    else:
        return None
    return {"seq": seq, "record": record}


HOSTILE = frozenset(
    [
        *("grandchild-exit", "grandchild-hang", "grandchild-escape", "segfault", "abort", "exit139"),
        *("exit0", "stray-after", "stray-before", "duplicate", "nan", "deep", "huge-line", "flood"),
        *("close-stdout", "binary", "seq-string", "seq-bool", "both", "blank-lines", "split"),
        *("stderr-flood", "big-record", "close-stdin", "stale", "own-many", "x-many", "x-deep", "x-top"),
        *("x-controls", "open-controls", "type-case", "enormous"),
    ]
)


def _answer(seq: int, scenario: dict[str, Any], behaviour: str) -> dict[str, Any] | None:
    if behaviour in HOSTILE:
        return _hostile(seq, scenario, behaviour)
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
        "controls": {"seq": seq, "error": {"message": "refused: " + CONTROLS}},
        "controls-skip": {"seq": seq, "skip": {"reason": "cannot: " + CONTROLS}},
        "controls-fail": {
            "seq": seq,
            "record": _record(scenario) | {"final": {**_record(scenario)["final"], "status": SURROGATES_TOO}},
        },
    }
    return answers.get(behaviour, {"seq": seq, "record": _record(scenario)})


def serve(default: str = "good", systems: tuple[str, ...] = ("llmz", "falai", "akan")) -> None:
    sys.stderr.write(f"fake implementation started ({default})\n")
    sys.stderr.flush()
    for line in sys.stdin:
        message = json.loads(line)
        if message["cmd"] == "hello" and default == "hello-garbage":
            _write("hello yourself\n")
            continue
        if message["cmd"] == "hello" and default == "hello-hang":
            time.sleep(3600)
        if message["cmd"] == "stop" and default == "ignore-stop":
            time.sleep(3600)
        if message["cmd"] == "hello":
            reply: dict[str, Any] | None = {
                "protocol": 2,
                "implementation": {
                    "name": f"fake-{default}" + (CONTROLS if default == "controls" else ""),
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
