"""Helpers the akan mutant modules share."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager


@contextmanager
def patch_all(*patches: AbstractContextManager[object]) -> Iterator[None]:
    """Several patches as one, for a mutant whose rule lives in more than one place."""
    with ExitStack() as stack:
        for patch in patches:
            stack.enter_context(patch)
        yield
