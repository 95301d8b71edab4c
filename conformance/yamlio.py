"""Reading YAML safely and fast: libyaml's C loader when present (ten times faster), else pure Python.

A mapping that repeats a key is refused. YAML loaders keep the last value silently, so a rule with two
``open_question:`` keys (or a scenario with two ``expect:`` lists) would lose the first without a word.
"""

from __future__ import annotations

from typing import Any

import yaml

_BASE: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_BASE):  # type: ignore[misc, valid-type]
    """The fast safe loader, refusing duplicate mapping keys."""


def _unique_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    loader.flatten_mapping(node)
    seen: dict[Any, yaml.Node] = {}
    for key_node, _value in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                "while constructing a mapping",
                node.start_mark,
                f"found duplicate key {key!r} (first at line {seen[key].start_mark.line + 1}); "
                "a repeated key would silently replace the first value",
                key_node.start_mark,
            )
        seen[key] = key_node
    return loader.construct_mapping(node, deep=True)


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _unique_mapping)


def load_yaml(text: str) -> Any:
    """Like ``yaml.safe_load``; raises ``yaml.YAMLError`` with the line and column of the problem."""
    return yaml.load(text, Loader=_Loader)
