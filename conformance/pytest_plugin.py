"""pytest plugin: the conformance suite as pytest items, one per scenario.

Inactive unless ``--conformance-impl SPEC`` is given, so ordinary test runs never notice it (it only
registers the ``rule`` marker). When active, pytest runs the suite instead of collecting test files:
each scenario is one item whose node id is the scenario id (``akan/compaction/is-compacting-flag``),
marked ``rule(<id>)`` for each rule it pins, with the rule ids also added as keywords. So
``-k llmz.budget``, ``-x``, ``--lf`` and ``-n 4`` (xdist: each worker starts its own implementation)
behave as pytest users expect. ``--conformance-expected-failures FILE`` turns covered scenarios into
strict xfails: a covered scenario that passes is XPASS(strict), i.e. a stale baseline entry fails.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conformance import argtypes, baseline
from conformance.adapters.base import DEFAULT_TIMEOUT, Adapter, AdapterError
from conformance.adapters.registry import create
from conformance.paths import SCENARIO_ROOT
from conformance.protocol import ImplementationInfo
from conformance.runner import CaseResult, Selection, run_case, select
from conformance.scenario.load import LoadedScenario, LoadError


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("conformance", "agent runtime conformance suite")
    group.addoption(
        "--conformance-impl",
        default=None,
        metavar="SPEC",
        help="run the conformance suite against SPEC (reference, stdio:<cmd>, python:<m>:<f>, preset)",
    )
    group.addoption(
        "--conformance-timeout",
        type=argtypes.seconds,
        default=DEFAULT_TIMEOUT,
        metavar="S",
        help="seconds per scenario (default 30)",
    )
    group.addoption(
        "--conformance-scenarios",
        type=Path,
        default=SCENARIO_ROOT,
        metavar="DIR",
        help="scenario root (default fixtures/scenarios)",
    )
    group.addoption(
        "--conformance-system",
        action="append",
        default=None,
        metavar="SYSTEM",
        help="only this system (repeatable)",
    )
    group.addoption(
        "--conformance-expected-failures",
        type=Path,
        default=None,
        metavar="FILE",
        help="expected-failures baseline: covered scenarios become strict xfails",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "rule(id): the catalogue rule id a conformance scenario pins")
    if config.getoption("conformance_impl"):
        config.pluginmanager.register(ConformanceSession(config), "conformance-session")


class ScenarioFailed(Exception):
    """A fail or error verdict; its message is the verdict's message (the failing matchers and rules)."""

    def __init__(self, result: CaseResult) -> None:
        super().__init__(result.message)
        self.result = result


class ConformanceSession:
    """Owns the adapter for this pytest process (each xdist worker has its own)."""

    def __init__(self, config: pytest.Config) -> None:
        self.spec: str = config.getoption("conformance_impl")
        self.timeout: float = config.getoption("conformance_timeout")
        self.root: Path = config.getoption("conformance_scenarios")
        systems = config.getoption("conformance_system")
        self.selection = Selection(set(systems) if systems else None)
        path = config.getoption("conformance_expected_failures")
        try:
            self.expected = {e.id: e.reason for e in baseline.load(path)} if path else {}
        except baseline.BaselineError as exc:
            raise pytest.UsageError(str(exc)) from exc
        self._adapter: Adapter | None = None
        self._info: ImplementationInfo | None = None
        self._broken: str | None = None

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection(self, session: pytest.Session) -> bool | None:
        """Collect the scenarios instead of test files, then run pytest's usual selection hooks.

        The xdist controller collects nothing (its workers do), so there the hook stands aside.
        """
        if session.config.pluginmanager.has_plugin("dsession"):
            return None
        items: list[pytest.Item] = [
            ScenarioItem.build(session, loaded, self) for loaded in select(self.root, self.selection)
        ]
        session.ihook.pytest_collectreport(
            report=pytest.CollectReport(nodeid="", outcome="passed", longrepr=None, result=list(items))
        )
        config = session.config
        config.hook.pytest_collection_modifyitems(session=session, config=config, items=items)
        session.items = items
        session.testscollected = len(items)
        config.hook.pytest_collection_finish(session=session)
        return True

    def pytest_report_header(self) -> str:
        return f"conformance: implementation {self.spec}, scenarios {self.root}"

    def connect(self) -> tuple[Adapter, ImplementationInfo]:
        if self._broken:
            raise AdapterError(self._broken)
        if self._adapter is None or self._info is None:
            try:
                self._adapter = create(self.spec, hello_timeout=self.timeout)
                self._info = self._adapter.hello()
            except AdapterError as exc:
                self._broken = str(exc)
                raise
        return self._adapter, self._info

    def pytest_sessionfinish(self) -> None:
        if self._adapter is not None:
            self._adapter.close()


class ScenarioItem(pytest.Item):
    def __init__(
        self, *, loaded: LoadedScenario | LoadError, owner: ConformanceSession, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.loaded = loaded
        self.owner = owner

    @classmethod
    def build(
        cls, session: pytest.Session, loaded: LoadedScenario | LoadError, owner: ConformanceSession
    ) -> Any:
        item = cls.from_parent(
            session, name=loaded.id, nodeid=loaded.id, path=loaded.path, loaded=loaded, owner=owner
        )
        rules = loaded.scenario.rules if isinstance(loaded, LoadedScenario) else []
        for rule in rules:
            item.add_marker(pytest.mark.rule(rule))
            item.extra_keyword_matches.add(rule)
        reason = next((owner.expected[k] for k in (loaded.id, *rules) if k in owner.expected), None)
        if reason is not None:
            item.add_marker(pytest.mark.xfail(reason=reason, raises=ScenarioFailed, strict=True))
        return item

    def runtest(self) -> None:
        adapter, info = self.owner.connect()
        result = run_case(adapter, info, self.loaded, self.owner.timeout)
        if result.verdict == "skip":
            pytest.skip(result.message)
        if result.verdict in ("fail", "error"):
            raise ScenarioFailed(result)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, ScenarioFailed):
            return f"{excinfo.value.result.verdict}: {excinfo.value.result.message}"
        if isinstance(excinfo.value, AdapterError):
            return f"error: cannot reach the implementation: {excinfo.value}"
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"scenario {self.name}"
