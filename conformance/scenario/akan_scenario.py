"""A akan scenario file: the case an implementation plays (``conformance.scenario.akan``) and its answer key
(``conformance.scenario.answer_key``), in a module that imports no other system's models."""

from __future__ import annotations

from conformance.scenario.akan import AkanCase
from conformance.scenario.answer_key import Judging


class AkanScenario(AkanCase, Judging):
    pass
