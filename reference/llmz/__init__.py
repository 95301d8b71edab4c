"""The llmz reference runtime: a deliberately simple, readable model of llmz 1.0.2.

Theory of operation. ``play`` drives one ``Session`` (``session``) through a scenario's steps. Each
``execute`` (``execute``) repeats: build the request (``prompt``: system message and the single
``run_javascript`` declaration), let the token budget fit it (``fit``, owned by the budget work), send it
to the scripted model, then play the answer as one iteration (``iteration``). The iteration runs the
generated program in QuickJS (``sandbox``) against the host (``host``: tools with declarative handlers
from ``behaviours``, exits, chat components, ``inspect``), then settles it. Programs are contained: each
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

``standalone`` implements ``session.summarize()`` / ``session.compact()``; ``mutants`` and
``contract_mutants`` break one policy at a time to prove the scenarios notice.
"""
