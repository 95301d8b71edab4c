"""Slash commands: which names the chat owns, what the ``/`` menu lists, and how arguments are split.

Theory of operation. A line starting with ``/`` names a command. The chat answers six names itself (and
one alias); everything else an app offers comes from its ``prompt()`` endpoints, called with positional
arguments. A built-in always wins a shared name -- the reverse of how page tools treat built-in tools --
since a user typing ``/new`` must get a fresh chat whatever libraries the app pulls in; the losing prompt
is left out of the menu rather than listed beside the command that will actually run.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from reference.akan.model import Message, Prompt

#: akan.slash.six-builtins, in the order the reference lists them (the documents fix no order).
BUILTINS: tuple[str, ...] = ("new", "retry", "compact", "copy", "help", "tools")
#: akan.slash.six-builtins: ``/clear`` is another name for ``/new``.
ALIASES: Mapping[str, str] = MappingProxyType({"clear": "new"})
#: akan.slash.new-and-copy-dispatch-first: looked at before a running turn or a question card can object.
DISPATCH_FIRST: frozenset[str] = frozenset({"new", "copy"})


@dataclass(frozen=True)
class Command:
    """A typed command line: the name after the slash and the positional arguments after it."""

    name: str
    args: tuple[str, ...]


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


def retry_transcript(transcript: list[Message]) -> list[Message] | None:
    """What ``/retry`` runs again: the transcript up to and including the newest message the user wrote.

    akan.slash.retry-replays-trailing-user-message, akan.compaction.retry-steps-over-summary: what came
    before it stays and is not re-sent, and a summary is not the user's. None: nothing left to retry.
    """
    for index in range(len(transcript) - 1, -1, -1):
        message = transcript[index]
        if message["role"] == "user" and not message.get("summary"):
            return transcript[: index + 1]
    return None


def export(route: str, at: str, messages: list[Message]) -> dict[str, Any]:
    """What ``/copy`` exports: akan.slash.copy-includes-route-and-time, beside the posted messages."""
    return {"route": route, "at": at, "messages": messages}


@dataclass(frozen=True)
class CommandTable:
    """The chat's own commands and how a typed line is matched against them and the app's prompts.

    ``winner`` decides a name both the chat and an app prompt answer to (akan.slash.builtin-wins-collision:
    the built-in). ``split`` splits the arguments after the name.
    """

    builtins: tuple[str, ...] = BUILTINS
    aliases: Mapping[str, str] = field(default_factory=lambda: dict(ALIASES))
    dispatch_first: frozenset[str] = DISPATCH_FIRST
    winner: Literal["builtin", "prompt"] = "builtin"
    split: Callable[[str], tuple[str, ...]] = split_args

    def builtin(self, name: str) -> str | None:
        """The built-in ``name`` runs, alias resolved; None when the name is not the chat's own."""
        name = self.aliases.get(name, name)
        return name if name in self.builtins else None

    def menu(self, prompt_names: Sequence[str]) -> list[str]:
        """The ``/`` menu: built-ins first, then each prompt whose name no built-in (or alias) takes.

        akan.slash.builtins-listed-before-prompts, akan.slash.builtin-wins-collision: a prompt that loses
        its name is left out rather than listed beside the command that will actually run.
        """
        names = dict.fromkeys(prompt_names)
        prompts = [name for name in names if self.winner == "prompt" or self.builtin(name) is None]
        return [f"/{name}" for name in (*self.builtins, *prompts)]

    def description(self, prompt: Prompt) -> str | None:
        """What the ``/`` menu shows beside a prompt: its dictionary ``.desc()``.

        akan.slash.menu-shows-dictionary-desc: there is no listing endpoint; the client reads the desc from
        the prompt's own serialized signal.
        """
        return prompt.desc

    def parse(self, line: str) -> Command | None:
        """The command a composer line names, or None when the line is a message (no leading slash)."""
        match = re.match(r"/(\S*)(.*)", line, re.DOTALL)
        if match is None:
            return None
        return Command(name=match.group(1), args=self.split(match.group(2)))

    def help_note(self, commands: Sequence[str]) -> str:
        """``/help``'s local note (the wording is ours); ``/clear`` is shown as ``/new``'s other name."""
        return "Commands: " + ", ".join(commands).replace("/new", "/new (/clear)") + "."

    def tools_note(self, names: Sequence[str]) -> str:
        """``/tools``' local note: the names of the tools published on this screen."""
        return f"Tools on this screen: {', '.join(names) or 'none'}."
