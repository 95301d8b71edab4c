"""What is mutated, with which operators, and how much of it: the budget of ``nox -s mutation``.

Budget. Every module gets the same number of mutants, ``PER_MODULE``, drawn by a seeded uniform sample
(``random.Random(f"{seed}:{module}")``) from all the mutations Cosmic Ray can make to it with the
operators below. With the defaults (20 per module, 11 modules, seed 7) that is 220 mutants; each runs its
own system's scenarios only, stopping at the first failed expectation. Measured: 25 minutes with the three
systems side by side (``--jobs 3``) on two cores shared with other work; llmz, whose suite takes about
16 s for a survivor, dominates. Killed mutants cost 1-5 s, survivors a whole system's suite. Raise
``--per-module`` for a sharper figure; the sample, and so the score, is the same for the same seed and
source.

Modules. Those whose code decides a documented number or order: routing scores and takeovers, silence
and wake timers, repeat scope (falai); compaction trigger and keep counts, the cut, readScreen's limit,
attachment ceilings (Akan); the token window, reserve and fit, compaction (llmz). Glue, rendering and
record-building modules are left out: a mutant there mostly crashes, which says little about the suite.
A measured module carries decisions only. Code that decides no rule, where a mutant changes nothing any
implementation could show, is kept out of it rather than triaged one survivor at a time: value records
are named tuples, not dataclasses with a ``frozen=True`` flag to flip; and output whose whole shape the
documents leave to the reference lives in a module of its own, left out like other rendering (the Akan
summarizer's digest, ``reference/akan/digest.py``: akan.compaction.summarizer.bounded-digest leaves its
format and bounds open, and its two documented properties, bounded and carrying the conversation, are
pinned by scenarios and hand-written mutants).

Operators. A subset of Cosmic Ray's core operators that correspond to how an implementation gets a rule
wrong: comparison swaps (a boundary moved by one, a condition negated), number replacement (a documented
constant off by one), ``not`` added or removed, ``and``/``or`` and ``True``/``False`` swapped, a loop that
never runs, ``break``/``continue`` swapped, arithmetic ``+``/``-`` and ``*``/``/`` swapped, an exception
handler that no longer matches. Bit operators, ``is`` comparisons and variable renaming are left out: they
nearly always crash or cannot change behaviour.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PER_MODULE = 20
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

    @property
    def name(self) -> str:
        return self.path.removeprefix("reference/").removesuffix(".py")


TARGETS: tuple[Target, ...] = (
    Target("reference/falai/routing.py", "falai", ("routing", "live")),
    Target("reference/falai/timers.py", "falai", ("silence", "live")),
    Target("reference/falai/repeat.py", "falai", ("repeat",)),
    Target("reference/akan/compaction.py", "akan", ("compaction",)),
    Target("reference/akan/cut.py", "akan", ("compaction",)),
    Target("reference/akan/screen.py", "akan", ("read-screen",)),
    Target("reference/akan/ceilings.py", "akan", ("attachments",)),
    Target("reference/llmz/fit.py", "llmz", ("budget", "compaction")),
    Target("reference/llmz/budget.py", "llmz", ("budget",)),
    Target("reference/llmz/compaction.py", "llmz", ("compaction",)),
    Target("reference/llmz/memory.py", "llmz", ("memory",)),
)

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
