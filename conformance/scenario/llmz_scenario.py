"""A llmz scenario file: the case an implementation plays (``conformance.scenario.llmz``) and its answer key
(``conformance.scenario.answer_key``), in a module that imports no other system's models."""

from __future__ import annotations

from conformance.scenario.answer_key import Judging
from conformance.scenario.llmz import LlmzCase


class LlmzScenario(LlmzCase, Judging):
    pass
