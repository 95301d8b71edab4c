"""The capability flags the reference declares, per system, apart from the players.

A hello lists them for every system; reading them here keeps the hello from importing every player (and
so every reference runtime, with its tokenizer and JavaScript engine) before a single case is played: a
``--system falai`` run, in-process or over stdio, only ever imports the falai runtime. Each player exposes
its own entry as ``CAPABILITIES``.
"""

from __future__ import annotations

from typing import Final

LLMZ: Final[tuple[str, ...]] = ()

FALAI: Final[tuple[str, ...]] = (
    "falai.turn",
    "falai.wake",
    "falai.event",
    "falai.start",
    "falai.business-hours",
)
"""``falai.business-hours``: the declarative ``setup.businessHours`` stand-in for the agent's function."""

AKAN: Final[tuple[str, ...]] = (
    "akan.compaction", "akan.attachments", "akan.local-notes", "akan.stop", "akan.storage", "akan.commands",
    "akan.relay", "akan.voice",
)

BY_SYSTEM: Final[dict[str, tuple[str, ...]]] = {"llmz": LLMZ, "falai": FALAI, "akan": AKAN}
