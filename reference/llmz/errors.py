"""Typed llmz failures: a stable code, a criticality flag and the exported class name.

The table mirrors the llmz error catalogue (llmz-1.0.1-ERRORS.md, "Complete catalogue"): codes and class
names carry over exactly because implementations are judged on them. Criticality decides the loop's
fate: a recoverable failure becomes feedback for another model call, a critical one ends the run at once.
"""

from __future__ import annotations

from collections.abc import Mapping

#: code -> (exported class name, critical?)
CATALOGUE: dict[str, tuple[str, bool]] = {
    "INVALID_CODE": ("InvalidCodeError", False),
    "EXECUTION_FAILED": ("CodeExecutionError", False),
    "UNKNOWN_TOOL": ("UnknownToolError", False),
    "INVALID_TOOL_INPUT": ("ToolInputError", False),
    "TOOL_EXECUTION_FAILED": ("ToolExecutionError", False),
    "RESERVED_IDENTIFIER": ("ReservedIdentifierError", False),
    "INVALID_ASSIGNMENT": ("AssignmentError", False),
    "INVALID_OBJECT_PROPERTY": ("ObjectPropertyError", False),
    "UNKNOWN_EXIT": ("UnknownExitError", False),
    "INVALID_EXIT_INPUT": ("ExitInputError", False),
    "UNKNOWN_COMPONENT": ("UnknownComponentError", False),
    "INVALID_COMPONENT_INPUT": ("ComponentInputError", False),
    "INVALID_NATIVE_CALL": ("NativeProtocolError", False),
    "HOST_OPERATION_FAILED": ("HostOperationError", False),
    "DELIVERY_FAILED": ("DeliveryError", False),
    "HOOK_FAILED": ("HookError", False),
    "INVALID_MEMORY_VALUE": ("MemoryValueError", False),
    "ITERATION_LIMIT": ("LoopExceededError", True),
    "GENERATION_FAILED": ("CognitiveError", True),
    "TOKEN_OVERFLOW": ("TokenOverflowError", True),
    "COMPACTION_FAILED": ("CompactionError", True),
    "MEMORY_CAPACITY": ("MemoryCapacityError", True),
    "EXECUTION_ABORTED": ("ExecutionAbortedError", True),
    "INVALID_TOOL": ("InvalidToolError", True),
    "INVALID_OBJECT": ("InvalidObjectError", True),
    "INVALID_EXIT": ("InvalidExitError", True),
    "INVALID_COMPONENT": ("InvalidComponentError", True),
    "INVALID_CONFIG": ("InvalidConfigurationError", True),
    "INVALID_MESSAGE": ("InvalidMessageError", True),
    "INVALID_EVENT": ("InvalidEventError", True),
    "INVALID_SESSION": ("InvalidSessionError", True),
    "SESSION_STATE": ("SessionStateError", True),
    "CODE_FORMATTING_FAILED": ("CodeFormattingError", True),
    "INTERNAL_ERROR": ("InternalError", True),
    # Introduced by the 1.0.2 chat response guard. The guide names the class and says it is recoverable
    # but gives no code; this one is ours (see the open question on llmz.chat-guard.missing-response-error).
    "MISSING_CHAT_RESPONSE": ("MissingChatResponseError", False),
}


CODE_OF_CLASS: dict[str, str] = {name: code for code, (name, _critical) in CATALOGUE.items()}
"""Exported class name -> its catalogue code."""

BRAND_ATTRIBUTE = "__llmz_error_brand__"
"""The attribute every copy of the library sets on its error class: the Python analogue of llmz's shared
``Symbol.for`` brand, which the guards read (reference.llmz.diagnostics, llmz.errors.guard-brand)."""

SIGNAL_BRAND_ATTRIBUTE = "__llmz_think_signal_brand__"
"""The same for ThinkSignal (llmz.errors.think-signal-guard)."""


class LlmzError(Exception):
    """A failure with a catalogue code. ``critical`` comes from the catalogue unless forced."""

    __llmz_error_brand__ = True

    def __init__(self, code: str, message: str, *, critical: bool | None = None, **details: object) -> None:
        if code not in CATALOGUE:
            raise ValueError(f"unknown llmz error code {code!r}")
        super().__init__(message)
        self.code = code
        self.message = message
        self.class_name, default_critical = CATALOGUE[code]
        self.critical = default_critical if critical is None else critical
        self.details = details

    def as_record(self) -> dict[str, object]:
        """The fields of an ``error`` record event (see spec/protocol/records/llmz.md)."""
        return {
            "code": self.code,
            "class": self.class_name,
            "recoverable": not self.critical,
            "message": self.message,
            **self.details,
        }


def exported_error(class_name: str, message: str, fields: Mapping[str, object]) -> LlmzError | None:
    """``new <class_name>(message, ...)``: a failure of the exported class ``class_name`` made by the host,
    carrying the documented ``fields`` given (``source``, ``cause``), with the code and criticality the
    catalogue gives that class (llmz.errors.code-formatting-failed, llmz.errors.internal-error: failures
    no documented input provokes, whose catalogue entries are still public API). None when no exported
    class has that name."""
    code = CODE_OF_CLASS.get(class_name)
    if code is None:
        return None
    made = LlmzError(code, message)
    made.details = dict(fields)
    return made
