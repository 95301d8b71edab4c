"""Writing report files so that they are never half-written, never lost and never mixed between runs.

* ``write_atomic`` writes to a temporary file in the same directory and renames it over the target:
  a reader (a CI step, a dashboard polling the file) sees the old report or the new one, never a torn one.
* ``ReportDirectory.claim`` is called before the first case: it creates the directory, proves it is
  writable (so a run never plays for an hour and then loses its results to a permission error) and takes
  an exclusive lock on it, so a second run into the same directory is refused with the first run's pid
  instead of silently overwriting its files. The lock is released when the run ends (or its process dies:
  it is an ``flock``, which the kernel drops with the process).
* Nothing planted in the directory is followed (issue 23): a report directory that is a symbolic link, or
  that holds a link, a folder or anything but a regular file where a report file or the lock belongs, is
  refused before the first case; the lock is opened with ``O_NOFOLLOW`` and temporary files are created
  with ``O_EXCL`` (``mkstemp``), so no run ever truncates or writes a file a link points at.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path
from types import TracebackType

try:
    import fcntl
except ImportError:  # pragma: no cover - not on POSIX: no lock, the other guarantees still hold
    fcntl = None  # type: ignore[assignment]

LOCK_NAME = ".conformance-run.lock"
#: The files a run writes into its report directory: each must be absent or a regular file.
REPORT_FILES = ("report.json", "junit.xml", "report.md", "report.html")
_FILE_MODE = 0o644
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class ReportDirectoryError(Exception):
    """The report directory cannot be used; the message says which directory and why."""


def write_atomic(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` (UTF-8) in one rename; on failure the old file stays untouched.

    A character UTF-8 cannot encode (a lone surrogate) is written as its backslash escape, which inside a
    JSON string is the same character again."""
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        # backslashreplace: a lone surrogate (JSON allows "\ud800", and an implementation's record may
        # carry one into a message) is written as that same escape instead of failing the whole report.
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
            os.fchmod(handle.fileno(), _FILE_MODE)  # the file itself, never whatever its name points at
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _kind(mode: int) -> str:
    """What is there instead of a regular file, in words."""
    return "a symbolic link" if stat.S_ISLNK(mode) else "a folder" if stat.S_ISDIR(mode) else "not a file"


def folder_problem(folder: Path) -> str | None:
    """Why files cannot be written into ``folder`` (created when missing), or None; called before any
    work starts, so a run never loses what it found to an unwritable destination (issue 23, item 6)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe_fd, probe = tempfile.mkstemp(dir=folder, prefix=".write-check.", suffix=".tmp")
        os.close(probe_fd)
        os.unlink(probe)
    except OSError as exc:
        return f"cannot write to {folder}: {exc.strerror or exc}"
    return None


def file_problem(path: Path) -> str | None:
    """Why ``write_atomic`` could not replace ``path`` (a folder, link or special file there, or a folder
    that cannot be written), or None."""
    with contextlib.suppress(FileNotFoundError, NotADirectoryError):
        mode = os.lstat(path).st_mode
        if not stat.S_ISREG(mode):
            return f"cannot write {path}: it is {_kind(mode)}"
    return folder_problem(path.parent)


class ReportDirectory:
    """A report directory claimed by this run (a context manager; ``release`` ends the claim)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock_fd: int | None = None

    def claim(self) -> ReportDirectory:
        """Create, check and lock the directory; ``ReportDirectoryError`` when any of that fails."""
        self._refuse_links()
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            probe_fd, probe = tempfile.mkstemp(dir=self.path, prefix=".write-check.", suffix=".tmp")
            os.close(probe_fd)
            os.unlink(probe)
        except OSError as exc:
            raise ReportDirectoryError(
                f"cannot write reports to {self.path}: {exc.strerror or exc}; "
                "choose another directory with --report-dir"
            ) from exc
        self._refuse_planted()
        self._lock()
        return self

    def _refuse_links(self) -> None:
        """The directory itself must be a real directory (or not exist yet), never a link."""
        with contextlib.suppress(FileNotFoundError, NotADirectoryError):
            info = os.lstat(self.path)
            if not stat.S_ISDIR(info.st_mode):
                kind = "a symbolic link" if stat.S_ISLNK(info.st_mode) else "not a directory"
                raise ReportDirectoryError(
                    f"cannot write reports to {self.path}: it is {kind}; "
                    "choose another directory with --report-dir"
                )

    def _refuse_planted(self) -> None:
        """Every report file and the lock must be absent or a regular file: a link would be followed by
        a reader, and a folder there would lose the results only after every case was played."""
        for name in (*REPORT_FILES, LOCK_NAME):
            try:
                mode = os.lstat(self.path / name).st_mode
            except FileNotFoundError:
                continue
            except OSError as exc:
                raise ReportDirectoryError(f"cannot check {self.path / name}: {exc.strerror}") from exc
            if not stat.S_ISREG(mode):
                kind = (
                    "a symbolic link"
                    if stat.S_ISLNK(mode)
                    else "a folder"
                    if stat.S_ISDIR(mode)
                    else "not a file"
                )
                raise ReportDirectoryError(
                    f"cannot write reports to {self.path}: {name} there is {kind}; remove it or "
                    "choose another directory with --report-dir"
                )

    def _lock(self) -> None:
        if fcntl is None:  # pragma: no cover
            return
        lock_path = self.path / LOCK_NAME
        try:
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | _NOFOLLOW | os.O_NONBLOCK, _FILE_MODE)
        except OSError as exc:
            raise ReportDirectoryError(f"cannot create the lock file {lock_path}: {exc.strerror}") from exc
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # swapped in after the check above
            os.close(fd)
            raise ReportDirectoryError(f"cannot lock {self.path}: {lock_path} is not a regular file")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.read(fd, 64).decode("ascii", errors="replace").strip() or "unknown"
            os.close(fd)
            raise ReportDirectoryError(
                f"another run (pid {holder}) is writing reports to {self.path}; wait for it to finish "
                "or choose another directory with --report-dir"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._lock_fd = fd

    def write(self, name: str, text: str) -> Path:
        target = self.path / name
        write_atomic(target, text)
        return target

    def release(self) -> None:
        fd, self._lock_fd = self._lock_fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)  # closing drops the flock; the file stays, it is only a rendezvous point

    def __enter__(self) -> ReportDirectory:
        return self.claim()

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()
