"""Ending a command-line process without the collector's last passes over everything it built.

Why. As the interpreter shuts down it runs full garbage collections over every object still alive: in a
run of the suite (or in the reference's stdio server) that is every model, scenario and record built
since start-up, and it cost about a tenth of the CPU of a ``--system falai`` or ``--system akan`` run.
Those objects die with the process anyway; nothing waits on the collector to find them.

``exiting`` freezes them (``gc.freeze``: moved to a generation the collector never scans), so those
passes have next to nothing to traverse. Exit handlers (``atexit``: the llmz reference's worker reaping,
temporary folders) run exactly as before, and buffered output is flushed as before. Only process entry
points call it, right before they exit: a process that goes on (pytest calling ``main``) must not freeze
its heap, or cyclic garbage it still holds would never be collected.
"""

from __future__ import annotations

import gc


def exiting() -> None:
    """Call as the last thing before a process exits (see the module docstring)."""
    gc.freeze()
