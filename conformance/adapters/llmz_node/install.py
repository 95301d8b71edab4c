"""Installing the Node bridge's dependencies (llmz 1.0.1 and its pinned peers) on first use.

The bridge folder holds ``package.json`` with exact versions and a committed ``package-lock.json``;
``npm ci`` reproduces that tree in ``node_modules`` (git-ignored). llmz 1.0.1 declares peer versions the
registry does not have, so the folder's ``.npmrc`` sets ``legacy-peer-deps=true``: without it ``npm ci``
refuses the lock file. A stamp inside ``node_modules`` records a digest of the manifest and lock file, so
an edited lock file triggers a fresh install while an unchanged one costs nothing. A file lock keeps two
test workers from installing into the same folder at once.
"""

from __future__ import annotations

import fcntl
import hashlib
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BRIDGE_DIR = Path(__file__).resolve().parent
BRIDGE_SCRIPT = BRIDGE_DIR / "bridge.mjs"
NODE_MODULES = BRIDGE_DIR / "node_modules"
STAMP = NODE_MODULES / ".llmz-node-stamp"
INSTALL_TIMEOUT_S = 600.0


class BridgeUnavailable(RuntimeError):
    """The bridge cannot run here (no node/npm, or the install failed); the message says which and why."""


def missing_tools() -> list[str]:
    """The executables the bridge needs that are not on PATH (empty when it can run)."""
    return [tool for tool in ("node", "npm") if shutil.which(tool) is None]


def lock_digest() -> str:
    """Digest of what ``npm ci`` installs from: the manifest, the lock file and the npm settings."""
    digest = hashlib.sha256()
    for name in ("package.json", "package-lock.json", ".npmrc"):
        digest.update(name.encode())
        digest.update((BRIDGE_DIR / name).read_bytes())
    return digest.hexdigest()


def is_installed() -> bool:
    """True when node_modules was installed from the current lock file."""
    try:
        return STAMP.read_text(encoding="utf-8").strip() == lock_digest()
    except OSError:
        return False


def ensure_installed() -> float:
    """Run ``npm ci`` in the bridge folder unless it is current; returns the seconds spent installing."""
    missing = missing_tools()
    if missing:
        tools = " and ".join(missing)
        raise BridgeUnavailable(f"the llmz-node bridge needs {tools} on PATH (Node 20 or later)")
    with _lock_path().open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if is_installed():
            return 0.0
        return _npm_ci()


def _lock_path() -> Path:
    """One lock file per bridge folder, outside the repository (so it never shows up in git)."""
    key = hashlib.sha1(str(BRIDGE_DIR).encode()).hexdigest()[:12]
    return Path(tempfile.gettempdir()) / f"llmz-node-{key}.lock"


def _announce(message: str) -> None:
    """npm ci takes about a minute on first use; say so instead of going quiet (stderr, like progress)."""
    print(f"llmz-node: {message}", file=sys.stderr, flush=True)


def _npm_ci() -> float:
    started = time.monotonic()
    _announce(f"installing llmz 1.0.1 and its pinned dependencies (npm ci in {BRIDGE_DIR}); first use only")
    try:
        done = subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund"],
            cwd=BRIDGE_DIR,
            capture_output=True,
            text=True,
            timeout=INSTALL_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        limit = f"{INSTALL_TIMEOUT_S:.0f}s"
        raise BridgeUnavailable(f"npm ci in {BRIDGE_DIR} did not finish within {limit}") from exc
    if done.returncode != 0:
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-15:])
        raise BridgeUnavailable(f"npm ci in {BRIDGE_DIR} failed (exit {done.returncode}):\n{tail}")
    STAMP.write_text(lock_digest() + "\n", encoding="utf-8")
    _announce(f"npm ci done in {time.monotonic() - started:.0f}s")
    return time.monotonic() - started


NODE_FLAGS = ("--max-semi-space-size=64",)
"""A larger young generation: llmz allocates heavily while it measures and compacts long histories, and with
Node's default semi-space the scavenger runs so often that the llmz compaction scenarios spend about a
sixth more CPU (measured on those 18 cases: 10.8 s and 9.8 s without, 8.9 s and 8.2 s with)."""


def bridge_command() -> list[str]:
    """The command line that starts the bridge (after ``ensure_installed``)."""
    node = shutil.which("node") or "node"
    return [node, *NODE_FLAGS, str(BRIDGE_SCRIPT)]
