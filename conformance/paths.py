"""Where things live (one place, so tests can point the tools at temporary trees).

The catalogue and scenarios come from ``conformance.resources``: the clone's folders when run from a clone,
the package's copy when installed. Reports go under the current directory (``./build``), never next to the
package. ``REPO_ROOT`` and ``GOLDEN_ROOT`` only mean something in a clone (the golden transcripts are not
shipped); the tools that write into the repository use them.
"""

from __future__ import annotations

from pathlib import Path

from conformance import resources

REPO_ROOT = resources.CHECKOUT_DIR
SPEC_ROOT = resources.spec_root()
SCHEMA_DIR = SPEC_ROOT / "schema"
PROTOCOL_DIR = SPEC_ROOT / "protocol"
LEDGER = SPEC_ROOT / "ids.txt"
SCENARIO_ROOT = resources.scenario_root()
GOLDEN_ROOT = REPO_ROOT / "fixtures" / "golden"
BASELINE_DIR = resources.baseline_dir()
#: Relative on purpose: reports land under the directory the command was run from.
BUILD_ROOT = Path("build")
