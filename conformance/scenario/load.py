"""Loading scenario files, one at a time, so one broken file never stops the others.

``load_all`` returns loaded scenarios and load errors side by side; the runner turns each load error into
an ``error`` verdict for that file. Error messages name the file, the field (as a dotted location) and what
was expected, straight from pydantic's validation errors.

A process remembers what it loaded: ``load_file`` keeps each result with the exact bytes it came from,
and gives the same (frozen) result back while the file still holds those bytes. A pytest worker collects
and runs several modules that each load the whole suite; only the first pays for validating it. A changed
file is loaded again, whatever its size or modification time says. Treat what you get as read-only: it is
shared. ``payload``, the part handed to implementations, is a fresh copy on every read.
"""

from __future__ import annotations

import copy
import importlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from pydantic import ValidationError

from conformance.judging.normalise import scenario_values
from conformance.paths import SCENARIO_ROOT
from conformance.resources import files_under
from conformance.scenario.answer_key import case_payload
from conformance.scenario.twins import SHOWN, TwinError, shown, twin_id
from conformance.scenario.twins import apply as apply_twin
from conformance.systems import SYSTEMS
from conformance.validation import field_problems
from conformance.yamlio import YamlFileError, parse_yaml_bytes, read_file_bytes

if TYPE_CHECKING:
    from conformance.scenario.akan_scenario import AkanScenario
    from conformance.scenario.falai_scenario import FalaiScenario
    from conformance.scenario.llmz_scenario import LlmzScenario

AnyScenario: TypeAlias = "LlmzScenario | FalaiScenario | AkanScenario"


@dataclass(frozen=True)
class LoadedScenario:
    id: str
    path: Path
    document: dict[str, Any]
    scenario: AnyScenario
    twin_documents: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Each twin's name -> the document as that twin plays it (``conformance.scenario.twins``)."""

    @cached_property
    def kept_values(self) -> frozenset[str]:
        """The values the scenario itself wrote, which normalising a record keeps (``scenario_values``);
        worked out once per loaded scenario, not once per record judged against it."""
        return frozenset(scenario_values(self.document))

    @property
    def payload(self) -> dict[str, Any]:
        """What goes on the wire: the case (id, system, requires, setup, script, steps), no answer key.

        A fresh copy on every read, as the wire would give: loaded scenarios are shared (see the module
        docstring), so a runtime that changes what it was handed (a mutant that lets ``onInspect`` write
        through, say) must not change the case for anyone else."""
        fresh: dict[str, Any] = _fresh(case_payload(self.id, self.document))
        return fresh

    def twin_payload(self, name: str) -> dict[str, Any]:
        """What goes on the wire for one twin: an ordinary case with the id ``<id>~<name>``."""
        fresh: dict[str, Any] = _fresh(case_payload(twin_id(self.id, name), self.twin_documents[name]))
        return fresh


def _fresh(value: Any) -> Any:
    """A deep copy of YAML data: containers rebuilt, immutable scalars shared, anything else deep-copied
    (three times faster than ``copy.deepcopy`` on a scenario, which is plain data). It is the walk of
    ``reference.record.snapshot`` again on purpose: outside the players the harness may not import the
    reference (the layering contract in pyproject.toml), and the reference may not import the harness."""
    kind = type(value)
    if kind is dict:
        return {key: _fresh(item) for key, item in value.items()}
    if kind is list:
        return [_fresh(item) for item in value]
    if kind in _IMMUTABLE:
        return value
    return copy.deepcopy(value)


_IMMUTABLE = frozenset({str, int, float, bool, type(None)})


@dataclass(frozen=True)
class LoadError:
    id: str
    path: Path
    message: str


def scenario_id(path: Path, root: Path = SCENARIO_ROOT) -> str:
    text, prefix = str(path), str(root).rstrip("/") + "/"
    if text.startswith(prefix) and "\\" not in text and "/." not in text:  # pathlib's answer, by string
        stem, dot, suffix = text[len(prefix) :].rpartition(".")
        if dot and stem and not stem.endswith("/") and "/" not in suffix:
            return stem
    return path.relative_to(root).with_suffix("").as_posix()


def _describe(exc: ValidationError, path: Path) -> str:
    return "\n".join([f"{path}: invalid scenario", *("  " + line for line in field_problems(exc, path))])


_LOADED: dict[tuple[str, str], tuple[bytes, LoadedScenario | LoadError]] = {}
"""(root, path) -> the bytes last loaded from it and what they gave (see the module docstring)."""
_REMEMBERED = 4096
"""Files remembered at most (the suite has about 700); past it the memory starts afresh."""


def load_file(path: Path, root: Path = SCENARIO_ROOT) -> LoadedScenario | LoadError:
    sid = scenario_id(path, root)
    try:
        data = read_file_bytes(path)
    except YamlFileError as exc:
        return LoadError(sid, path, str(exc))
    where = (str(root), str(path))
    remembered = _LOADED.get(where)
    if remembered is not None and remembered[0] == data:
        return remembered[1]
    loaded = _load_bytes(data, path, sid)
    if len(_LOADED) >= _REMEMBERED:
        _LOADED.clear()
    _LOADED[where] = (data, loaded)
    return loaded


def _load_bytes(data: bytes, path: Path, sid: str) -> LoadedScenario | LoadError:
    try:
        document = parse_yaml_bytes(data, path)
    except YamlFileError as exc:
        return LoadError(sid, path, str(exc))
    if not isinstance(document, dict):
        return LoadError(
            sid, path, f"{path}: expected a mapping at the top level, got {type(document).__name__}"
        )
    try:
        scenario = parse_scenario(document)
    except ValidationError as exc:
        return LoadError(sid, path, _describe(exc, path))
    expected_system = sid.split("/", 1)[0]
    if scenario.system != expected_system:
        return LoadError(
            sid,
            path,
            f"{path}: field system: expected {expected_system!r} (the first folder), got {scenario.system!r}",
        )
    try:
        twins = _twin_documents(document, scenario)
    except TwinError as exc:
        return LoadError(sid, path, f"{path}: invalid scenario\n  {exc}")
    return LoadedScenario(sid, path, document, scenario, twins)


def _twin_documents(document: dict[str, Any], scenario: AnyScenario) -> dict[str, dict[str, Any]]:
    """Each twin's patched document, its case validated as an implementation would receive it."""
    from conformance.scenario.cases import parse_case

    twins: dict[str, dict[str, Any]] = {}
    for name, twin in scenario.twins.items():
        patched = apply_twin(document, name, twin)
        try:
            parse_case({k: v for k, v in case_payload("", patched).items() if k != "id"})
        except ValidationError as exc:
            raise TwinError(f"twins.{name}: the patched case is invalid: {_first_problem(exc)}") from exc
        twins[name] = patched
    return twins


def _first_problem(exc: ValidationError) -> str:
    error = exc.errors()[0]
    field = ".".join(map(str, error["loc"])) or "(case)"
    return f"field {shown(field) if len(field) > SHOWN else field}: {error['msg'][:SHOWN]}"


def parse_scenario(document: dict[str, Any]) -> AnyScenario:
    """``conformance.scenario.model.parse_scenario``, importing only the named system's models: a file of a
    known system is validated by that system's class (``conformance.scenario.<system>_scenario``), as the
    union would once it picked the member; anything else goes to the union, whose error names ``system``."""
    system = document.get("system")
    if isinstance(system, str) and system in SYSTEMS:
        module = importlib.import_module(f"conformance.scenario.{system}_scenario")
        chosen: type[AnyScenario] = getattr(module, f"{system.capitalize()}Scenario")
        return chosen.model_validate(document)
    from conformance.scenario.model import parse_scenario as parse_any

    return parse_any(document)


def scenario_files(root: Path = SCENARIO_ROOT, systems: Iterable[str] | None = None) -> list[Path]:
    """The scenario files under ``root``, only those of ``systems`` when given (nothing else is read)."""
    if systems is None:
        return [root.joinpath(*parts) for parts in files_under(root)]
    return [
        root.joinpath(system, *parts)
        for system in sorted(set(systems))
        for parts in files_under(root / system)
    ]


def may_match(path: Path, root: Path, keyword: str) -> bool:
    """Whether the scenario at ``path`` can be selected by ``-k keyword`` (its id or one of its rule ids
    contains it), judged without validating it: a rule id is written out in the file, so a file whose
    bytes do not contain the keyword cannot match unless it uses escapes (a backslash). Such a file's
    ``rules`` are read from its parsed YAML (the cache's copy, usually); a file whose ``rules`` are not a
    list of text, or that cannot be read or parsed, is loaded, so its error is reported as before."""
    if keyword in scenario_id(path, root):
        return True
    try:
        data = read_file_bytes(path)
    except YamlFileError:
        return True
    if keyword.encode("utf-8") in data:
        return True
    if b"\\" not in data:
        return False
    try:
        document = parse_yaml_bytes(data, path)
    except YamlFileError:
        return True
    rules = document.get("rules") if isinstance(document, dict) else None
    if not isinstance(rules, list) or not all(isinstance(rule, str) for rule in rules):
        return True
    return any(keyword in rule for rule in rules)


def load_all(
    root: Path = SCENARIO_ROOT, systems: Iterable[str] | None = None, keyword: str | None = None
) -> list[LoadedScenario | LoadError]:
    """Every scenario file (of ``systems``, when given), loaded one at a time. With ``keyword`` (``-k``),
    files that cannot match it are not parsed at all (``may_match``); the caller still selects exactly."""
    paths = scenario_files(root, systems)
    if keyword:
        paths = [path for path in paths if may_match(path, root, keyword)]
    return [load_file(path, root) for path in paths]
