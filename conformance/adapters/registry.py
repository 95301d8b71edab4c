"""From an ``--impl`` spec to an adapter, plus the registry of named presets.

Specs: ``reference`` (in-process), ``reference[<mutant>]`` (one rule broken), ``reference[<permitted
variant>]`` (a different allowed choice), ``stdio:<command>``, ``python:<module>:<factory>``, or a preset
name. Presets are bridges the project ships (``llmz-node``); a preset package registers itself with
``register_preset`` when imported, and the registry imports the known preset packages lazily, the first
time a name is looked up, so the harness never pays for (or depends on) a bridge it is not using. The
registry is the one piece of global state.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable

from conformance.adapters.base import DEFAULT_TIMEOUT, Adapter, AdapterError
from conformance.adapters.python_factory import PythonAdapter, load_factory
from conformance.adapters.reference import ReferenceAdapter
from conformance.adapters.stdio import StdioAdapter, command_argv

PresetFactory = Callable[[], Adapter]

#: Packages that register presets when imported; missing ones are simply absent.
PRESET_PACKAGES = ("conformance.adapters.llmz_node",)

_PRESETS: dict[str, PresetFactory] = {}
_imported = False
_REFERENCE = re.compile(r"^reference(?:\[(?P<mutant>[^\]]+)\])?$")


def register_preset(name: str, factory: PresetFactory) -> None:
    """Make ``--impl <name>`` build an adapter with ``factory()`` (re-registering replaces)."""
    _PRESETS[name] = factory


def _import_presets() -> None:
    global _imported
    if _imported:
        return
    _imported = True
    for package in PRESET_PACKAGES:
        try:
            importlib.import_module(package)
        except ModuleNotFoundError as exc:
            if exc.name is None or not package.startswith(exc.name):
                raise


def presets() -> dict[str, PresetFactory]:
    _import_presets()
    return dict(_PRESETS)


def create(spec: str, *, hello_timeout: float = DEFAULT_TIMEOUT) -> Adapter:
    """The adapter a spec names; raises AdapterError with the accepted forms when it names nothing."""
    reference = _REFERENCE.match(spec)
    if reference:
        try:
            return ReferenceAdapter(reference.group("mutant"))
        except KeyError as exc:
            raise AdapterError(str(exc.args[0])) from exc
    if spec.startswith("stdio:"):
        return StdioAdapter(command_argv(spec[len("stdio:") :]), hello_timeout=hello_timeout)
    if spec.startswith("python:"):
        target = spec[len("python:") :]
        return PythonAdapter(load_factory(target), target)
    known = presets()
    if spec in known:
        return known[spec]()
    raise AdapterError(
        f"unknown implementation {spec!r}: use reference, reference[<mutant>], stdio:<command>, "
        f"python:<module>:<factory> or a preset ({', '.join(sorted(known)) or 'none registered'})"
    )


def display_name(spec: str) -> str:
    """A file-system-safe name for the spec, used for the default report directory."""
    name = re.sub(r"[^A-Za-z0-9._]+", "-", spec).strip("-.")
    return name[:80] or "implementation"
