"""Cache files that only this user's own runs can have written, checked before anything in them is believed.

Why. A cache is an input the user never named: whatever sits in its folder is read by every run. The
caches of parsed YAML (``conformance.yamlcache``), of the tokenizer (``reference.llmz.vocabulary``) and of
token counts (``reference.llmz.token_counts``) used to believe any file with the right name, so a planted
entry could replace a scenario, a vocabulary or a count and change a verdict; a huge or deeply nested one
could end the run. An entry's name being a digest of what it stands for does not help: anyone can compute
that digest.

How. Every entry is sealed: its first line is an HMAC-SHA256, under a secret key of this cache folder, of
the entry's name and its payload. Only a process that could read the key can make a seal that verifies,
and the key is kept where only this user can read it:

* the folder is used only when it is a real directory (not a link), owned by this user, and writable by
  nobody else (it is created ``0700``); otherwise the cache is off for this run, which only costs speed;
* the key (``.key``, 32 random bytes) is created with ``O_EXCL | O_NOFOLLOW`` and mode ``0600``, and is
  believed only when it is a regular file of this user that nobody else can read or write;
* an entry is opened with ``O_NOFOLLOW``, must be a regular file of this user no larger than the caller's
  bound, and is ignored (a miss, rebuilt by the caller) unless its seal verifies.

So a file that anyone else planted, or that this user wrote by hand, is never used; an entry that does not
verify costs one rebuild. Nothing here raises: every failure is a miss or a skipped write.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import stat
import tempfile
from pathlib import Path

KEY_NAME = ".key"
_KEY_BYTES = 32
_SEAL_CHARS = 64  # hex HMAC-SHA256
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_PRIVATE = 0o077  # permission bits nobody but the owner may hold on the key


def usable_folder(folder: Path) -> bool:
    """Create ``folder`` (``0700``) if needed; True when it is a directory only this user can write."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.lstat(folder)
    except OSError:
        return False
    owner = getattr(os, "getuid", lambda: info.st_uid)()
    return stat.S_ISDIR(info.st_mode) and info.st_uid == owner and not info.st_mode & 0o022


def _key(folder: Path) -> bytes | None:
    """The folder's secret, created on first use; checked on every call, read once per key file."""
    if not usable_folder(folder):
        return None
    path = folder / KEY_NAME
    if not os.path.lexists(path):
        _create_key(folder, path)
    try:
        info = os.lstat(path)
    except OSError:
        return None
    if not _private_file(info):
        return None
    where = (str(path), info.st_ino, info.st_mtime_ns)
    if where not in _KEYS:
        secret = _read_key(path)
        if secret is None:
            return None  # not remembered: a key being created by another run is read again next time
        _KEYS[where] = secret
    return _KEYS[where]


_KEYS: dict[tuple[str, int, int], bytes] = {}
"""Keys read by this process, by file, inode and change time."""


def _create_key(folder: Path, path: Path) -> None:
    """Write a new key under a temporary name and link it into place: a concurrent run sees either no key
    or a whole one, and the first link wins."""
    with contextlib.suppress(OSError):
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".key-")
        try:
            try:
                os.fchmod(handle, 0o600)
                os.write(handle, os.urandom(_KEY_BYTES))
            finally:
                os.close(handle)
            with contextlib.suppress(FileExistsError):
                os.link(temporary, path)
        finally:
            os.unlink(temporary)


def _private_file(info: os.stat_result) -> bool:
    owner = getattr(os, "getuid", lambda: info.st_uid)()
    return stat.S_ISREG(info.st_mode) and info.st_uid == owner and not info.st_mode & _PRIVATE


def _read_key(path: Path) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        if not _private_file(os.fstat(fd)):
            return None
        secret = os.read(fd, _KEY_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    return secret if len(secret) == _KEY_BYTES else None


def _seal(secret: bytes, name: str, payload: bytes) -> bytes:
    return hmac.new(secret, name.encode() + b"\0" + payload, hashlib.sha256).hexdigest().encode()


def read(folder: Path, name: str, max_bytes: int) -> bytes | None:
    """The payload of entry ``name`` when it is this cache's own, sealed and at most ``max_bytes``; else
    None (a missing, planted, altered, linked, oversized or unreadable entry alike)."""
    secret = _key(folder)
    if secret is None:
        return None
    try:
        fd = os.open(folder / name, os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        owner = getattr(os, "getuid", lambda: info.st_uid)()
        limit = max_bytes + _SEAL_CHARS + 1
        if not stat.S_ISREG(info.st_mode) or info.st_uid != owner or info.st_size > limit:
            return None
        with os.fdopen(os.dup(fd), "rb") as handle:
            data = handle.read(limit + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    seal, newline, payload = data[:_SEAL_CHARS], data[_SEAL_CHARS : _SEAL_CHARS + 1], data[_SEAL_CHARS + 1 :]
    if newline != b"\n" or len(payload) > max_bytes:
        return None
    return payload if hmac.compare_digest(seal, _seal(secret, name, payload)) else None


def write(folder: Path, name: str, payload: bytes) -> None:
    """Seal ``payload`` as entry ``name`` (temporary file, then one rename); never raises."""
    secret = _key(folder)
    if secret is None:
        return
    with contextlib.suppress(OSError):
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".tmp-")
        try:
            with os.fdopen(handle, "wb") as out:
                os.fchmod(out.fileno(), 0o600)
                out.write(_seal(secret, name, payload) + b"\n" + payload)
            os.replace(temporary, folder / name)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
