"""Values written invalid on purpose: ``{invalid: <raw value>, why: <reason>}``.

Theory of operation. Where the documents say an implementation must refuse (or repair) a value, the
vocabulary refuses that value too, so a typo never turns into a silent test of something else. That left
those rules tested from one side only: a scenario could say ``max_tokens: 1`` but never ``max_tokens: 0``.
A field that carries such a rule is declared *refusable*: it takes either a valid value, written plainly,
or the marker ``{invalid: <raw>, why: <text>}``, which is accepted only when ``raw`` really breaks the
field's rule (``{invalid: 5}`` for maxTokens is an error: 5 is valid, write it plainly). A bare invalid
value is refused at load with the field's rule and a hint to use the marker.

The marker goes on the wire unchanged (it is part of the played case). An implementation hands ``raw`` to
its runtime exactly as written, through the same API call a valid value would take, and records what the
runtime did; the scenario expects the documented refusal. ``raw`` is the unwrapping helper for players.

Validity is judged with JavaScript's eyes, since that is the language the documents describe: ``true`` is
not a number, ``1.0`` is the integer 1, a safe integer is at most 2^53 - 1.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, Final

from pydantic import Field, ValidationError, ValidatorFunctionWrapHandler, WrapValidator

from conformance.scenario.common import Strict

MAX_SAFE_INTEGER: Final = 2**53 - 1
"""JavaScript's ``Number.MAX_SAFE_INTEGER``."""

MARKER_KEY: Final = "invalid"


class Invalid(Strict):
    """A value the documents say an implementation must refuse, written here on purpose."""

    invalid: Any = Field(description="The raw value, handed to the implementation exactly as written.")
    why: str = Field(min_length=3, description="Why the value is invalid: the rule it breaks.")


def raw(value: Any) -> Any:
    """The value as the implementation must receive it: the marker's raw value, or the value itself."""
    return value.invalid if isinstance(value, Invalid) else value


def is_js_number(value: Any) -> bool:
    """A JSON value JavaScript would see as a finite number (``true`` is a boolean there)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and value == value  # not NaN


def is_safe_integer(value: Any, minimum: int, maximum: int = MAX_SAFE_INTEGER) -> bool:
    """``Number.isSafeInteger(value) && minimum <= value <= maximum``."""
    if not is_js_number(value):
        return False
    if isinstance(value, float) and not value.is_integer():
        return False
    return bool(minimum <= value <= maximum and abs(value) <= MAX_SAFE_INTEGER)


_ASCII_IDENTIFIER: Final = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
ASCII_IDENTIFIER_PATTERN: Final = r"^[A-Za-z_$][A-Za-z0-9_$]*$"


def is_js_identifier_name(value: Any) -> bool:
    """A string JavaScript accepts as an identifier name (Unicode letters included, ``$`` allowed)."""
    return isinstance(value, str) and value != "" and value.replace("$", "_").isidentifier()


def is_ascii_identifier(value: Any) -> bool:
    return isinstance(value, str) and _ASCII_IDENTIFIER.fullmatch(value) is not None


def _as_written(value: Any) -> str:
    """The value as a scenario author writes it (JSON, which YAML reads the same way)."""
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


def refusable(
    rule: str, expected: str, accepts: Callable[[Any], bool], breaks: Callable[[Any], bool] | None = None
) -> WrapValidator:
    """The validator of a refusable field (use as ``Annotated[<valid type> | Invalid, refusable(...)]``).

    ``accepts`` says whether a raw value is valid under ``rule``; ``breaks`` (default: not ``accepts``)
    whether a marked value really breaks it. The two differ when the documents leave a value open: such a
    value can be written neither plainly nor marked, so no scenario pins a reading of it.
    """
    broken = breaks or (lambda value: not accepts(value))

    def validate(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        if isinstance(value, dict) and MARKER_KEY in value:
            marker = Invalid.model_validate(value)
            if not broken(marker.invalid):
                raise ValueError(
                    f"{_as_written(marker.invalid)} does not break {rule} ({expected}); "
                    "write a valid value plainly"
                )
            return marker
        if not accepts(value):
            written = _as_written(value)
            if not broken(value):
                raise ValueError(f"expected {expected} ({rule}), got {written}")
            raise ValueError(
                f"expected {expected} ({rule}), got {written}; to check on purpose that implementations "
                f"refuse it, write {{invalid: {written}, why: <the rule it breaks>}}"
            )
        try:
            return handler(value)
        except ValidationError as exc:  # a value the rule accepts but the field's type does not describe
            problem = exc.errors()[0]["msg"]
            raise ValueError(f"expected {expected} ({rule}), got {_as_written(value)}: {problem}") from exc

    return WrapValidator(validate)
