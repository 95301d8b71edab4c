"""pytest plugin: run the conformance suite as pytest items (inactive unless --conformance-impl is given)."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("conformance")
    group.addoption("--conformance-impl", default=None, help="implementation spec to run the suite against")
