"""A loopback HTTP server that plays a scenario's script as an OpenAI-compatible endpoint.

Runtimes written in other languages cannot use the Python scripted provider, but nearly all of them can
talk to a chat-completions endpoint. This server is that endpoint, offline::

    python -m conformance.fake_server [--scenario fixtures/scenarios/akan/x/y.yaml] [--port 0]

The first line it prints is its base URL (``http://127.0.0.1:<port>/v1``); point the runtime's
OpenAI-compatible client at it. Routes:

* ``POST /v1/chat/completions`` answers call N with the next script entry for it (entry N, unless the
  script addresses entries to a call ``purpose``: then the first unused entry for the purpose named in
  the ``X-Scripted-Purpose`` header, or ``summary`` for a request without tools): a ``chat.completion``
  body, a server-sent event stream when the request sets ``stream: true``, or the entry's scripted failure
  (status, ``Retry-After``, OpenAI-style error body). An entry's ``continuation`` (provider metadata:
  signed output) travels as the completion message's ``continuation`` field. An entry with
  ``stream_break`` is cut partway: a stream sends the chunks that arrive (and the tool calls, if they
  arrive), an error event with the break's message and no ``[DONE]``, then the connection closes; a call
  that did not ask to stream gets half a body and the connection closes. A call past the end of the
  script gets HTTP 500 with "the script has no response for call N", the same words the scripted provider
  uses.
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

It holds load and hostile clients without help (each limit answers a way the plain stdlib server fell
over): a listen backlog of ``LISTEN_BACKLOG`` (the default of 5 reset clients from 16 at once upward);
at most ``MAX_CONNECTIONS`` connections served at once, the rest waiting in the backlog, not one thread
each; an idle timeout (``IDLE_TIMEOUT_S``) for a client that connects and says nothing or stops halfway;
a 413 for a body over ``MAX_BODY_BYTES`` and a 400 for any body it cannot parse, including JSON nested
deeper than ``MAX_JSON_DEPTH``; recorded requests bounded (``MAX_RECORDED_BYTES``; the oldest are dropped
and ``/_requests`` says how many in its ``X-Dropped-Requests`` header); a 500 naming the exception if a
handler fails, instead of a dropped connection. Run as a command, it exits when its parent process dies,
so a crashed test run does not leave servers behind.

It lives in the harness, not in ``reference``: it reads scenario files and plays their scripts, which is
harness work; it borrows only the reference's wire translation (``reference.providers.wire``), so the
HTTP provider and this server agree on the format by construction.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import FrameType
from typing import Any

from pydantic import TypeAdapter, ValidationError

from conformance import argtypes
from conformance.paths import SCENARIO_ROOT
from conformance.players.common import model_response
from conformance.scenario.common import ScriptEntry
from conformance.yamlio import YamlFileError, read_yaml_file
from reference.providers import wire
from reference.providers.request_check import request_problem

LOOPBACK = "127.0.0.1"
CHAT_PATH = "/v1/chat/completions"
DEFAULT_MODEL = "scripted"
MAX_BODY_BYTES = 32 * 1024 * 1024
LISTEN_BACKLOG = 1024
MAX_CONNECTIONS = 128
IDLE_TIMEOUT_S = 15.0
MAX_JSON_DEPTH = 128
MAX_RECORDED_BYTES = 128 * 1024 * 1024
PARENT_POLL_S = 0.5
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
        document = read_yaml_file(path)
    except YamlFileError as exc:
        raise ScriptFileError(str(exc)) from exc
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

    def __init__(self, script: list[ScriptEntry], max_recorded_bytes: int = MAX_RECORDED_BYTES) -> None:
        self.script = script
        self._lock = threading.Lock()
        self._requests: collections.deque[tuple[int, dict[str, Any]]] = collections.deque()
        self._recorded_bytes = 0
        self._max_recorded_bytes = max_recorded_bytes
        self.dropped = 0
        """Recorded requests forgotten (oldest first) to stay under the byte bound since the last reset."""
        self._calls = 0
        self._used: set[int] = set()

    def _record(self, entry: dict[str, Any], size: int) -> None:
        self._requests.append((size, entry))
        self._recorded_bytes += size
        while self._recorded_bytes > self._max_recorded_bytes and len(self._requests) > 1:
            dropped_size, _ = self._requests.popleft()
            self._recorded_bytes -= dropped_size
            self.dropped += 1

    def take(
        self, path: str, body: dict[str, Any], size: int = 0, purpose: str = "turn"
    ) -> tuple[int, ScriptEntry | None]:
        """Record a chat request as the next call; return its number and the first unused entry meant for
        its purpose (``ScriptEntry.purpose``; None when there is none left)."""
        with self._lock:
            self._calls += 1
            call = self._calls
            self._record({"call": call, "path": path, "body": body}, size)
            for index, entry in enumerate(self.script):
                if index not in self._used and entry.purpose in (None, purpose):
                    self._used.add(index)
                    return call, entry
            return call, None

    def refuse(self, path: str, body: dict[str, Any], problem: str, size: int = 0) -> None:
        """Record a request refused before it reached the script: it is not a call (``call`` is null)."""
        with self._lock:
            self._record({"call": None, "path": path, "body": body, "refused": problem}, size)

    def requests(self) -> list[dict[str, Any]]:
        with self._lock:
            return json.loads(json.dumps([entry for _, entry in self._requests]))  # type: ignore[no-any-return]

    def reset(self, script: list[ScriptEntry] | None = None) -> None:
        """Forget every request and start from call 1, playing ``script`` from now on if given."""
        with self._lock:
            self._requests.clear()
            self._recorded_bytes = 0
            self.dropped = 0
            self._calls = 0
            self._used.clear()
            if script is not None:
                self.script = script


class Handler(BaseHTTPRequestHandler):
    server: FakeServer
    server_version = "fake-chat-completions/1"

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet by default: the first stdout line is the URL, and test output stays readable."""

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.server.idle_timeout)  # an idle or stalled client is let go

    def _safely(self, action: Callable[[], None]) -> None:
        """Run a route; a client that went away or stalled ends its connection, any other failure is a
        500 naming it (the stdlib would print a traceback and drop the connection without a word)."""
        try:
            action()
        except (TimeoutError, ConnectionError):
            self.close_connection = True
        except Exception as exc:
            self.close_connection = True
            with contextlib.suppress(OSError):
                self._json(500, wire.error_body(500, f"fake server error: {type(exc).__name__}: {exc}"))

    def do_GET(self) -> None:
        self._safely(self._get)

    def do_POST(self) -> None:
        self._safely(self._post)

    def _get(self) -> None:
        if self.path == "/_requests":
            state = self.server.state
            self._json(200, state.requests(), {"X-Dropped-Requests": str(state.dropped)})
        else:
            self._json(404, wire.error_body(404, f"no route GET {self.path}"))

    def _post(self) -> None:
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
        size = self._body_size
        problem = request_problem(body) if self.server.check_requests else None
        if problem is not None:
            self.server.state.refuse(self.path, body, problem, size)
            self._json(400, wire.error_body(400, problem))
            return
        call, scripted = self.server.state.take(self.path, body, size, call_purpose(self.headers, body))
        entry = model_response(scripted) if scripted is not None else None
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
            self._stream(
                wire.sse_stream(chunks, entry.stream_break), (entry.first_chunk_delay_ms or 0) / 1000
            )
        elif entry.stream_break is not None:
            self._cut_body(wire.completion(entry, call=call, model=model))
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
        """The request body as a JSON object, or None after answering 400 or 413 (a bad request is not
        a call)."""
        self._body_size = 0
        raw = self._read_body()
        if raw is None:
            self.close_connection = True  # the rest of the body was not read: the connection is spent
            self._json(400, wire.error_body(400, "the request body's length or chunked framing is broken"))
            return None
        if isinstance(raw, _TooLarge):
            self.close_connection = True
            limit = f"the request body must be at most {MAX_BODY_BYTES:,} bytes"
            self._json(413, wire.error_body(413, limit))
            return None
        self._body_size = len(raw)
        try:
            body = json.loads(raw or b"null", parse_constant=_refuse_constant)
        except (ValueError, RecursionError):  # JSONDecodeError and UnicodeDecodeError are ValueErrors
            body = None
        if not isinstance(body, dict):
            self._json(400, wire.error_body(400, "the request body must be a JSON object"))
            return None
        if _depth_exceeds(body, MAX_JSON_DEPTH):
            deep = f"the request body nests deeper than {MAX_JSON_DEPTH} levels"
            self._json(400, wire.error_body(400, deep))
            return None
        return body

    def _read_body(self) -> bytes | _TooLarge | None:
        """The raw body, sized by Content-Length or sent in chunks (clients streaming a body of unknown
        length do that); ``_TooLarge`` past the limit, None when its framing is broken."""
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            return self._read_chunked()
        try:
            length = int(self.headers.get("Content-Length", "0"))
        except ValueError:
            return None
        if length < 0:
            return None
        if length > MAX_BODY_BYTES:
            return _TooLarge()
        data = self.rfile.read(length)
        return data if len(data) == length else None

    def _read_chunked(self) -> bytes | _TooLarge | None:
        parts: list[bytes] = []
        total = 0
        while True:
            try:
                size = int(self.rfile.readline(1024).split(b";", 1)[0].strip() or b"x", 16)
            except ValueError:
                return None
            total += size
            if size < 0:
                return None
            if total > MAX_BODY_BYTES:
                return _TooLarge()
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

    def _cut_body(self, payload: Any) -> None:
        """A scripted break answering a call that did not ask to stream: the status line and half of the
        body its Content-Length announces, then the connection is cut (the client sees a truncated body)."""
        data = json.dumps(payload, ensure_ascii=False).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data[: len(data) // 2])
        self.wfile.flush()
        self.close_connection = True

    def _stream(self, events: Iterator[bytes], first_delay_s: float = 0.0) -> None:
        """Send each event as soon as it is built; the response ends when the connection closes (for a
        scripted ``stream_break``, right after its error event, with no ``[DONE]``: the cut). A scripted
        ``first_chunk_delay_ms`` holds back the first event (the headers go at once), so a client's
        time-to-first-token limit meets a slow first token for real."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.flush()
        if first_delay_s > 0:
            time.sleep(first_delay_s)
        for event in events:
            self.wfile.write(event)
            self.wfile.flush()
        self.close_connection = True


class _TooLarge:
    """A body over ``MAX_BODY_BYTES`` (left unread)."""


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _depth_exceeds(value: Any, limit: int) -> bool:
    """Whether containers nest deeper than ``limit`` (iterative: a hostile body cannot exhaust the stack)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        for child in children:
            if isinstance(child, dict | list):
                if depth + 1 > limit:
                    return True
                stack.append((child, depth + 1))
    return False


class FakeServer(ThreadingHTTPServer):
    """The server object; ``url`` is the base URL a client's ``base_url`` should be set to."""

    daemon_threads = True
    request_queue_size = LISTEN_BACKLOG

    def __init__(
        self,
        script: list[ScriptEntry],
        port: int = 0,
        *,
        check_requests: bool = True,
        max_connections: int = MAX_CONNECTIONS,
        idle_timeout: float = IDLE_TIMEOUT_S,
        max_recorded_bytes: int = MAX_RECORDED_BYTES,
    ) -> None:
        self.state = ScriptState(script, max_recorded_bytes)
        self.check_requests = check_requests
        self.idle_timeout = idle_timeout
        self._slots = threading.BoundedSemaphore(max_connections)
        super().__init__((LOOPBACK, port), Handler)
        self._thread: threading.Thread | None = None

    def process_request(self, request: Any, client_address: Any) -> None:
        """Serve on a thread once a slot is free; until then the accept loop waits and new clients
        queue in the listen backlog (a client that waited a whole idle timeout is closed)."""
        if not self._slots.acquire(timeout=self.idle_timeout):
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

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


def _stop_on_signal(server: FakeServer) -> Callable[[int, FrameType | None], None]:
    """A SIGTERM handler that ends ``serve_forever`` the orderly way: ``shutdown`` from another thread
    (it waits for the loop, so it cannot run on the loop's own thread). Raising an exception from the
    handler instead lands wherever the main thread happens to be, a lock or a thread start included, and
    once left the process hanging past its terminate."""

    def stop(signum: int, frame: FrameType | None) -> None:
        threading.Thread(target=server.shutdown, name="fake-chat-server-stop", daemon=True).start()

    return stop


def _exit_with_parent(server: FakeServer, parent: int) -> None:
    """Stop serving once the parent process is gone (this process is then re-parented)."""
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_S)
    server.shutdown()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m conformance.fake_server",
        description="Serve a scenario's script as a chat-completions endpoint on 127.0.0.1.",
    )
    parser.add_argument(
        "--scenario",
        type=Path,
        help="the scenario (YAML path or id) whose script to play; without it, an empty script "
        "until one is posted to /_script",
    )
    parser.add_argument("--port", type=argtypes.PORT, default=0, help="port to listen on (0: a free one)")
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
    signal.signal(signal.SIGTERM, _stop_on_signal(server))
    threading.Thread(target=_exit_with_parent, args=(server, os.getppid()), daemon=True).start()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
