"""The fake chat-completions server: it plays a script over loopback HTTP, records what it was asked,
and fails loudly when the script runs out."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from conformance.fake_server import FakeServer, ScriptFileError, load_script, resolve_scenario
from conformance.paths import SCENARIO_ROOT
from conformance.scenario.common import ScriptEntry
from reference.providers import wire
from reference.providers.openai_compat import OpenAICompatibleProvider, ProviderHTTPError, RateLimited
from reference.providers.scripted import ScriptExhausted

pytestmark = pytest.mark.timeout(30)
TIMEOUT = httpx.Timeout(5.0)
SCRIPT: list[dict[str, Any]] = [
    {"text": "hello", "usage": {"input_tokens": 5, "output_tokens": 1}},
    {"tool_calls": [{"code": "return exit('done')"}]},
    {"text": "Once upon a time", "chunks": ["Once ", "upon ", "a time"]},
    {"failure": {"status": 429, "message": "slow down", "retry_after": 2}},
]
CHAT = {"model": "gpt-test", "messages": [{"role": "user", "content": "hi"}]}
ASK = {"messages": [{"role": "user", "content": "go on"}]}


def script(entries: list[dict[str, Any]] = SCRIPT) -> list[ScriptEntry]:
    return [ScriptEntry.model_validate(e) for e in entries]


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with FakeServer(script()) as running:
        yield running


@pytest.fixture
def http() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=TIMEOUT) as client:
        yield client


def root(server: FakeServer) -> str:
    return server.url.removesuffix("/v1")


def chat(http: httpx.Client, server: FakeServer, body: dict[str, Any] = CHAT) -> httpx.Response:
    return http.post(f"{server.url}/chat/completions", json=body, headers={"Authorization": "Bearer secret"})


def test_it_listens_on_loopback_only(server: FakeServer) -> None:
    assert server.server_address[0] == "127.0.0.1"
    assert server.url == f"http://127.0.0.1:{server.port}/v1"
    assert server.port > 0


def test_each_call_gets_the_next_script_entry(server: FakeServer, http: httpx.Client) -> None:
    first = chat(http, server).json()
    assert first == wire.completion(script()[0], call=1, model="gpt-test")
    second = chat(http, server).json()
    call = second["choices"][0]["message"]["tool_calls"][0]
    assert json.loads(call["function"]["arguments"]) == {"code": "return exit('done')"}
    assert second["choices"][0]["finish_reason"] == "tool_calls"


def test_every_request_is_recorded_without_credentials(server: FakeServer, http: httpx.Client) -> None:
    chat(http, server)
    chat(http, server, {**CHAT, "max_tokens": 9})
    recorded = http.get(f"{root(server)}/_requests").json()
    assert [r["call"] for r in recorded] == [1, 2]
    assert recorded[0] == {"call": 1, "path": "/v1/chat/completions", "body": CHAT}
    assert recorded[1]["body"]["max_tokens"] == 9
    assert "secret" not in json.dumps(recorded)


def test_reset_forgets_requests_and_restarts_the_script(server: FakeServer, http: httpx.Client) -> None:
    chat(http, server)
    chat(http, server)
    assert http.post(f"{root(server)}/_reset").status_code == 200
    assert http.get(f"{root(server)}/_requests").json() == []
    assert chat(http, server).json()["choices"][0]["message"]["content"] == "hello"


def test_a_call_past_the_script_is_a_500_naming_the_call(http: httpx.Client) -> None:
    with FakeServer(script(SCRIPT[:1])) as short:
        assert chat(http, short).status_code == 200
        response = chat(http, short)
        assert response.status_code == 500
        assert response.json()["error"]["message"] == "the script has no response for call 2"
        assert len(http.get(f"{root(short)}/_requests").json()) == 2


def test_a_scripted_failure_has_its_status_retry_after_and_error_body(
    server: FakeServer, http: httpx.Client
) -> None:
    for _ in range(3):
        chat(http, server)
    response = chat(http, server)
    assert response.status_code == 429
    assert response.headers["Retry-After"] == "2"
    assert response.json() == wire.error_body(429, "slow down")


def test_a_streaming_request_gets_the_scripted_chunks(server: FakeServer, http: httpx.Client) -> None:
    http.post(f"{root(server)}/_reset")
    for _ in range(2):
        chat(http, server)
    body = {**CHAT, "stream": True, "stream_options": {"include_usage": True}}
    with http.stream("POST", f"{server.url}/chat/completions", json=body) as response:
        assert response.headers["Content-Type"] == "text/event-stream"
        lines = list(response.iter_lines())
    assert [line for line in lines if line][-1] == "data: [DONE]"
    items = list(wire.parse_sse(lines))
    deltas = [i["choices"][0]["delta"].get("content") for i in items if i["choices"]]
    assert deltas[1:4] == ["Once ", "upon ", "a time"]
    assert items[-1]["usage"]["total_tokens"] == 0


def test_an_entry_without_chunks_streams_as_one_delta(server: FakeServer, http: httpx.Client) -> None:
    with http.stream("POST", f"{server.url}/chat/completions", json={**CHAT, "stream": True}) as response:
        entry = wire.entry_from_stream(wire.parse_sse(response.iter_lines()))
    assert (entry.text, entry.chunks) == ("hello", ("hello",))


def test_a_body_that_is_not_a_json_object_is_a_400_and_not_a_call(
    server: FakeServer, http: httpx.Client
) -> None:
    response = http.post(f"{server.url}/chat/completions", content=b"{nope")
    assert response.status_code == 400
    assert response.json()["error"]["type"] == "invalid_request_error"
    assert http.get(f"{root(server)}/_requests").json() == []


def test_unknown_routes_are_404(server: FakeServer, http: httpx.Client) -> None:
    assert http.get(f"{server.url}/models").status_code == 404
    assert http.post(f"{server.url}/embeddings", json={}).status_code == 404


def test_concurrent_calls_each_get_their_own_call_number(http: httpx.Client) -> None:
    entries = [{"text": f"answer {n}"} for n in range(1, 9)]
    with FakeServer(script(entries)) as busy:
        answers: list[str] = []
        lock = threading.Lock()

        def one() -> None:
            text = chat(http, busy).json()["choices"][0]["message"]["content"]
            with lock:
                answers.append(text)

        threads = [threading.Thread(target=one) for _ in entries]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)
        assert sorted(answers) == sorted(e["text"] for e in entries)
        assert sorted(r["call"] for r in http.get(f"{root(busy)}/_requests").json()) == list(range(1, 9))


def test_the_http_provider_plays_the_script_end_to_end(server: FakeServer) -> None:
    with OpenAICompatibleProvider(server.url, "secret", "gpt-test", timeout_s=5) as provider:
        assert provider.complete({"messages": [{"role": "user", "content": "hi"}]}).text == "hello"
        (call,) = provider.complete(ASK).tool_calls
        assert (call.name, call.code) == ("run_javascript", "return exit('done')")
        assert provider.complete(ASK).text == "Once upon a time"
        with pytest.raises(RateLimited) as limited:
            provider.complete(ASK)
        assert limited.value.retry_after == 2.0
        with pytest.raises(ScriptExhausted, match="the script has no response for call 5"):
            provider.complete(ASK)


def test_the_http_provider_streams_end_to_end(server: FakeServer) -> None:
    with OpenAICompatibleProvider(server.url, "", "gpt-test", stream=True, timeout_s=5) as provider:
        first = provider.complete(ASK)
        assert (first.text, first.usage.input_tokens) == ("hello", 5)
        provider.complete(ASK)
        third = provider.complete(ASK)
        assert third.chunks == ("Once ", "upon ", "a time")
        with pytest.raises(ProviderHTTPError):
            provider.complete(ASK)


def test_after_stop_the_port_refuses_connections(http: httpx.Client) -> None:
    stopped = FakeServer(script()).start()
    url = stopped.url
    stopped.stop()
    with pytest.raises(httpx.ConnectError):
        http.post(f"{url}/chat/completions", json=CHAT)


def test_a_script_field_of_the_wrong_type_names_file_and_field(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump({"script": [{"text": "ok"}, {"failure": {"status": "soon"}}]}))
    with pytest.raises(ScriptFileError) as caught:
        load_script(path)
    assert str(path) in str(caught.value)
    assert "field script.1.failure.status" in str(caught.value)


def test_a_file_that_is_not_a_mapping_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "list.yaml"
    path.write_text("- text: hi\n")
    with pytest.raises(ScriptFileError, match="expected a mapping at the top level"):
        load_script(path)


def _spawn(path: Path | None) -> subprocess.Popen[str]:
    argv = [sys.executable, "-m", "conformance.fake_server", "--port", "0"]
    argv += ["--scenario", str(path)] if path is not None else []
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_the_command_prints_its_url_first_serves_and_stops_on_sigterm(tmp_path: Path) -> None:
    path = tmp_path / "scenario.yaml"
    path.write_text(yaml.safe_dump({"system": "akan", "script": [{"text": "from the command line"}]}))
    process = _spawn(path)
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/v1")
        with httpx.Client(timeout=TIMEOUT) as http:
            answer = http.post(f"{url}/chat/completions", json=CHAT).json()
        assert answer["choices"][0]["message"]["content"] == "from the command line"
        process.terminate()
        assert process.wait(timeout=10) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)


def test_the_command_refuses_a_bad_script_with_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "scenario.yaml"
    path.write_text(yaml.safe_dump({"script": [{"stop_reason": "whenever"}]}))
    process = _spawn(path)
    try:
        _, err = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 2
    assert f"{path}: invalid script: field script.0.stop_reason" in err


def test_an_unanswered_tool_call_is_refused_with_400_and_is_not_a_call(
    server: FakeServer, http: httpx.Client
) -> None:
    broken = {
        "messages": [{"role": "user", "content": "hi"}, {"role": "tool", "tool_call_id": "x", "content": ""}]
    }
    response = chat(http, server, broken)
    assert response.status_code == 400
    assert "messages[1]: tool result for 'x'" in response.json()["error"]["message"]
    recorded = http.get(f"{root(server)}/_requests").json()
    assert [(r["call"], "refused" in r) for r in recorded] == [(None, True)]
    assert chat(http, server).json()["id"] == "chatcmpl-1", "a refused request does not use up a script entry"


def test_checking_can_be_turned_off(http: httpx.Client) -> None:
    with FakeServer(script(), check_requests=False) as lenient:
        assert chat(http, lenient, {"messages": []}).status_code == 200


def test_posting_a_script_replaces_the_script_and_resets(server: FakeServer, http: httpx.Client) -> None:
    chat(http, server)
    loaded = http.post(f"{root(server)}/_script", json={"script": [{"text": "second case"}]})
    assert loaded.json() == {"reset": True, "entries": 1}
    assert http.get(f"{root(server)}/_requests").json() == []
    assert chat(http, server).json()["choices"][0]["message"]["content"] == "second case"
    assert chat(http, server).status_code == 500


def test_posting_a_bad_script_is_a_400_naming_the_field_and_keeps_the_old_one(
    server: FakeServer, http: httpx.Client
) -> None:
    refused = http.post(
        f"{root(server)}/_script", json={"script": [{"text": "ok"}, {"usage": {"input_tokens": -1}}]}
    )
    assert refused.status_code == 400
    assert "field script.1.usage.input_tokens" in refused.json()["error"]["message"]
    assert chat(http, server).json()["choices"][0]["message"]["content"] == "hello"


def test_a_scenario_id_resolves_under_the_fixtures() -> None:
    some = next(iter(SCENARIO_ROOT.rglob("*.yaml")))
    scenario_id = Path(some.relative_to(SCENARIO_ROOT).with_suffix("").as_posix())
    assert resolve_scenario(scenario_id) == some
    assert resolve_scenario(Path("no/such/scenario")) == Path("no/such/scenario")


def test_a_chunked_request_body_is_read_whole(server: FakeServer, http: httpx.Client) -> None:
    def pieces() -> Iterator[bytes]:
        text = json.dumps(CHAT).encode()
        yield text[:10]
        yield text[10:]

    response = http.post(f"{server.url}/chat/completions", content=pieces())
    assert response.request.headers["Transfer-Encoding"] == "chunked"
    assert response.status_code == 200
    assert http.get(f"{root(server)}/_requests").json()[0]["body"] == CHAT


def test_the_command_without_a_scenario_waits_for_a_posted_script() -> None:
    process = _spawn(None)
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        with httpx.Client(timeout=TIMEOUT) as http:
            assert http.post(f"{url}/chat/completions", json=CHAT).status_code == 500
            http.post(f"{url.removesuffix('/v1')}/_script", json={"script": [{"text": "posted"}]})
            answer = http.post(f"{url}/chat/completions", json=CHAT).json()
        assert answer["choices"][0]["message"]["content"] == "posted"
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_a_scripted_stream_break_cuts_the_stream_after_its_error_event(http: httpx.Client) -> None:
    broken = {
        "text": "Coffee is",
        "chunks": ["Coffee ", "is"],
        "stream_break": {"after": 1, "message": "reset"},
    }
    with FakeServer(script([broken, broken])) as cut:
        with http.stream("POST", f"{cut.url}/chat/completions", json={**CHAT, "stream": True}) as response:
            assert response.status_code == 200
            lines = [line for line in response.iter_lines() if line]
        with pytest.raises(httpx.RemoteProtocolError):  # a call that did not stream gets half a body
            http.post(f"{cut.url}/chat/completions", json=CHAT)
    assert "data: [DONE]" not in lines
    assert json.loads(lines[-1][len("data: ") :]) == {
        "error": {"message": "reset", "type": wire.STREAM_ERROR_TYPE, "code": None}
    }
    items = [json.loads(line[len("data: ") :]) for line in lines[:-1]]
    contents = [item["choices"][0]["delta"].get("content") for item in items]
    assert contents == ["", "Coffee "]


def test_the_http_provider_hands_a_cut_stream_to_the_runtime_as_a_break(http: httpx.Client) -> None:
    broken = {
        "text": "Reserving",
        "chunks": ["Reserv", "ing"],
        "tool_calls": [{"id": "c1", "code": "return 1"}],
        "stream_break": {"after": 2, "calls_after": 1, "message": "connection reset"},
    }
    with FakeServer(script([broken])) as cut:
        provider = OpenAICompatibleProvider(cut.url, "", "scripted", http, stream=True)
        answer = provider.complete({"messages": [{"role": "user", "content": "go"}]})
    assert answer.stream_break is not None
    assert (answer.stream_break.after, answer.stream_break.calls_after) == (2, 1)
    assert answer.stream_break.message == "connection reset"
    assert [c.code for c in answer.tool_calls] == ["return 1"] and answer.chunks == ("Reserv", "ing")


def test_a_first_chunk_delay_holds_the_stream_back_and_the_http_provider_measures_it() -> None:
    """``first_chunk_delay_ms`` is real time on the wire (llmz.configuration.streaming-options): the HTTP
    provider reports at least that long before the first chunk, an undelayed stream much less."""
    entries = [
        {"text": "slow", "chunks": ["sl", "ow"], "first_chunk_delay_ms": 500},
        {"text": "quick", "chunks": ["quick"]},
    ]
    with (
        FakeServer(script(entries)) as slow,
        OpenAICompatibleProvider(slow.url, "", "gpt-test", stream=True, timeout_s=5) as provider,
    ):
        delayed, undelayed = provider.complete(ASK), provider.complete(ASK)
    assert delayed.chunks == ("sl", "ow")
    assert delayed.first_chunk_delay_ms is not None and delayed.first_chunk_delay_ms >= 500
    assert undelayed.first_chunk_delay_ms is not None and undelayed.first_chunk_delay_ms < 500
