"""Mutants for the llmz rules pinned in issue 10 (memory, objects, sessions, inspection): one decision each.

Each replaces one decision of ``reference.llmz.policies.Policies``; ``tests/test_llmz_mutants.py`` proves
the scenarios pinning its rules fail against it, naming those rules.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from reference.llmz import conversation, memory, restore
from reference.llmz.errors import LlmzError
from reference.llmz.policies import Policies
from variants import Mutant


def _store_without_object_memory(
    mem: memory.Memory, captured: dict[str, dict[str, Any]], fits: memory.Limit
) -> memory.Capture:
    """Variables are weighed against maxBytes as if object memory took no room."""
    objects, mem.objects = mem.objects, {}
    try:
        return memory.Memory.store(mem, captured, fits)
    finally:
        mem.objects = objects


def _objects_saved_flat(p: Policies) -> Policies:
    """Object memory is saved as plain JSON, so structured property values lose their encoding."""
    base = p.memory_snapshot

    def snapshot(state: memory.Memory) -> dict[str, Any]:
        saved = base(state)
        saved["objects"] = {
            name: {prop: memory.to_plain(value) for prop, value in props.items()}
            for name, props in state.objects.items()
        }
        return saved

    return replace(p, memory_snapshot=snapshot)


def _one_shared_session(p: Policies) -> Policies:
    """Every execute without a session runs on the same default session, created once."""
    base = p.session_when_omitted
    shared: list[Any] = []

    def session_when_omitted(policies: Policies) -> Any:
        if not shared:
            shared.append(base(policies))
        return shared[0]

    return replace(p, session_when_omitted=session_when_omitted)


def _parts_without_notes(text: str, attachments: list[dict[str, Any]], voice: bool) -> list[dict[str, Any]]:
    """Attachments become media parts with nothing saying which attachment each one is."""
    parts = conversation.convenience_parts(text, attachments, voice)
    return [p for p in parts if not (p["type"] == "text" and p["text"].startswith("Attachment "))]


def _parts_without_voice_label(
    text: str, attachments: list[dict[str, Any]], voice: bool
) -> list[dict[str, Any]]:
    """Spoken input reaches the model like typed input."""
    return conversation.convenience_parts(text, attachments, False)


def _arrays_only(items: object) -> list[dict[str, Any]]:
    """append refuses a message that is not wrapped in an array."""
    if not isinstance(items, list):
        raise LlmzError("INVALID_MESSAGE", "append takes an array of messages")
    return conversation.append_batch(items)


def _assistant_text_only(items: object) -> list[dict[str, Any]]:
    """Native multipart content is taken from user messages only; an assistant's is refused as not text."""
    batch = conversation.append_batch(items)
    for item in batch:
        if item.get("role") == "assistant" and isinstance(item.get("content"), list):
            raise LlmzError("INVALID_MESSAGE", "a assistant message needs string content, got list")
    return batch


def _result_taken_as_state(state: Any) -> Any:
    """A saved result summary is converted into (empty) session state instead of being refused."""
    if isinstance(state, dict) and "status" in state and "format" not in state:
        return {"format": conversation.FORMAT, "version": conversation.FORMAT_VERSION}
    return state


def _without_check(check: restore.Check) -> Callable[[Policies], Policies]:
    """Restoring skips one of the snapshot checks."""
    return lambda p: replace(p, restore_checks=tuple(c for c in p.restore_checks if c is not check))


def _top_level_encodings(state: dict[str, Any]) -> None:
    """The encodings check looking at each exact value's own tag only, never into an object's properties:
    the real check runs on a copy whose object values are emptied."""
    shallow = copy.deepcopy(state)

    def hollow(value: Any) -> None:
        if isinstance(value, dict) and value.get("$") == "object" and isinstance(value.get("v"), dict):
            value["v"] = {}

    memory = shallow.get("memory")
    if isinstance(memory, dict):
        variables, records, objects = memory.get("variables"), memory.get("iterations"), memory.get("objects")
        for value in variables.values() if isinstance(variables, dict) else ():
            hollow(value)
        for record in records if isinstance(records, list) else ():
            hollow(record.get("result") if isinstance(record, dict) else None)
        for props in objects.values() if isinstance(objects, dict) else ():
            for value in props.values() if isinstance(props, dict) else ():
                hollow(value)
    restore.encodings(shallow)


def _replacing_check(check: restore.Check, by: restore.Check) -> Callable[[Policies], Policies]:
    """Restoring runs ``by`` in place of one of the snapshot checks."""
    return lambda p: replace(p, restore_checks=tuple(by if c is check else c for c in p.restore_checks))


MUTANTS: list[Mutant] = [
    Mutant(
        "llmz-memory-objects-not-counted",
        rules=("llmz.memory.limit-scope",),
        description="object memory is left out when variables are weighed against maxBytes",
        policies=lambda p: replace(p, store_variables=_store_without_object_memory),
    ),
    Mutant(
        "llmz-objects-structured-values-flattened",
        rules=("llmz.memory.object-property-access",),
        description="an object or array assigned to a property does not survive save and restore intact",
        policies=_objects_saved_flat,
    ),
    Mutant(
        "llmz-sessions-input-not-copied",
        rules=("llmz.sessions.input-copied",),
        description="append stores the caller's objects, so changing them later changes the session",
        policies=lambda p: replace(p, copy_input=lambda items: items),
    ),
    Mutant(
        "llmz-sessions-accessors-share-state",
        rules=("llmz.sessions.accessors-return-copies",),
        description="transcript, messages and pendingMessages hand out the session's own objects",
        policies=lambda p: replace(p, detach=lambda view: view),
    ),
    Mutant(
        "llmz-restore-skips-pairing",
        rules=("llmz.persistence.restore-checks-pairing",),
        description="restoring does not check the snapshot's pairing",
        policies=_without_check(restore.pairing),
    ),
    Mutant(
        "llmz-restore-skips-identities",
        rules=("llmz.persistence.restore-checks-identities",),
        description="restoring does not check the snapshot's identities",
        policies=_without_check(restore.identities),
    ),
    Mutant(
        "llmz-restore-skips-chronology",
        rules=("llmz.persistence.restore-checks-chronology",),
        description="restoring does not check the snapshot's chronology",
        policies=_without_check(restore.chronology),
    ),
    Mutant(
        "llmz-restore-skips-encodings",
        rules=("llmz.persistence.restore-checks-encodings",),
        description="restoring does not check the snapshot's encodings",
        policies=_without_check(restore.encodings),
    ),
    Mutant(
        "llmz-restore-checks-encodings-shallowly",
        rules=("llmz.persistence.restore-checks-encodings",),
        description="restoring checks an exact result's own encoding but not its object properties'",
        policies=_replacing_check(restore.encodings, _top_level_encodings),
    ),
    Mutant(
        "llmz-restore-skips-capacity",
        rules=("llmz.persistence.restore-checks-capacity",),
        description="restoring does not check the snapshot's capacity",
        policies=_without_check(restore.capacity),
    ),
    Mutant(
        "llmz-restore-upgrades-older-versions",
        rules=("llmz.migration.no-automatic-upgrade",),
        description="a snapshot labelled with an older format version is restored as if it were current",
        policies=lambda p: replace(
            p,
            known_format_version=lambda v: isinstance(v, int) and 0 <= v <= conversation.FORMAT_VERSION,
        ),
    ),
    Mutant(
        "llmz-sessions-omitted-session-shared",
        rules=("llmz.sessions.fresh-session-when-omitted",),
        description="execute without a session reuses one default session instead of creating a fresh one",
        policies=_one_shared_session,
    ),
    Mutant(
        "llmz-sessions-convenience-on-native-accepted",
        rules=("llmz.sessions.no-convenience-on-native-multipart",),
        description="a native multipart message with attachments or a modality is queued regardless",
        policies=lambda p: replace(p, convenience_on_native=lambda item: None),
    ),
    Mutant(
        "llmz-sessions-attachments-undescribed",
        rules=("llmz.sessions.attachments-become-parts",),
        description="attachment parts arrive without the text naming their id and alt",
        policies=lambda p: replace(p, convenience_parts=_parts_without_notes),
    ),
    Mutant(
        "llmz-sessions-voice-unlabelled",
        rules=("llmz.sessions.voice-label",),
        description="voice input and audio attachments are not labelled as voice transcripts",
        policies=lambda p: replace(p, convenience_parts=_parts_without_voice_label),
    ),
    Mutant(
        "llmz-sessions-append-arrays-only",
        rules=("llmz.sessions.append-accepted-shapes",),
        description="append accepts only arrays, refusing a single message",
        policies=lambda p: replace(p, append_batch=_arrays_only),
    ),
    Mutant(
        "llmz-assistant-multipart-refused",
        rules=("llmz.sessions.native-message-preserved",),
        description="an assistant message with native multipart content is refused instead of kept intact",
        policies=lambda p: replace(p, append_batch=_assistant_text_only),
    ),
    Mutant(
        "llmz-migration-result-restored-as-session",
        rules=("llmz.migration.result-not-state",),
        description="Session.fromJSON accepts a saved result.toJSON() and converts it into session state",
        policies=lambda p: replace(p, session_state=_result_taken_as_state),
    ),
]
