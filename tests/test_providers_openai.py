"""The OpenAI-compatible provider, against a mocked endpoint (respx): what it posts, how it reads the
answer, and how every kind of failure reaches the caller as a typed error."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import respx

from conformance.players.common import model_response
from conformance.scenario.common import ScriptEntry
from reference.providers import wire
from reference.providers.openai_compat import (
    HonourRetryAfter,
    MalformedResponse,
    OpenAICompatibleProvider,
    ProviderHTTPError,
    ProviderUnreachable,
    RateLimited,
    parse_retry_after,
    retry_delay,
)
from reference.providers.protocol import ModelProvider
from reference.providers.scripted import ProviderFailure, ScriptedProvider, ScriptExhausted
from reference.record import Recorder

BASE = "https://llm.example.test/v1"
URL = f"{BASE}/chat/completions"
REQUEST = {"messages": [{"role": "user", "content": "hi"}], "tools": [{"name": "lookup"}], "max_tokens": 64}


def answer(**fields: Any) -> dict[str, Any]:
    return wire.completion(model_response(ScriptEntry.model_validate(fields)), call=1, model="m")


@pytest.fixture
def mock() -> Iterator[respx.MockRouter]:
    with respx.mock(assert_all_called=False) as router:
        yield router


@pytest.fixture(scope="module")
def client() -> Iterator[httpx.Client]:
    """One client for the module: building an SSL context per test costs more than the tests do."""
    with httpx.Client(timeout=2) as shared:
        yield shared


@pytest.fixture
def provider(client: httpx.Client) -> OpenAICompatibleProvider:
    return OpenAICompatibleProvider(BASE + "/", "sk-test", "gpt-test", client)


def test_the_request_is_a_chat_completions_post_with_bearer_auth(
    mock: respx.MockRouter, provider: OpenAICompatibleProvider
) -> None:
    route = mock.post(URL).respond(200, json=answer(text="hello"))
    provider.complete(REQUEST)
    sent = route.calls.last.request
    assert sent.headers["Authorization"] == "Bearer sk-test"
    assert sent.headers["Content-Type"] == "application/json"
    body = json.loads(sent.content)
    assert body["model"] == "gpt-test"
    assert body["messages"] == [{"role": "user", "content": "hi"}]
    assert body["tools"][0]["function"]["name"] == "lookup"
    assert body["max_tokens"] == 64


def test_no_api_key_sends_no_authorization(mock: respx.MockRouter, client: httpx.Client) -> None:
    route = mock.post(URL).respond(200, json=answer(text="x"))
    with OpenAICompatibleProvider(BASE, "", "m", client) as keyless:
        keyless.complete(REQUEST)
    assert "Authorization" not in route.calls.last.request.headers


def test_a_text_answer_comes_back_as_a_model_response(
    mock: respx.MockRouter, provider: OpenAICompatibleProvider
) -> None:
    mock.post(URL).respond(200, json=answer(text="hello", usage={"input_tokens": 9, "output_tokens": 1}))
    entry = provider.complete(REQUEST)
    assert (entry.text, entry.tool_calls, entry.stop_reason) == ("hello", (), "stop")
    assert (entry.usage.input_tokens, entry.usage.output_tokens) == (9, 1)


def test_tool_calls_map_back_to_code_or_arguments(
    mock: respx.MockRouter, provider: OpenAICompatibleProvider
) -> None:
    mock.post(URL).respond(
        200,
        json=answer(
            tool_calls=[
                {"code": "return exit('done')", "id": "call_a"},
                {"name": "lookup", "arguments": {"q": "tea"}, "id": "call_b"},
            ]
        ),
    )
    entry = provider.complete(REQUEST)
    assert [(c.name, c.code, c.arguments, c.id) for c in entry.tool_calls] == [
        ("run_javascript", "return exit('done')", None, "call_a"),
        ("lookup", None, {"q": "tea"}, "call_b"),
    ]
    assert entry.stop_reason == "tool_calls"


@pytest.mark.parametrize(
    ("finish", "ours"), [("stop", "stop"), ("tool_calls", "tool_calls"), ("length", "max_tokens")]
)
def test_finish_reasons_map_to_stop_reasons(
    mock: respx.MockRouter, provider: OpenAICompatibleProvider, finish: str, ours: str
) -> None:
    body = answer(text="x")
    body["choices"][0]["finish_reason"] = finish
    mock.post(URL).respond(200, json=body)
    assert provider.complete(REQUEST).stop_reason == ours


def test_the_understand_call_asks_for_and_reads_structured_output(
    mock: respx.MockRouter, provider: OpenAICompatibleProvider
) -> None:
    route = mock.post(URL).respond(200, json=answer(json={"flow": "refund"}))
    entry = provider.complete({"message": "I want my money back"}, purpose="understand")
    assert entry.json_data == {"flow": "refund"}
    assert json.loads(route.calls.last.request.content)["response_format"] == {"type": "json_object"}


def test_a_429_raises_rate_limited_with_retry_after(
    mock: respx.MockRouter, provider: OpenAICompatibleProvider
) -> None:
    mock.post(URL).respond(429, headers={"Retry-After": "7"}, json=wire.error_body(429, "slow down"))
    with pytest.raises(RateLimited) as caught:
        provider.complete(REQUEST)
    assert (caught.value.status, caught.value.retry_after, caught.value.message) == (429, 7.0, "slow down")
    assert isinstance(caught.value, ProviderFailure), "runtimes catch the scripted provider's failure type"


def test_retry_after_ms_is_preferred_for_its_precision() -> None:
    assert parse_retry_after(httpx.Headers({"Retry-After": "2", "retry-after-ms": "1500"})) == 1.5
    assert parse_retry_after(httpx.Headers({"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"})) is None
    assert parse_retry_after(httpx.Headers({})) is None


def test_a_retry_policy_waits_what_the_server_asked_then_succeeds(
    mock: respx.MockRouter, client: httpx.Client
) -> None:
    route = mock.post(URL)
    route.side_effect = [
        httpx.Response(429, headers={"Retry-After": "3"}, json=wire.error_body(429, "slow down")),
        httpx.Response(429, headers={"retry-after-ms": "250"}, json=wire.error_body(429, "slow down")),
        httpx.Response(200, json=answer(text="finally")),
    ]
    waits: list[float] = []
    with OpenAICompatibleProvider(
        BASE, "k", "m", client, retry=HonourRetryAfter(max_attempts=3), sleep=waits.append
    ) as p:
        assert p.complete(REQUEST).text == "finally"
    assert waits == [3.0, 0.25]
    assert route.call_count == 3


def test_a_retry_policy_gives_up_after_its_attempts(mock: respx.MockRouter, client: httpx.Client) -> None:
    route = mock.post(URL).respond(429, headers={"Retry-After": "1"}, json=wire.error_body(429, "no"))
    waits: list[float] = []
    with (
        OpenAICompatibleProvider(
            BASE, "k", "m", client, retry=HonourRetryAfter(max_attempts=2), sleep=waits.append
        ) as p,
        pytest.raises(RateLimited),
    ):
        p.complete(REQUEST)
    assert (waits, route.call_count) == ([1.0], 2)


def test_the_default_policy_never_retries_or_sleeps(mock: respx.MockRouter, client: httpx.Client) -> None:
    route = mock.post(URL).respond(429, headers={"Retry-After": "1"}, json=wire.error_body(429, "no"))
    waits: list[float] = []
    with (
        OpenAICompatibleProvider(BASE, "k", "m", client, sleep=waits.append) as p,
        pytest.raises(RateLimited),
    ):
        p.complete(REQUEST)
    assert (waits, route.call_count) == ([], 1)


@pytest.mark.parametrize(
    ("attempt", "status", "retry_after", "expected"),
    [
        (1, 429, 2.0, 2.0),
        (1, 429, None, 1.0),
        (3, 429, 2.0, None),
        (1, 500, 2.0, None),
        (1, 429, 600.0, None),
    ],
)
def test_retry_delay(attempt: int, status: int, retry_after: float | None, expected: float | None) -> None:
    got = retry_delay(
        attempt, status, retry_after, max_attempts=3, statuses=(429,), fallback_s=1.0, ceiling_s=60.0
    )
    assert got == expected


def test_a_500_raises_an_http_error_with_the_server_message(
    mock: respx.MockRouter, provider: OpenAICompatibleProvider
) -> None:
    mock.post(URL).respond(500, json=wire.error_body(500, "upstream exploded"))
    with pytest.raises(ProviderHTTPError) as caught:
        provider.complete(REQUEST)
    assert not isinstance(caught.value, RateLimited)
    assert (caught.value.status, caught.value.retry_after) == (500, None)
    assert "HTTP 500: upstream exploded" in str(caught.value)


def test_an_error_page_that_is_not_json_still_gives_its_text(
    mock: respx.MockRouter, provider: OpenAICompatibleProvider
) -> None:
    mock.post(URL).respond(502, text="<html>Bad Gateway</html>")
    with pytest.raises(ProviderHTTPError, match="Bad Gateway") as caught:
        provider.complete(REQUEST)
    assert caught.value.status == 502


def test_the_fake_servers_exhausted_script_is_script_exhausted(
    mock: respx.MockRouter, provider: OpenAICompatibleProvider
) -> None:
    mock.post(URL).respond(500, json=wire.error_body(500, "the script has no response for call 4"))
    with pytest.raises(ScriptExhausted) as caught:
        provider.complete(REQUEST)
    assert caught.value.call == 4


@pytest.mark.parametrize(
    ("response", "problem"),
    [
        (httpx.Response(200, text="not json at all"), "not JSON"),
        (httpx.Response(200, json={"object": "chat.completion"}), "response field choices: expected"),
        (
            httpx.Response(200, json={"choices": [{"message": {"content": "x"}, "finish_reason": "maybe"}]}),
            "response field choices[0].finish_reason",
        ),
    ],
)
def test_a_malformed_body_is_a_malformed_response(
    mock: respx.MockRouter, provider: OpenAICompatibleProvider, response: httpx.Response, problem: str
) -> None:
    mock.post(URL).mock(return_value=response)
    with pytest.raises(MalformedResponse) as caught:
        provider.complete(REQUEST)
    assert caught.value.status == 200
    assert problem in str(caught.value)
    assert "malformed body" in str(caught.value)


def test_an_unreachable_endpoint_is_provider_unreachable(
    mock: respx.MockRouter, provider: OpenAICompatibleProvider
) -> None:
    mock.post(URL).mock(side_effect=httpx.ConnectError("refused"))
    with pytest.raises(ProviderUnreachable, match=re.escape(f"cannot reach {URL}")):
        provider.complete(REQUEST)


def test_a_streamed_answer_is_assembled(mock: respx.MockRouter, client: httpx.Client) -> None:
    entry = model_response(ScriptEntry.model_validate({"text": "Hello", "chunks": ["He", "llo"]}))
    payload = b"".join(wire.sse_stream(wire.stream_chunks(entry, call=1, model="m", include_usage=True)))
    route = mock.post(URL).respond(200, content=payload, headers={"Content-Type": "text/event-stream"})
    with OpenAICompatibleProvider(BASE, "k", "m", client, stream=True) as streaming:
        got = streaming.complete(REQUEST)
    assert (got.text, got.chunks) == ("Hello", ("He", "llo"))
    assert json.loads(route.calls.last.request.content)["stream"] is True


def test_with_a_recorder_it_records_like_the_scripted_provider(
    mock: respx.MockRouter, client: httpx.Client
) -> None:
    mock.post(URL).side_effect = [
        httpx.Response(200, json=answer(text="hello")),
        httpx.Response(503, json=wire.error_body(503, "down")),
    ]
    recorder = Recorder()
    with OpenAICompatibleProvider(BASE, "k", "m", client, recorder=recorder) as recording:
        recording.complete(REQUEST, purpose="turn")
        with pytest.raises(ProviderHTTPError):
            recording.complete(REQUEST, purpose="summary")
    assert [(e["type"], e["call"]) for e in recorder.events] == [
        ("model_request", 1),
        ("model_response", 1),
        ("model_request", 2),
        ("model_response", 2),
    ]
    assert recorder.events[0]["purpose"] == "turn" and recorder.events[0]["messages"] == REQUEST["messages"]
    assert recorder.events[1]["text"] == "hello" and recorder.events[1]["stop_reason"] == "stop"
    assert recorder.events[3]["failure"] == {"status": 503, "message": "down", "retry_after": None}


def test_a_given_client_is_used_and_left_open(mock: respx.MockRouter) -> None:
    mock.post(URL).respond(200, json=answer(text="x"))
    with httpx.Client(timeout=2) as client:
        with OpenAICompatibleProvider(BASE, "k", "m", client) as p:
            p.complete(REQUEST)
        assert not client.is_closed


def test_both_providers_satisfy_the_model_provider_protocol(client: httpx.Client) -> None:
    http_provider: ModelProvider = OpenAICompatibleProvider(BASE, "k", "m", client)
    scripted: ModelProvider = ScriptedProvider([], Recorder())
    assert isinstance(http_provider, ModelProvider) and isinstance(scripted, ModelProvider)
    assert (http_provider.calls, scripted.calls) == (0, 0)
