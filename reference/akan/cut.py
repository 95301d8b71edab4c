"""Where compaction cuts a transcript: the one place that decides which messages the summary replaces.

Theory of operation. The transcript is a list of roles. Messages that never go on the wire (``local``)
are not counted by ``keep``. The nominal cut keeps the newest ``keep`` wire messages. From there:

1. if the kept tail holds a user message (not a summary), the cut moves forward to the earliest one, since
   everything above a user message is settled (akan.compaction.cut.prefers-user);
2. otherwise the cut moves back over tool results (and local messages between them) to the assistant
   message that made the calls, so the kept part opens with the calls and all their results
   (akan.compaction.cut.assistant-when-no-user);
3. in every case the cut never lands on a ``tool`` message (akan.compaction.cut.never-on-tool).

``keep == 0`` (the ``/compact`` command, akan.compaction.command-keeps-nothing) summarizes everything.
"""

from __future__ import annotations

from collections.abc import Sequence

#: Roles as the cut sees them; a stored summary is passed as "summary" (on the wire it is role user).
ROLES = ("user", "assistant", "tool", "local", "summary")


def choose_cut(roles: Sequence[str], keep: int) -> int | None:
    """Index of the first kept message, or None when nothing would be summarized.

    ``roles[:cut]`` become the summary and ``roles[cut:]`` stay. Rules:
    akan.compaction.summary-replaces-history, akan.compaction.cut.never-on-tool,
    akan.compaction.cut.prefers-user, akan.compaction.cut.assistant-when-no-user.
    """
    wire = [index for index, role in enumerate(roles) if role != "local"]
    if keep < 0:
        raise ValueError(f"keep must be 0 or more, got {keep}")
    if keep == 0:
        return _something_above(roles, len(roles))
    if len(wire) <= keep:
        return None
    users = [index for index in wire[-keep:] if roles[index] == "user"]
    cut = users[0] if users else _back_to_caller(roles, wire[-keep])
    return _something_above(roles, cut)


def _back_to_caller(roles: Sequence[str], nominal: int) -> int:
    """Step back over tool results (and local messages among them) to the message that made the calls."""
    cut = nominal
    while cut > 0 and roles[cut] in ("tool", "local"):
        cut -= 1
    return cut


def _something_above(roles: Sequence[str], cut: int) -> int | None:
    """A cut that would summarize no wire message, or only an earlier summary, is no compaction at all."""
    above = [role for role in roles[:cut] if role != "local"]
    if not above or above == ["summary"]:
        return None
    return cut
