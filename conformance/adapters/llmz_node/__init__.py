"""The ``llmz-node`` preset: the suite against the real llmz 1.0.1 from npm, through a Node bridge.

``bridge.mjs`` in this folder speaks the stdio protocol of ``conformance.protocol`` (it mirrors
``python -m conformance.players.server``) and plays each llmz scenario on llmz itself, with the scripted model
standing in as an llmz custom model client. This module only gets the bridge running: on first use it
installs the pinned npm dependencies (``install.ensure_installed``), then starts ``node bridge.mjs`` under
the ordinary stdio adapter, so crashes, timeouts and restarts are handled exactly as for any other
implementation. Importing it is cheap: nothing is installed or started until the preset is used.
"""

from __future__ import annotations

from conformance.adapters.base import AdapterError
from conformance.adapters.llmz_node.install import (
    BRIDGE_DIR,
    BridgeUnavailable,
    bridge_command,
    ensure_installed,
    missing_tools,
)
from conformance.adapters.registry import register_preset
from conformance.adapters.stdio import StdioAdapter

PRESET = "llmz-node"

__all__ = ["PRESET", "BridgeUnavailable", "create", "ensure_installed", "missing_tools"]


def create() -> StdioAdapter:
    """Install the bridge if needed and return a stdio adapter that starts it on first use."""
    try:
        ensure_installed()
    except BridgeUnavailable as exc:
        raise AdapterError(str(exc)) from exc
    return StdioAdapter(bridge_command(), cwd=str(BRIDGE_DIR))


register_preset(PRESET, create)
