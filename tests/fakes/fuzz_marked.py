"""The reference, except on marked cases: for ``fuzz --jobs`` tests (``tests/test_reliability_jobs.py``).

Generated cases all carry the same id, so a case is marked by its content: the SHA-256 of the JSON of its
played half (``setup``, ``script``, ``steps``, keys sorted), listed one a line in a file (``mark``).

* ``python fuzz_marked.py BEHAVIOUR FILE`` serves stdio: a marked ``run`` makes it ``crash`` (exit 3 after a
  last word on stderr) or ``hang``; every other line gets the stdio reference's answer.
* ``python:fakes.fuzz_marked:make`` (the file named by ``FUZZ_MARKS`` in the environment): a marked case
  ends the whole process with ``os._exit(9)``, as a crashing extension would; others are the reference's.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from conformance.players import hello_info, play, server

PLAYED = ("setup", "script", "steps")


def digest(case: dict[str, Any]) -> str:
    return hashlib.sha256(
        json.dumps({k: case[k] for k in PLAYED if k in case}, sort_keys=True).encode()
    ).hexdigest()


def mark(path: Path, cases: list[dict[str, Any]]) -> Path:
    path.write_text("".join(digest(case) + "\n" for case in cases), encoding="utf-8")
    return path


def _marks(path: str) -> set[str]:
    return set(Path(path).read_text(encoding="utf-8").split())


class MarkedPython:
    def __init__(self) -> None:
        self.marks = _marks(os.environ["FUZZ_MARKS"])

    def hello(self) -> dict[str, Any]:
        return {**hello_info(None), "name": "fuzz-marked"}

    def run(self, payload: dict[str, Any]) -> dict[str, Any]:
        if digest(payload) in self.marks:
            os._exit(9)
        record: dict[str, Any] = play(payload, None)
        return record


def make() -> MarkedPython:
    return MarkedPython()


def main(behaviour: str, marks_file: str) -> int:
    marks = _marks(marks_file)
    for line in sys.stdin:
        message = json.loads(line)
        if message.get("cmd") == "run" and digest(message["case"]) in marks:
            if behaviour == "crash":
                sys.stderr.write("fuzz_marked: crashing on a marked case\n")
                sys.stderr.flush()
                os._exit(3)
            while True:
                time.sleep(60)
        answer = server._answer(line, None, None)
        if answer is None:
            return 0
        sys.stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
