"""Where things live in the repository (one place, so tests can point the tools at temporary trees)."""

from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
SPEC_ROOT = REPO_ROOT / "spec"
SCHEMA_DIR = SPEC_ROOT / "schema"
PROTOCOL_DIR = SPEC_ROOT / "protocol"
LEDGER = SPEC_ROOT / "ids.txt"
SCENARIO_ROOT = REPO_ROOT / "fixtures" / "scenarios"
GOLDEN_ROOT = REPO_ROOT / "fixtures" / "golden"
BUILD_ROOT = REPO_ROOT / "build"
