"""Making an implementation's text safe for each place the harness writes it (issue 23, item 5).

Why. Messages, skip reasons, names and versions come from the implementation, which may send any
character. Written as they are, a control character made ``junit.xml`` not well-formed (XML 1.0 has no
way to write most of them, escaped or not), and escape sequences reached the terminal (where they can
move the cursor, rewrite earlier lines or retitle the window) and ``report.md`` (where HTML is markup).
Each writer passes such text through the function for its format; a character that cannot appear is
written as a visible backslash escape (``\\x1b``, ``\\u202e``), so a reader still sees what was sent.
``report.json`` needs none of this: JSON escapes every character itself.
"""

from __future__ import annotations

import html
import re

#: What XML 1.0 cannot hold: C0 controls but tab, newline and carriage return; lone surrogates; U+FFFE/F.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
#: What a terminal acts on instead of showing: C0 controls but tab and newline, DEL, C1 controls, and the
#: bidirectional overrides that make text display in another order than it reads.
_NOT_TERMINAL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def xml_text(text: str) -> str:
    """``text`` with every character XML 1.0 cannot carry written as a visible escape."""
    return _NOT_XML.sub(_visible, text)


def terminal_text(text: str) -> str:
    """``text`` with nothing left that a terminal would interpret (newlines and tabs stay)."""
    return _NOT_TERMINAL.sub(_visible, text)


def html_page(page: str) -> str:
    """A whole HTML page with every control character, lone surrogate and bidirectional override made
    visible: HTML forbids most controls (NUL, ESC) and an override would reorder what a reader sees. The
    page's own markup holds none, so one pass over the page covers every text that came from the
    implementation (messages, notes, names)."""
    return terminal_text(page)


def markdown_text(text: str) -> str:
    """``text`` for report.md: HTML markup escaped, control characters made visible."""
    return html.escape(terminal_text(text), quote=False)
