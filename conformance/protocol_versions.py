"""The stdio protocol versions this harness speaks, in a module of their own.

Why not in ``conformance.protocol``: that module builds the protocol's pydantic models (and the record
envelope's) as it is imported, and the reference's stdio server, which only needs to pick a version in
its hello, would pay for building them at every start of the child.
"""

from __future__ import annotations

PROTOCOL_VERSIONS = (2,)
"""Offered by the harness in its hello, newest last; an implementation answers with one of them."""
