"""Each system's record vocabulary as pydantic models, and the JSON Schemas generated from them.

``conformance.record`` is the envelope every record shares (``events`` with a ``type`` each, ``final``);
this package says what the events and the final state of one system look like. ``python -m
conformance.schemas`` writes ``spec/protocol/records/<system>.schema.json`` from ``RECORD_MODELS``; the
runner checks every record against its system's schema (``conformance.records.check``), so a record that
reports a field with the wrong JSON type, or leaves out a field a rule needs, is the implementation's
``error``, naming the path. What the schemas may demand, and how each demand names its rules, is in
``conformance.records.common`` and ``conformance.records.contract``; what judging sets aside is in
``conformance.records.extras``. The prose beside each schema (``spec/protocol/records/<system>.md``) says
what the fields mean.

A system's models are imported the first time ``RECORD_MODELS[system]`` is read: a run of one system
(``--system akan``) never creates the other systems' hundred-odd model classes.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from pydantic import BaseModel

from conformance.systems import REGISTRY


class _RecordModels(Mapping[str, type[BaseModel]]):
    """system -> the model of one record of that system, imported on first use (``conformance.systems``
    names where each lives)."""

    def __getitem__(self, system: str) -> type[BaseModel]:
        if system not in REGISTRY:
            raise KeyError(system)
        model: type[BaseModel] = REGISTRY[system].load_record_model()
        return model

    def __iter__(self) -> Iterator[str]:
        return iter(REGISTRY)

    def __len__(self) -> int:
        return len(REGISTRY)


#: system -> the model of one record of that system
RECORD_MODELS: Mapping[str, type[BaseModel]] = _RecordModels()


def schema_name(system: str) -> str:
    """The file name of a system's record schema, under ``spec/protocol/records/``."""
    return f"{system}.schema.json"
