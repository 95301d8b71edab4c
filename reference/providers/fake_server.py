"""A loopback HTTP server that plays a scenario's script as an OpenAI-compatible endpoint.

Runtimes written in other languages cannot use the Python scripted provider, but nearly all of them can
talk to a chat-completions endpoint. This server is that endpoint, offline::

    python -m reference.providers.fake_server [--scenario fixtures/scenarios/akan/x/y.yaml] [--port 0]

The first line it prints is its base URL (``http://127.0.0.1:<port>/v1``); point the runtime's
OpenAI-compatible client at it. Routes:

* ``POST /v1/chat/completions`` answers call N with the next script entry for it (entry N, unless the
  script addresses entries to a call ``purpose``: then the first unused entry for the purpose named in
  the ``X-Scripted-Purpose`` header, or ``summary`` for a request without tools): a ``chat.completion``
  body, a server-sent event stream when the request sets ``stream: true``, or the entry's scripted failure
  (status, ``Retry-After``, OpenAI-style error body). A call past the end of the script gets HTTP 500
  with "the script has no response for call N", the same words the scripted provider uses.
  Before any of that, the request is checked as a real endpoint would check it
  (``request_check``): a conversation whose tool calls and results do not pair up gets HTTP 400
  naming the message at fault, and is not a call (``--no-check`` turns this off).
* ``GET /_requests`` returns every recorded chat request (``{call, path, body}``; a refused one has
  ``call: null`` and ``refused``) as a JSON list, so a test can check what the runtime sent.
  Credentials are never recorded.
* ``POST /_reset`` forgets the recorded requests and starts the script again from call 1.
* ``POST /_script`` with ``{"script": [...]}`` (a scenario's script, as in its YAML) replaces the script
  and resets, so one long-lived server can serve case after case; a bad script is a 400 naming the field.

``--scenario`` takes a file path, or a scenario id such as ``akan/compaction/summary-on-the-wire``
(looked up under ``fixtures/scenarios``).

It binds 127.0.0.1 only, by construction: a scripted model has no business on a network.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import FrameType
from typing import Any

import yaml
from pydantic import TypeAdapter, ValidationError

from conformance.paths import SCENARIO_ROOT
from conformance.scenario.common import ScriptEntry
from reference.providers import wire
from reference.providers.request_check import request_problem

LOOPBACK = "127.0.0.1"
CHAT_PATH = "/v1/chat/completions"
DEFAULT_MODEL = "scripted"
MAX_BODY_BYTES = 32 * 1024 * 1024
_SCRIPT: TypeAdapter[list[ScriptEntry]] = TypeAdapter(list[ScriptEntry])


class ScriptFileError(ValueError):
    """A scenario file whose script cannot be played; the message names the file and the field."""


def parse_script(raw: Any, source: str) -> list[ScriptEntry]:
    """Validate a script (a list of entries); ``ScriptFileError`` names ``source`` and each bad field."""
    try:
        return _SCRIPT.validate_python(raw or [])
    except ValidationError as exc:
        fields = "; ".join(
            f"field script.{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
        )
        raise ScriptFileError(f"{source}: invalid script: {fields}") from exc


def resolve_scenario(name: Path) -> Path:
    """A path as given when it exists, else the scenario with that id under ``fixtures/scenarios``."""
    if name.exists() or name.suffix:
        return name
    candidate = SCENARIO_ROOT / f"{name.as_posix()}.yaml"
    return candidate if candidate.exists() else name


def load_script(path: Path) -> list[ScriptEntry]:
    """The ``script`` of a scenario file. Only the script is validated: the server plays nothing else,
    so a scenario whose other parts belong to a newer vocabulary still serves."""
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ScriptFileError(f"{path}: cannot read YAML: {exc}") from exc
    if not isinstance(document, dict):
        raise ScriptFileError(f"{path}: expected a mapping at the top level, got {type(document).__name__}")
    return parse_script(document.get("script"), str(path))


PURPOSE_HEADER = "X-Scripted-Purpose"


def call_purpose(headers: Any, body: dict[str, Any]) -> str:
    """Which script entries may answer this call: the purpose the client names in ``X-Scripted-Purpose``,
    else ``summary`` for a request that declares no tools (a summarizer cannot call any), else ``turn``."""
    named = headers.get(PURPOSE_HEADER)
    if named:
        return str(named)
    return "turn" if body.get("tools") else "summary"


class ScriptState:
    """The script and what has been asked of it; one lock, since handler threads run concurrently."""

    def __init__(self, script: list[ScriptEntry]) -> None:
        self.script = script
        self._lock = threading.Lock()
        self._requests: list[dict[str, Any]] = []
        self._calls = 0
        self._used: set[int] = set()

    def take(self, path: str, body: dict[str, Any], purpose: str = "turn") -> tuple[int, ScriptEntry | None]:
        """Record a chat request as the next call; return its number and the first unused entry meant for
        its purpose (``ScriptEntry.purpose``; None when there is none left)."""
        with self._lock:
            self._calls += 1
            call = self._calls
            self._requests.append({"call": call, "path": path, "body": body})
            for index, entry in enumerate(self.script):
                if index not in self._used and entry.purpose in (None, purpose):
                    self._used.add(index)
                    return call, entry
            return call, None

    def refuse(self, path: str, body: dict[str, Any], problem: str) -> None:
        """Record a request refused before it reached the script: it is not a call (``call`` is null)."""
        with self._lock:
            self._requests.append({"call": None, "path": path, "body": body, "refused": problem})

    def requests(self) -> list[dict[str, Any]]:
        with self._lock:
            return json.loads(json.dumps(self._requests))  # type: ignore[no-any-return]

    def reset(self, script: list[ScriptEntry] | None = None) -> None:
        """Forget every request and start from call 1, playing ``script`` from now on if given."""
        with self._lock:
            self._requests.clear()
            self._calls = 0
            self._used.clear()
            if script is not None:
                self.script = script


class Handler(BaseHTTPRequestHandler):
    server: FakeServer
    server_version = "fake-chat-completions/1"

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet by default: the first stdout line is the URL, and test output stays readable."""

    def do_GET(self) -> None:
        if self.path == "/_requests":
            self._json(200, self.server.state.requests())
        else:
            self._json(404, wire.error_body(404, f"no route GET {self.path}"))

    def do_POST(self) -> None:
        if self.path == "/_reset":
            self.server.state.reset()
            self._json(200, {"reset": True})
        elif self.path == "/_script":
            self._load_script()
        elif self.path.split("?", 1)[0] in (CHAT_PATH, "/chat/completions"):
            self._chat()
        else:
            self._json(404, wire.error_body(404, f"no route POST {self.path}"))

    def _chat(self) -> None:
        body = self._read_json()
        if body is None:
            return
        problem = request_problem(body) if self.server.check_requests else None
        if problem is not None:
            self.server.state.refuse(self.path, body, problem)
            self._json(400, wire.error_body(400, problem))
            return
        call, entry = self.server.state.take(self.path, body, call_purpose(self.headers, body))
        model = body["model"] if isinstance(body.get("model"), str) else DEFAULT_MODEL
        if entry is None:
            self._json(500, wire.error_body(500, f"the script has no response for call {call}"))
        elif entry.failure is not None:
            failure = entry.failure
            self._json(
                failure.status,
                wire.error_body(failure.status, failure.message),
                wire.failure_headers(failure),
            )
        elif body.get("stream") is True:
            options = body.get("stream_options")
            usage = isinstance(options, dict) and options.get("include_usage") is True
            chunks = wire.stream_chunks(entry, call=call, model=model, include_usage=usage)
            self._stream(wire.sse_stream(chunks))
        else:
            self._json(200, wire.completion(entry, call=call, model=model))

    def _load_script(self) -> None:
        body = self._read_json()
        if body is None:
            return
        try:
            script = parse_script(body.get("script"), "POST /_script")
        except ScriptFileError as exc:
            self._json(400, wire.error_body(400, str(exc)))
            return
        self.server.state.reset(script)
        self._json(200, {"reset": True, "entries": len(script)})

    def _read_json(self) -> dict[str, Any] | None:
        """The request body as a JSON object, or None after answering 400 (a bad request is not a call)."""
        raw = self._read_body()
        if raw is None:
            self._json(400, wire.error_body(400, "the request body must be at most 32 MiB, with a length"))
            return None
        try:
            body = json.loads(raw or b"null")
        except (json.JSONDecodeError, UnicodeDecodeError):
            body = None
        if not isinstance(body, dict):
            self._json(400, wire.error_body(400, "the request body must be a JSON object"))
            return None
        return body

    def _read_body(self) -> bytes | None:
        """The raw body, sized by Content-Length or sent in chunks (clients streaming a body of unknown
        length do that); None when it is too large or its framing is broken."""
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            return self._read_chunked()
        try:
            length = int(self.headers.get("Content-Length", "0"))
        except ValueError:
            return None
        return self.rfile.read(length) if 0 <= length <= MAX_BODY_BYTES else None

    def _read_chunked(self) -> bytes | None:
        parts: list[bytes] = []
        total = 0
        while True:
            try:
                size = int(self.rfile.readline(1024).split(b";", 1)[0].strip() or b"x", 16)
            except ValueError:
                return None
            total += size
            if size < 0 or total > MAX_BODY_BYTES:
                return None
            if size == 0:
                while self.rfile.readline(1024).strip():
                    pass  # trailer fields, up to the blank line that ends the body
                return b"".join(parts)
            parts.append(self.rfile.read(size))
            self.rfile.readline(1024)

    def _json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload, ensure_ascii=False).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, events: Iterator[bytes]) -> None:
        """Send each event as soon as it is built; the response ends when the connection closes."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        for event in events:
            self.wfile.write(event)
            self.wfile.flush()
        self.close_connection = True


class FakeServer(ThreadingHTTPServer):
    """The server object; ``url`` is the base URL a client's ``base_url`` should be set to."""

    daemon_threads = True

    def __init__(self, script: list[ScriptEntry], port: int = 0, *, check_requests: bool = True) -> None:
        self.state = ScriptState(script)
        self.check_requests = check_requests
        super().__init__((LOOPBACK, port), Handler)
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}/v1"

    def start(self) -> FakeServer:
        """Serve from a background thread (for tests and embedding); ``stop`` ends it."""
        self._thread = threading.Thread(
            target=self.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-chat-server", daemon=True
        )
        self._thread.start()
        return self

    def stop(self, timeout_s: float = 5.0) -> None:
        if self._thread is not None:
            self.shutdown()
            self._thread.join(timeout_s)
            self._thread = None
        self.server_close()

    def __enter__(self) -> FakeServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _stop_on_signal(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m reference.providers.fake_server",
        description="Serve a scenario's script as a chat-completions endpoint on 127.0.0.1.",
    )
    parser.add_argument(
        "--scenario",
        type=Path,
        help="the scenario (YAML path or id) whose script to play; without it, an empty script "
        "until one is posted to /_script",
    )
    parser.add_argument("--port", type=int, default=0, help="port to listen on (0 picks a free one)")
    parser.add_argument(
        "--no-check",
        action="store_true",
        help="answer requests whose tool calls and results do not pair up, instead of refusing them",
    )
    args = parser.parse_args(argv)
    try:
        script = load_script(resolve_scenario(args.scenario)) if args.scenario else []
    except ScriptFileError as exc:
        print(exc, file=sys.stderr)
        return 2
    try:
        server = FakeServer(script, args.port, check_requests=not args.no_check)
    except OSError as exc:
        print(f"cannot listen on {LOOPBACK}:{args.port}: {exc}", file=sys.stderr)
        return 2
    print(server.url, flush=True)
    signal.signal(signal.SIGTERM, _stop_on_signal)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
