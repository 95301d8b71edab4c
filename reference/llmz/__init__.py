"""The llmz reference runtime: a deliberately simple, readable model of llmz 1.0.2.

Use it as a library::

    from reference.llmz import Session, Tool, execute
    from reference.providers import ModelResponse, ScriptedProvider, ToolCall

    session = Session()
    session.append([{"role": "user", "content": "What is 2 + 3?"}])
    model = ScriptedProvider([ModelResponse(tool_calls=[ToolCall(code="...")])])
    result = execute(session, model, tools=[Tool("add", lambda args: args["a"] + args["b"])])

Theory of operation. A ``Session`` (``session``) holds one conversation. Each ``execute``
(``execute``) repeats: build the request (``prompt``: system message and the single
``run_javascript`` declaration), let the token budget fit it (``fit``, owned by the budget work), send it
to the model provider, then play the answer as one iteration (``iteration``). The iteration runs the
generated program in QuickJS (``sandbox``) against the host (``host``: tools with Python handlers, exits,
chat components, ``inspect``), then settles it. Programs are contained: each
runs in a worker process with time, heap and payload limits (``containment``, ``jsworker``) behind an API
the program cannot reach past or forge (``kernel``).

The rules that decide outcomes are pure functions, each in one module and each citing its rule ids:

* ``settle`` — what ends an iteration: critical failure > ThinkSignal inspection > recoverable error >
  exit > continue;
* ``guard`` — the chat response guard: who spoke last, and whether ``listen`` may complete;
* ``signals`` — how a ThinkSignal reaches generated code and which signals are reported;
* ``preview`` — the inspector and its display budget;
* ``feedback`` — the report sections the next request carries;
* ``memory`` — exact session memory: variables, ``$return``/``$iterations``, the codec and the byte limit;
* ``program`` — running one program and naming its failure (reserved names, unknown tools, unawaited
  calls, memory errors);
* ``definitions`` — configuration checks made before any iteration (INVALID_CONFIG and friends);
* ``objects``, ``inspector``, ``request_hook``, ``typescript`` — registered objects, ``onInspect``,
  ``onBeforeRequest`` and the TypeScript shapes in validation errors.

``standalone`` implements ``session.summarize()`` / ``session.compact()``; ``render`` the standalone
``component.render()``; ``diagnostics`` what a host reads after a run (the error guards, iteration error
fields, ``result.diagnostics()`` / ``result.toJSON()``). Every decision above is
reached through one ``Policies`` object (``policies``) that the session carries, so a variant of the
runtime is another policy object, never a patch; the harness's mutants live in ``variants``.
"""

from reference.llmz.api import (
    NEVER_SETTLES,
    Abort,
    Chat,
    Compaction,
    Component,
    Effect,
    ExecutionResult,
    Exit,
    ExitResult,
    Hooks,
    HostObject,
    IterationResult,
    Model,
    Observer,
    Options,
    Property,
    SchemaIssue,
    ThinkSignal,
    Tool,
    Truncated,
    truncate,
)
from reference.llmz.errors import LlmzError
from reference.llmz.execute import execute
from reference.llmz.inspector import InspectEvent
from reference.llmz.policies import DEFAULT_POLICIES, Policies
from reference.llmz.pruning import AbortSignal, prune, request_messages
from reference.llmz.session import Session
from reference.llmz.standalone import compact, summarize

__all__ = [
    "DEFAULT_POLICIES",
    "NEVER_SETTLES",
    "Abort",
    "AbortSignal",
    "Chat",
    "Compaction",
    "Component",
    "Effect",
    "ExecutionResult",
    "Exit",
    "ExitResult",
    "Hooks",
    "HostObject",
    "InspectEvent",
    "IterationResult",
    "LlmzError",
    "Model",
    "Observer",
    "Options",
    "Policies",
    "Property",
    "SchemaIssue",
    "Session",
    "ThinkSignal",
    "Tool",
    "Truncated",
    "compact",
    "execute",
    "prune",
    "request_messages",
    "summarize",
    "truncate",
]
