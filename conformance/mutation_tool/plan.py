"""What is mutated, with which operators, and how much of it: the budget of ``nox -s mutation``.

Modules. Every module of the reference whose code decides a documented rule: its functions answer a
question a rule fixes (may this trigger start a run, which catalogue error is raised, what a restore
refuses, where the cut lands, what is withheld from the wire, who may call the relay), so a mechanical
change there is something an implementation could show. Two groups:

* ``CORE`` (``core=True``), the original eleven, which decide documented numbers and order: routing
  scores and takeovers, silence and wake timers, repeat scope (falai); compaction trigger and keep counts,
  the cut, readScreen's limit, attachment ceilings (Akan); the token window, reserve and fit, compaction
  and memory size (llmz). Their figure is printed apart so it stays comparable with earlier runs.
* ``EXTENDED``, every other rule-deciding module: conditions, the run engine (floor, live runs), the
  message turn and templates (falai); attachments, built-ins, commands, the composer, declarations and
  placement, explained errors, forms, the LLM adaptor, local state, relay guard, tool rows, sanitize,
  speech, state reads, ``akanjs/ui`` tools and the wire (Akan); configuration and definitions, the
  conversation and snapshot checks, diagnostics and guards, schema effects, the error catalogue and
  failure naming, the chat guard, the host and host API, inspection and previews, objects, pruning,
  component render, the request hook, restore and migration, the session, settle precedence,
  ThinkSignals, standalone summaries, streaming restarts, token counting and transcription (llmz).

Left out, as not deciding a rule themselves: setup types and records (``api``, ``model``,
``definitions`` of falai, ``inputs``, ``results``, ``reports``, ``events``, the ``policies`` objects, the
falai ``session`` record); orchestration that calls the policy functions above in order (llmz
``execute``, ``iteration``, ``program``, ``sandbox``; falai ``agent``; the Akan ``session`` shell and its
``page`` state); process and JavaScript machinery (``containment``, ``jsworker``, ``kernel``,
``vocabulary``, ``html_tree``); rendering whose shape the documents leave to the reference (``feedback``,
``prompt``, ``typescript``, Akan ``panel`` and ``digest``). A mutant there mostly crashes or changes
the reference's own wording, which says little about the suite. A measured module carries decisions
only. Code that decides no rule, where a mutant changes nothing any implementation could show, is kept
out of it rather than triaged one survivor at a time: value records are named tuples, not dataclasses
with a ``frozen=True`` flag to flip; and output whose whole shape the documents leave to the reference
lives in a module of its own, left out like other rendering (the Akan summarizer's digest,
``reference/akan/digest.py``: akan.compaction.summarizer.bounded-digest leaves its format and bounds
open, and its two documented properties, bounded and carrying the conversation, are pinned by scenarios
and hand-written mutants).

Budget. A core module gets ``PER_MODULE`` (20) mutants, an extended one ``EXTENDED_PER_MODULE`` (10),
each drawn by a seeded uniform sample (``random.Random(f"{seed}:{module}")``) from all the mutations
Cosmic Ray can make to it with the operators below: 220 + 408 = 628 mutants over 55 modules with seed 7
(five small extended modules have fewer than 10 mutations to draw from, and give all they have).
Each runs its own system's scenarios only, stopping at the first failed expectation. Killed mutants
cost 1-5 s, survivors a whole system's suite (llmz about 16 s on a quiet machine). Measured wall time
on two cores shared with five other sessions (2026-12-01, seed 7): the core group 5 minutes (three
systems side by side; 25 minutes under heavier load earlier); the extended group 44 minutes with llmz
(204 mutants) in one process and Akan then falai (166 + 38) in another, which finished after 18. Raise
``--per-module`` / ``--per-module-extended`` for a sharper figure; the sample, and so the score, is the
same for the same seed and source.

Operators. A subset of Cosmic Ray's core operators that correspond to how an implementation gets a rule
wrong: comparison swaps (a boundary moved by one, a condition negated), number replacement (a documented
constant off by one), ``not`` added or removed, ``and``/``or`` and ``True``/``False`` swapped, a loop that
never runs, ``break``/``continue`` swapped, arithmetic ``+``/``-`` and ``*``/``/`` swapped, an exception
handler that no longer matches. Bit operators, ``is`` comparisons and variable renaming are left out: they
nearly always crash or cannot change behaviour.

Excluded lines. Decorator lines carry no rule and are never sampled
(:mod:`conformance.mutation_tool.exclude`); no line is excluded by a marker. The score table reports, per
module, the population of wanted mutations and how many the decorator class set aside.

Invariants. Where the documents leave a value open (the byte encoding memory is measured in), a fast path
of the reference still has to give the answer its slow path gives; a scenario cannot pin that, a test can.
A target lists such tests (``Target.invariants``); the probe runs them on a mutant every scenario passes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PER_MODULE = 20
#: Mutants per module of the extended group (the budget's second half; see "Budget").
EXTENDED_PER_MODULE = 10
SEED = 7
#: Seconds per mutant before Cosmic Ray kills the test command and counts a timeout (a crash-kill).
TIMEOUT = 120.0
#: Seconds per scenario inside the test command (the reference answers in well under one).
CASE_TIMEOUT = 10.0


@dataclass(frozen=True)
class Target:
    """One module to mutate: its path, the system whose scenarios test it, the scenario areas to try first
    (most likely to kill, so the fail-fast probe stops sooner; every area still runs on a survivor)."""

    path: str
    system: str
    first: tuple[str, ...] = ()
    core: bool = False
    """One of the original eleven modules (numbers and order); the score table gives their figure apart."""
    invariants: tuple[str, ...] = ()
    """Test files (repository paths) pinning what the documents leave open but the module must keep: a
    fast path that must answer as the slow one does. The probe runs them on a mutant every scenario
    passes; a failure there is a kill by an invariant, counted apart from the kills by a scenario."""

    @property
    def name(self) -> str:
        return self.path.removeprefix("reference/").removesuffix(".py")


#: The original eleven: the modules that decide documented numbers and order (``core``).
CORE: tuple[Target, ...] = (
    Target("reference/falai/routing.py", "falai", ("routing", "live"), core=True),
    Target("reference/falai/timers.py", "falai", ("silence", "live"), core=True),
    Target("reference/falai/repeat.py", "falai", ("repeat",), core=True),
    Target("reference/akan/compaction.py", "akan", ("compaction",), core=True),
    Target("reference/akan/cut.py", "akan", ("compaction",), core=True),
    Target("reference/akan/screen.py", "akan", ("read-screen",), core=True),
    Target("reference/akan/ceilings.py", "akan", ("attachments",), core=True),
    Target("reference/llmz/fit.py", "llmz", ("budget", "compaction"), core=True),
    Target("reference/llmz/budget.py", "llmz", ("budget",), core=True),
    Target("reference/llmz/compaction.py", "llmz", ("compaction",), core=True),
    Target(
        "reference/llmz/memory.py", "llmz", ("memory",), core=True, invariants=("tests/test_memory_size.py",)
    ),
)

#: Every other rule-deciding policy module of the reference (see "Modules" above for the criterion and
#: for the modules left out and why).
EXTENDED: tuple[Target, ...] = (
    Target("reference/falai/conditions.py", "falai", ("triggers", "live")),
    Target("reference/falai/engine.py", "falai", ("live", "start")),
    Target("reference/falai/messages.py", "falai", ("message", "routing", "live")),
    Target("reference/falai/templates.py", "falai", ("start", "message")),
    Target("reference/akan/attachments.py", "akan", ("attachments",)),
    Target("reference/akan/builtins.py", "akan", ("builtin",)),
    Target("reference/akan/commands.py", "akan", ("slash",)),
    Target("reference/akan/composer.py", "akan", ("composer",)),
    Target("reference/akan/declarations.py", "akan", ("tools", "mounting")),
    Target("reference/akan/explain.py", "akan", ("llm",)),
    Target("reference/akan/forms.py", "akan", ("forms",)),
    Target("reference/akan/llm.py", "akan", ("llm",)),
    Target("reference/akan/local_state.py", "akan", ("local", "state")),
    Target("reference/akan/placement.py", "akan", ("zones", "mounting")),
    Target("reference/akan/relay.py", "akan", ("relay",)),
    Target("reference/akan/rows.py", "akan", ("transcript",)),
    Target("reference/akan/sanitize.py", "akan", ("sanitize",)),
    Target("reference/akan/speech.py", "akan", ("speech",)),
    Target("reference/akan/state_read.py", "akan", ("state",)),
    Target("reference/akan/ui_components.py", "akan", ("ui",)),
    Target("reference/akan/wire.py", "akan", ("transcript", "local", "compaction")),
    Target("reference/llmz/config.py", "llmz", ("exits", "basics")),
    Target("reference/llmz/conversation.py", "llmz", ("sessions", "invalid-input")),
    Target("reference/llmz/definitions.py", "llmz", ("invalid-input", "errors")),
    Target("reference/llmz/diagnostics.py", "llmz", ("errors", "api")),
    Target("reference/llmz/effects.py", "llmz", ("tools", "components")),
    Target("reference/llmz/errors.py", "llmz", ("errors", "error-recovery")),
    Target("reference/llmz/failures.py", "llmz", ("errors", "error-recovery")),
    Target("reference/llmz/guard.py", "llmz", ("chat-guard",)),
    Target("reference/llmz/host.py", "llmz", ("tools", "exits", "components")),
    Target("reference/llmz/host_api.py", "llmz", ("api", "components", "inspection")),
    Target("reference/llmz/inspector.py", "llmz", ("inspection",)),
    Target("reference/llmz/objects.py", "llmz", ("objects",)),
    Target("reference/llmz/preview.py", "llmz", ("inspection",)),
    Target("reference/llmz/pruning.py", "llmz", ("sessions", "compaction")),
    Target("reference/llmz/render.py", "llmz", ("components",)),
    Target("reference/llmz/request_hook.py", "llmz", ("hooks",)),
    Target("reference/llmz/restore.py", "llmz", ("migration", "sessions")),
    Target("reference/llmz/session.py", "llmz", ("sessions", "chat-guard")),
    Target("reference/llmz/settle.py", "llmz", ("think-signal", "errors", "exits")),
    Target("reference/llmz/signals.py", "llmz", ("think-signal",)),
    Target("reference/llmz/standalone.py", "llmz", ("sessions", "compaction")),
    Target("reference/llmz/streaming.py", "llmz", ("streaming",)),
    Target("reference/llmz/tokens.py", "llmz", ("budget",)),
    # Added after the 2026-12-01 measurement (it came with main's transcription rule): not in that figure.
    Target("reference/llmz/transcription.py", "llmz", ("configuration",)),
)

TARGETS: tuple[Target, ...] = CORE + EXTENDED

SYSTEMS: tuple[str, ...] = ("falai", "akan", "llmz")
#: Scenario areas played last: the hostile llmz programs take a second each and are not what these modules
#: decide, so a mutant that a quicker case kills never waits for them.
LAST: tuple[str, ...] = ("hostile",)

#: Cosmic Ray operator names (``core/<Name>``) that are sampled; everything else is never run.
OPERATORS = re.compile(
    r"core/("
    r"ReplaceComparisonOperator_(Eq|NotEq|Lt|LtE|Gt|GtE)_(Eq|NotEq|Lt|LtE|Gt|GtE)"
    r"|ReplaceBinaryOperator_(Add_Sub|Sub_Add|Mul_Div|Div_Mul|FloorDiv_Mul|Mod_FloorDiv)"
    r"|ReplaceUnaryOperator_Delete_Not|ReplaceUnaryOperator_USub_UAdd"
    r"|AddNot|ReplaceTrueWithFalse|ReplaceFalseWithTrue|ReplaceAndWithOr|ReplaceOrWithAnd"
    r"|ReplaceBreakWithContinue|ReplaceContinueWithBreak|NumberReplacer|ZeroIterationForLoop"
    r"|ExceptionReplacer"
    r")"
)


def wanted_operator(name: str) -> bool:
    return OPERATORS.fullmatch(name) is not None


def target(name_or_path: str) -> Target:
    """The target named ``falai/routing`` or ``reference/falai/routing.py``; a clear error otherwise."""
    for item in TARGETS:
        if name_or_path in (item.name, item.path):
            return item
    known = ", ".join(item.name for item in TARGETS)
    raise KeyError(f"no mutation target {name_or_path!r}; known: {known}")
