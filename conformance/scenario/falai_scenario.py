"""A falai scenario file: the case an implementation plays (``conformance.scenario.falai``) and its answer key
(``conformance.scenario.answer_key``), in a module that imports no other system's models."""

from __future__ import annotations

from conformance.scenario.answer_key import Judging
from conformance.scenario.falai import FalaiCase


class FalaiScenario(FalaiCase, Judging):
    pass
