"""Slash commands: which names the chat owns, what the ``/`` menu lists, and how arguments are split.

Theory of operation. A line starting with ``/`` names a command. The chat answers six names itself (and
one alias); everything else an app offers comes from its ``prompt()`` endpoints, called with positional
arguments. A built-in always wins a shared name -- the reverse of how page tools treat built-in tools --
since a user typing ``/new`` must get a fresh chat whatever libraries the app pulls in; the losing prompt
is left out of the menu rather than listed beside the command that will actually run.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

#: akan.slash.six-builtins, in the order the reference lists them (the documents fix no order).
BUILTINS: tuple[str, ...] = ("new", "retry", "compact", "copy", "help", "tools")
#: akan.slash.six-builtins: ``/clear`` is another name for ``/new``.
ALIASES: dict[str, str] = {"clear": "new"}


@dataclass(frozen=True)
class Command:
    """A typed command line: the name after the slash and the positional arguments after it."""

    name: str
    args: tuple[str, ...]


def builtin(name: str) -> str | None:
    """The built-in ``name`` runs, alias resolved; None when the name is not the chat's own."""
    name = ALIASES.get(name, name)
    return name if name in BUILTINS else None


def menu(prompt_names: Sequence[str]) -> list[str]:
    """The ``/`` menu: built-ins first, then each prompt whose name no built-in (or alias) takes.

    akan.slash.builtins-listed-before-prompts, akan.slash.builtin-wins-collision.
    """
    prompts = [name for name in dict.fromkeys(prompt_names) if builtin(name) is None]
    return [f"/{name}" for name in (*BUILTINS, *prompts)]


def split_args(text: str) -> tuple[str, ...]:
    """Positional arguments: split on whitespace, a double-quoted span stays one argument.

    akan.slash.positional-whitespace-args-with-quotes. The documents say nothing about escapes or single
    quotes, so neither is special here; an unclosed quote runs to the end of the line, and ``""`` is an
    empty argument (a user who typed it meant one).
    """
    args: list[str] = []
    current: list[str] = []
    quoted = started = False
    for char in text:
        if char == '"':
            quoted, started = not quoted, True
        elif char.isspace() and not quoted:
            if started:
                args.append("".join(current))
            current, started = [], False
        else:
            current.append(char)
            started = True
    if started:
        args.append("".join(current))
    return tuple(args)


def fill(template: str, params: Sequence[str], args: Sequence[str]) -> str:
    """A prompt message's text with ``{param}`` replaced by the argument in that parameter's position.

    akan.slash.positional-whitespace-args-with-quotes: arguments fill parameters in order; a parameter
    with no argument is empty, and words beyond the last parameter are not used (the documents leave both
    open). One pass, so an argument that itself contains ``{name}`` is not expanded again.
    """
    values = {param: args[index] if index < len(args) else "" for index, param in enumerate(params)}
    return re.sub(r"\{(\w+)\}", lambda match: values.get(match.group(1), match.group(0)), template)


def parse(line: str) -> Command | None:
    """The command a composer line names, or None when the line is a message (no leading slash)."""
    match = re.match(r"/(\S*)(.*)", line, re.DOTALL)
    if match is None:
        return None
    return Command(name=match.group(1), args=split_args(match.group(2)))
