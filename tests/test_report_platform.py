"""The report's ``platform`` line says what ``platform.platform()`` says, without starting a process."""

from __future__ import annotations

import platform
import subprocess
import sys

import pytest

from conformance.report.metadata import describe_platform, run_metadata


def test_no_process_is_started_for_the_platform_line(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"a process was started: {args}")

    # The standard library remembers its answer; forget it, so a call to it here would start the process.
    monkeypatch.setattr(platform, "_uname_cache", None, raising=False)
    monkeypatch.setattr(platform, "_platform_cache", {}, raising=False)
    monkeypatch.setattr(subprocess, "Popen", refuse)
    line = describe_platform()
    assert line and run_metadata().platform == line


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the shortcut is exact on Linux only")
def test_on_linux_it_is_the_standard_librarys_answer() -> None:
    assert describe_platform() == platform.platform()
