"""Every scenario, played by the reference through the HTTP provider and the fake server, leaves the
same record as when played with the in-process scripted provider.

This is the end-to-end proof that the wire conversions lose nothing a runtime can observe: requests
become chat-completions bodies, the server answers from the script, and the answers come back as the
same script entries (text, tool calls, structured output, failures, an exhausted script, a stream cut
partway with its error message).

Two normalisations, both for reasons outside the wire:

* Tool calls get explicit ids (and ``arguments: {}`` where a call has none) in the script. A wire
  answer must carry an id, so an id-less scripted call
  arrives with one the server minted, while the scripted provider lets the runtime mint its own.
* Error class names are unified. Some records name the exception a provider raised, and the HTTP
  provider raises subclasses of the scripted provider's ``ProviderFailure``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator, Sequence
from typing import Any

import httpx
import pytest
from conftest import every_scenario

from conformance.fake_server import FakeServer
from conformance.players import CannotExpress, play
from conformance.scenario.common import ScriptEntry
from conformance.scenario.load import LoadedScenario
from reference.providers.openai_compat import OpenAICompatibleProvider
from reference.record import Recorder

pytestmark = pytest.mark.timeout(60)
SCENARIOS = [loaded for loaded in every_scenario() if isinstance(loaded, LoadedScenario)]


@pytest.fixture(scope="module")
def client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=httpx.Timeout(10.0)) as shared:
        yield shared


class ServerPool:
    """Fake servers kept running across cases: a provider takes an idle one, reset to its script (a fresh
    state: call 1, nothing recorded), and gives it back when the case ends. Starting and stopping a server
    per provider cost a thread and a shutdown poll per case (most of this module's time), and a reset
    server is indistinguishable from a new one to the client: ``ScriptState.reset`` forgets every request
    and every used entry."""

    def __init__(self) -> None:
        self._idle: list[FakeServer] = []
        self._all: list[FakeServer] = []

    def take(self, script: list[ScriptEntry]) -> FakeServer:
        if not self._idle:
            server = FakeServer([]).start()
            self._all.append(server)
            self._idle.append(server)
        server = self._idle.pop()
        server.state.reset(script)
        return server

    def give_back(self, server: FakeServer) -> None:
        self._idle.append(server)

    def stop(self) -> None:
        for server in self._all:
            server.stop()


@pytest.fixture(scope="module")
def servers() -> Iterator[ServerPool]:
    pool = ServerPool()
    try:
        yield pool
    finally:
        pool.stop()


def with_call_ids(payload: dict[str, Any]) -> dict[str, Any]:
    """The payload with an id on every scripted tool call that lacks one (see the module docstring)."""
    payload = copy.deepcopy(payload)
    for n, entry in enumerate(payload.get("script") or [], start=1):
        for k, call in enumerate(entry.get("tool_calls") or [], start=1):
            call.setdefault("id", f"call_{n}_{k}")
            if call.get("code") is None:
                call.setdefault("arguments", {})  # the wire always carries arguments, if only {}
    return payload


def _breaks_before_the_end(entry: dict[str, Any]) -> bool:
    """A scripted break that cuts off part of the answer (chunks, or tool calls that never complete).

    The scripted provider records the whole scripted answer in ``model_response``; a wire client can only
    record what crossed the wire before the cut. When the break comes after the whole answer was sent (every
    scenario so far), both records agree and the scenario is compared like any other.
    """
    brk = entry.get("stream_break")
    if not brk:
        return False
    calls_cut = bool(entry.get("tool_calls")) and (
        brk.get("calls_after") is None or brk["calls_after"] > brk["after"]
    )
    return brk["after"] < len(entry.get("chunks") or []) or calls_cut


def _first_token_limit_below_socket_time(payload: dict[str, Any]) -> bool:
    """A scenario whose ``maxTimeToFirstToken`` is so small (1 ms, say) that even an undelayed stream can
    miss it over a real socket: the scripted provider reports no delay for such a stream, the HTTP
    provider measures one, so the records may differ for reasons outside the wire conversions."""
    limits = [(payload.get("setup") or {}).get("options", {}).get("max_time_to_first_token")]
    for step in payload.get("steps") or []:
        limits.append((step.get("options") or {}).get("max_time_to_first_token"))
    return any(isinstance(limit, int | float) and limit < 100 for limit in limits)


def normalised(record: dict[str, Any]) -> str:
    text = json.dumps(record, sort_keys=True, ensure_ascii=False)
    for subclass in ("ProviderHTTPError", "RateLimited"):
        text = text.replace(f"{subclass}: ", "ProviderFailure: ")
    return text


def play_over_http(payload: dict[str, Any], client: httpx.Client, pool: ServerPool) -> dict[str, Any]:
    servers: list[FakeServer] = []

    def provider(script: Sequence[ScriptEntry], recorder: Recorder) -> OpenAICompatibleProvider:
        server = pool.take(list(script))
        servers.append(server)
        streams = any(getattr(entry, "chunks", None) for entry in script)
        return OpenAICompatibleProvider(server.url, "", "scripted", client, recorder=recorder, stream=streams)

    try:
        record = play(payload, provider=provider)
        refused = [r["refused"] for server in servers for r in server.state.requests() if r["call"] is None]
    finally:
        for server in servers:
            pool.give_back(server)
    assert refused == [], "a real endpoint would refuse what the reference sent"
    return record


def test_there_are_scenarios_to_compare() -> None:
    assert len(SCENARIOS) >= 10


@pytest.mark.parametrize("loaded", SCENARIOS, ids=[s.id for s in SCENARIOS])
def test_the_record_over_http_equals_the_scripted_record(
    loaded: LoadedScenario, client: httpx.Client, servers: ServerPool
) -> None:
    payload = with_call_ids(loaded.payload)
    if _first_token_limit_below_socket_time(payload):
        pytest.skip("a first-token limit of a few ms is below what a loopback socket guarantees")
    if any(_breaks_before_the_end(entry) for entry in payload.get("script") or []):
        pytest.skip("a stream breaks before its whole answer was sent: the scripted record holds the rest")
    try:
        expected = play(payload)
    except CannotExpress as exc:
        pytest.skip(f"the reference cannot express this scenario: {exc}")
    except Exception as exc:  # the reference's own tests own this failure; nothing here to compare
        pytest.skip(f"the scripted play itself fails ({type(exc).__name__}: {exc})")
    got = play_over_http(payload, client, servers)
    assert normalised(got) == normalised(expected)
