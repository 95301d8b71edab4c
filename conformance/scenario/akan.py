"""The akan scenario vocabulary: what `setup` may configure and which `steps` exist.

Owned by the akan reference work; extend it as rules need (every field documented, no catch-all dicts).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from conformance.scenario.common import Strict


class Setup(Strict):
    """System configuration for one akan scenario."""

    options: dict[str, object] = Field(default_factory=dict)


class NoteStep(Strict):
    """Placeholder step; replace with the real akan vocabulary."""

    op: Literal["note"]
    text: str = ""


Step = NoteStep
