"""The stdio protocol versions this harness speaks, in a module of their own.

Why not in ``conformance.protocol``: that module builds the protocol's pydantic models (and the record
envelope's) as it is imported, and the reference's stdio server, which only needs to pick a version in
its hello, would pay for building them at every start of the child.
"""

from __future__ import annotations

PROTOCOL_VERSIONS = (2, 3)
"""Offered by the harness in its hello, newest last; an implementation answers with one of them.

Version 3 changes no message, only what a record must hold (fewer required fields, open sets, events of
the implementation's own types and ``x-`` fields allowed): every version-2 record is a version-3 record,
so the harness judges both the same way, and keeps offering 2 while implementations migrate."""
