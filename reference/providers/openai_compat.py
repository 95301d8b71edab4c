"""A provider that talks to any OpenAI-compatible chat-completions endpoint over HTTP.

It has the scripted provider's shape (``complete(request, purpose=...) -> ModelResponse``), so a reference
runtime can be pointed at a real endpoint, or at ``conformance.fake_server``, without changing.
The conversions are pure and live elsewhere: ``chat_request`` builds the body, ``wire`` reads the
answer. What is left here is the HTTP exchange and what to do when it goes wrong:

* an error status raises ``ProviderHTTPError`` (``RateLimited`` for 429), a subclass of the scripted
  provider's ``ProviderFailure``, so a runtime handles a real failure exactly as a scripted one;
* a 2xx body that is not a chat completion raises ``MalformedResponse`` naming the field at fault;
* a connection that cannot be made or times out raises ``ProviderUnreachable``;
* the fake server's "the script has no response for call N" (a 500) raises ``ScriptExhausted``, the
  scripted provider's error for the same event, so a case ends the same way over HTTP as in-process.

A call whose purpose is in ``structured_purposes`` (falai's ``understand``) asks for a JSON object and
reads the content back as ``ModelResponse.json``; request dicts do not always say so themselves.

Retrying is a policy object, not a loop with a hard-coded sleep: the default never retries (the runtime
under test decides what a 429 means), ``HonourRetryAfter`` waits what the server asked for, and the
sleep function is injectable so tests never wait.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any, Protocol

import httpx

from reference.providers import wire
from reference.providers.chat_request import chat_request, wants_structured
from reference.providers.model import ModelResponse
from reference.providers.scripted import ProviderFailure, ScriptExhausted
from reference.record import Recorder

DEFAULT_TIMEOUT_S = 60.0
#: Calls whose answer is structured output (``ModelResponse.json``) although the request dict does not
#: say so: falai's understand call returns its judgement as a JSON object.
STRUCTURED_PURPOSES = frozenset({"understand"})
#: What the fake server (and the scripted provider) say when a script runs out.
_EXHAUSTED = re.compile(r"^the script has no response for call (\d+)$")


class ProviderHTTPError(ProviderFailure):
    """The endpoint answered with an error status; ``retry_after`` is in seconds when it sent one."""

    def __init__(self, status: int, message: str, retry_after: float | None, body: Any = None) -> None:
        super().__init__(status, message, retry_after)
        self.message = message
        self.body = body


class RateLimited(ProviderHTTPError):
    """HTTP 429: the endpoint wants fewer requests; ``retry_after`` says how long to wait, if known."""


class MalformedResponse(RuntimeError):
    """A successful status whose body is not a chat completion; names what was wrong with it."""

    def __init__(self, status: int, problem: str) -> None:
        super().__init__(f"the provider answered HTTP {status} with a malformed body: {problem}")
        self.status = status
        self.problem = problem


class ProviderUnreachable(RuntimeError):
    """No answer at all: the connection failed or timed out."""


# -- retry policy -------------------------------------------------------------------------------------


class RetryPolicy(Protocol):
    def delay(self, attempt: int, failure: ProviderHTTPError) -> float | None:
        """Seconds to wait before attempt ``attempt + 1``, or None to give up and raise ``failure``."""
        ...


@dataclass(frozen=True)
class NoRetry:
    """Every failure goes straight to the caller; the default, since retrying is the runtime's call."""

    def delay(self, attempt: int, failure: ProviderHTTPError) -> float | None:
        return None


def retry_delay(
    attempt: int,
    status: int,
    retry_after: float | None,
    *,
    max_attempts: int,
    statuses: tuple[int, ...],
    fallback_s: float,
    ceiling_s: float,
) -> float | None:
    """How long to wait after failed attempt ``attempt`` (1-based), or None to stop.

    Only the listed statuses are retried, at most ``max_attempts`` attempts in all. The server's
    ``Retry-After`` is honoured as sent; without one the wait is ``fallback_s``. A wait longer than
    ``ceiling_s`` gives up instead, because a caller blocked for minutes is worse than an error it
    can act on.
    """
    if status not in statuses or attempt >= max_attempts:
        return None
    wait = fallback_s if retry_after is None else retry_after
    return None if wait > ceiling_s else wait


@dataclass(frozen=True)
class HonourRetryAfter:
    max_attempts: int = 3
    statuses: tuple[int, ...] = (429,)
    fallback_s: float = 1.0
    ceiling_s: float = 60.0

    def delay(self, attempt: int, failure: ProviderHTTPError) -> float | None:
        return retry_delay(
            attempt,
            failure.status,
            failure.retry_after,
            max_attempts=self.max_attempts,
            statuses=self.statuses,
            fallback_s=self.fallback_s,
            ceiling_s=self.ceiling_s,
        )


def parse_retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds to wait, from ``retry-after-ms`` (exact) or ``Retry-After`` (seconds).

    An HTTP-date ``Retry-After`` is ignored: turning it into a wait needs the wall clock, and a
    deterministic client has none."""
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        raw = headers.get(name)
        if raw is None:
            continue
        try:
            value = float(raw) / scale
        except ValueError:
            continue
        if value >= 0:
            return value
    return None


# -- the provider -------------------------------------------------------------------------------------


def error_message(response: httpx.Response) -> tuple[str, Any]:
    """The message of an OpenAI-style error body, else the start of whatever text came back."""
    try:
        body = response.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        return (response.text[:200] or response.reason_phrase), None
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return error["message"], body
    if isinstance(error, str):
        return error, body
    return response.text[:200], body


def http_failure(response: httpx.Response) -> ProviderHTTPError | ScriptExhausted:
    """The error a status stands for. A 500 saying the script ran out is the fake server's way of
    reporting ``ScriptExhausted``, so it is raised as that: a runtime then ends the case exactly as
    it does with the scripted provider."""
    message, body = error_message(response)
    exhausted = _EXHAUSTED.match(message) if response.status_code == 500 else None
    if exhausted is not None:
        return ScriptExhausted(int(exhausted.group(1)))
    kind = RateLimited if response.status_code == 429 else ProviderHTTPError
    return kind(response.status_code, message, parse_retry_after(response.headers), body)


class FirstLineClock:
    """The lines of a streamed body, timing the first one that carries anything: how long the first
    chunk took after the request was sent (``ModelResponse.first_chunk_delay_ms``, which a runtime's
    time-to-first-token limit reads)."""

    def __init__(self, lines: Iterable[str], started: float) -> None:
        self._lines = lines
        self._started = started
        self.first_ms: float | None = None

    def __iter__(self) -> Iterator[str]:
        for line in self._lines:
            if self.first_ms is None and line.strip():
                self.first_ms = round((time.monotonic() - self._started) * 1000, 1)
            yield line


class OpenAICompatibleProvider:
    """``complete`` posts one chat-completions request per call and returns the answer as a ModelResponse.

    With a ``recorder`` it records ``model_request`` and ``model_response`` events in the same shape as
    the scripted provider, so a record made against a live endpoint reads like a scripted one.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        model: str,
        client: httpx.Client | None = None,
        *,
        recorder: Recorder | None = None,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        stream: bool = False,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        structured_purposes: frozenset[str] = STRUCTURED_PURPOSES,
    ) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self._api_key = api_key
        self._client = client if client is not None else httpx.Client(timeout=timeout_s)
        self._owns_client = client is None
        self._recorder = recorder
        self._retry: RetryPolicy = retry if retry is not None else NoRetry()
        self._sleep = sleep
        self.stream = stream
        self.structured_purposes = structured_purposes
        self.calls = 0
        self._purpose = "turn"

    def complete(self, request: dict[str, Any], *, purpose: str = "turn") -> ModelResponse:
        """Send ``request`` as call N (1-based), retrying as the policy says; raise on failure."""
        self.calls += 1
        call = self.calls
        self._purpose = purpose
        if self._recorder is not None:
            self._recorder.emit("model_request", call=call, purpose=purpose, **request)
        structured = purpose in self.structured_purposes or wants_structured(request)
        body = chat_request(request, model=self.model, stream=self.stream, structured=structured)
        try:
            entry = self._with_retries(body, structured)
        except ProviderHTTPError as failure:
            self._record_failure(call, failure)
            raise
        self._record_answer(call, entry)
        return entry

    def _with_retries(self, body: dict[str, Any], structured: bool) -> ModelResponse:
        attempt = 0
        while True:
            attempt += 1
            try:
                return self._exchange(body, structured)
            except ProviderHTTPError as failure:
                wait = self._retry.delay(attempt, failure)
                if wait is None:
                    raise
                self._sleep(wait)

    def _headers(self) -> dict[str, str]:
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "X-Scripted-Purpose": self._purpose,  # lets the fake server address script entries by purpose
        }
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

    def _exchange(self, body: dict[str, Any], structured: bool) -> ModelResponse:
        try:
            if self.stream:
                return self._exchange_streamed(body, structured)
            response = self._client.post(self.url, json=body, headers=self._headers())
        except httpx.TransportError as exc:
            raise ProviderUnreachable(f"cannot reach {self.url}: {exc}") from exc
        if response.status_code >= 400:
            raise http_failure(response)
        try:
            answer = response.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise MalformedResponse(response.status_code, f"not JSON: {response.text[:120]!r}") from None
        return _read(response.status_code, lambda: wire.entry_from_completion(answer, structured=structured))

    def _exchange_streamed(self, body: dict[str, Any], structured: bool) -> ModelResponse:
        headers = {**self._headers(), "Accept": "text/event-stream"}
        started = time.monotonic()
        with self._client.stream("POST", self.url, json=body, headers=headers) as response:
            if response.status_code >= 400:
                response.read()
                raise http_failure(response)
            clock = FirstLineClock(response.iter_lines(), started)
            entry = _read(
                response.status_code,
                lambda: wire.entry_from_stream(wire.parse_sse(clock), structured=structured),
            )
            if entry.chunks is None or clock.first_ms is None:
                return entry
            return replace(entry, first_chunk_delay_ms=clock.first_ms)

    def _record_answer(self, call: int, entry: ModelResponse) -> None:
        if self._recorder is None:
            return
        self._recorder.emit("model_response", call=call, **entry.record_fields())

    def _record_failure(self, call: int, failure: ProviderHTTPError) -> None:
        if self._recorder is None:
            return
        self._recorder.emit(
            "model_response",
            call=call,
            failure={
                "status": failure.status,
                "message": failure.message,
                "retry_after": failure.retry_after,
            },
        )

    def close(self) -> None:
        """Close the HTTP client, if this provider made it."""
        if self._owns_client:
            self._client.close()

    def __enter__(self) -> OpenAICompatibleProvider:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _read(status: int, parse: Callable[[], ModelResponse]) -> ModelResponse:
    try:
        return parse()
    except wire.WireFormatError as exc:
        raise MalformedResponse(status, str(exc)) from exc
