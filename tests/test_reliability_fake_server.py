"""Reliability: the loopback fake server under load and under hostile clients.

A bounded load test (300 concurrent requests, zero resets), every kind of body it cannot parse (a 400,
never a dropped connection), size limits, idle and stalled clients, bounded memory for recorded requests,
and the command exiting with its parent.
"""

from __future__ import annotations

import collections
import http.client
import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from conformance import fake_server
from conformance.fake_server import MAX_BODY_BYTES, MAX_JSON_DEPTH, FakeServer
from conformance.scenario.common import ScriptEntry

pytestmark = [pytest.mark.reliability, pytest.mark.timeout(60)]

CHAT = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
CONCURRENT = 300


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with FakeServer([ScriptEntry(text="ok")] * CONCURRENT, idle_timeout=0.5, max_connections=16) as running:
        yield running


def _post(port: int, body: bytes, headers: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("POST", "/v1/chat/completions", body, headers or {})
        response = connection.getresponse()
        return response.status, json.loads(response.read() or b"{}")
    finally:
        connection.close()


def _still_serves(server: FakeServer) -> None:
    status, body = _post(server.port, json.dumps(CHAT).encode())
    assert status in (200, 500) and ("choices" in body or "error" in body)


def test_300_concurrent_requests_are_all_answered_without_a_reset(server: FakeServer) -> None:
    barrier = threading.Barrier(CONCURRENT)
    outcomes: collections.Counter[str] = collections.Counter()
    calls: list[int] = []
    lock = threading.Lock()
    body = json.dumps(CHAT).encode()

    def one() -> None:
        barrier.wait()
        try:
            status, answer = _post(server.port, body)
            outcome = str(status)
        except Exception as exc:  # a reset, a refused connection, a timeout: all count against the server
            outcome, answer = type(exc).__name__, {}
        with lock:
            outcomes[outcome] += 1
            if "id" in answer:
                calls.append(answer["id"])

    threads = [threading.Thread(target=one) for _ in range(CONCURRENT)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert outcomes == {"200": CONCURRENT}, outcomes
    assert len(set(calls)) == CONCURRENT, "each request was its own call"


UNPARSEABLE = {
    "not-json": b"{nope",
    "not-utf8": b'{"a": "\xff\xfe"}',
    "nan": b'{"model": NaN}',
    "infinity": b'{"model": Infinity}',
    "a-list": b"[]",
    "a-string": b'"text"',
    "null": b"null",
    "empty": b"",
    "deep-10000": b'{"a": ' + b"[" * 10_000 + b"]" * 10_000 + b"}",
    "deep-past-limit": b'{"a": ' + b"[" * MAX_JSON_DEPTH + b"]" * MAX_JSON_DEPTH + b"}",
    "deep-objects": b'{"a": ' + b'{"a": ' * 5_000 + b"1" + b"}" * 5_000 + b"}",
    "trailing-garbage": b'{"model": "m"} and more',
}


@pytest.mark.parametrize("name", sorted(UNPARSEABLE))
def test_a_body_it_cannot_parse_is_a_400_and_the_server_goes_on(server: FakeServer, name: str) -> None:
    status, answer = _post(server.port, UNPARSEABLE[name], {"Content-Type": "application/json"})
    assert status == 400 and answer["error"]["type"] == "invalid_request_error"
    _still_serves(server)
    with httpx.Client(timeout=5) as client:
        recorded = client.get(server.url.removesuffix("/v1") + "/_requests").json()
    assert all(entry["call"] is not None for entry in recorded), "a refused body is not a call"


def test_nesting_up_to_the_limit_is_accepted(server: FakeServer) -> None:
    depth = MAX_JSON_DEPTH - 2
    body = b'{"model": "m", "messages": [{"role": "user", "content": "hi"}], "x": '
    status, _ = _post(server.port, body + b"[" * depth + b"]" * depth + b"}")
    assert status == 200


def test_a_declared_body_over_the_limit_is_a_413_without_reading_it(server: FakeServer) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as raw:
        raw.sendall(
            b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
            + f"Content-Length: {MAX_BODY_BYTES + 1}\r\n\r\n".encode()
        )
        reply = raw.recv(65536)
    assert reply.startswith(b"HTTP/1.0 413")
    _still_serves(server)


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: lots\r\n\r\n",
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        b"GARBAGE\r\n\r\n",
    ],
    ids=["negative-length", "length-not-a-number", "broken-chunk", "garbage-request-line"],
)
def test_broken_framing_is_a_400(server: FakeServer, request_bytes: bytes) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as raw:
        raw.sendall(request_bytes)
        reply = raw.recv(65536)
    assert b" 400 " in reply.split(b"\r\n", 1)[0]
    _still_serves(server)


def test_a_body_cut_short_does_not_hurt_the_server(server: FakeServer) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as raw:
        raw.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{\"mo")
        raw.shutdown(socket.SHUT_WR)
        reply = raw.recv(65536)
    assert reply == b"" or b" 400 " in reply.split(b"\r\n", 1)[0]
    _still_serves(server)


@pytest.mark.parametrize(
    "opening", [b"", b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"]
)
def test_an_idle_or_stalled_client_is_let_go(server: FakeServer, opening: bytes) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as raw:
        raw.sendall(opening)
        started = time.monotonic()
        leftover = raw.recv(65536)
        assert time.monotonic() - started < 5, "closed after the idle timeout (0.5 s here)"
        assert leftover == b"" or leftover.startswith(b"HTTP/1.0 408")


def test_idle_connections_beyond_the_slots_only_delay_real_clients(server: FakeServer) -> None:
    idle = [socket.create_connection(("127.0.0.1", server.port), timeout=10) for _ in range(48)]
    try:
        started = time.monotonic()
        _still_serves(server)
        assert time.monotonic() - started < 10
    finally:
        for connection in idle:
            connection.close()


def test_recorded_requests_are_bounded(server: FakeServer) -> None:
    bounded = FakeServer([ScriptEntry(text="ok")] * 60, max_recorded_bytes=10_000).start()
    try:
        body = json.dumps({**CHAT, "padding": "p" * 1_000}).encode()
        for _ in range(50):
            assert _post(bounded.port, body)[0] == 200
        with httpx.Client(timeout=5) as client:
            response = client.get(bounded.url.removesuffix("/v1") + "/_requests")
        kept = response.json()
        assert 5 <= len(kept) <= 10 and int(response.headers["X-Dropped-Requests"]) == 50 - len(kept)
        assert kept[-1]["call"] == 50, "the newest requests are the ones kept"
    finally:
        bounded.stop()


def test_a_failing_handler_is_a_500_naming_it(server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    def explode(body: Any) -> str | None:
        raise RuntimeError("checker exploded")

    monkeypatch.setattr(fake_server, "request_problem", explode)
    status, answer = _post(server.port, json.dumps(CHAT).encode())
    assert status == 500 and "RuntimeError: checker exploded" in answer["error"]["message"]


PARENT = """
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-m", "conformance.fake_server"], stdout=subprocess.PIPE)
print(child.pid, child.stdout.readline().decode().strip(), flush=True)
time.sleep(600)
"""


def _running(pid: int) -> bool:
    try:
        return "\nState:\tZ" not in Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False


def test_the_command_exits_when_its_parent_dies() -> None:
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    pid_text, url = parent.stdout.readline().split()
    server_pid = int(pid_text)
    try:
        with httpx.Client(timeout=5) as client:
            assert client.post(f"{url}/chat/completions", json=CHAT).status_code == 500  # empty script
        parent.kill()
        parent.wait()
        deadline = time.monotonic() + 10
        while _running(server_pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _running(server_pid), "the fake server outlived its parent"
    finally:
        if _running(server_pid):
            subprocess.run(["kill", "-9", str(server_pid)], check=False)
