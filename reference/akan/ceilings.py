"""Whether the paperclip takes one more file: the attachment ceilings in one place.

The ceilings belong to the message, not the file, because every attached byte rides inside the one JSON
request of that turn and a provider refuses the sum. They are applied as each file is added, so an
over-limit message can never be composed and the user learns at once which file was dropped
(akan.attachments.refusal-at-paperclip).

Megabytes are 2^20 bytes and a size exactly at a limit is allowed (the reference's reading of the open
questions on akan.attachments.ceiling.*). Two files are "the same" when name and size are equal
(the reference's reading of akan.attachments.duplicate-refused).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

MB = 1024 * 1024
#: akan.attachments.ceiling.per-file
FILE_MAX_BYTES = 4 * MB
#: akan.attachments.ceiling.per-message-bytes
MESSAGE_MAX_BYTES = 8 * MB
#: akan.attachments.ceiling.per-message-files
MESSAGE_MAX_FILES = 5


class Candidate(NamedTuple):
    name: str
    size: int


class Admission(NamedTuple):
    """The paperclip's answer for one file."""

    accepted: bool
    reason: str | None = None
    """duplicate | file-too-large | too-many-files | message-too-large, when refused."""
    text: str | None = None
    """The refusal the user reads; it always names the file."""


def _refuse(reason: str, name: str, why: str) -> Admission:
    return Admission(False, reason, f'"{name}" was not attached: {why}')


class Ceilings(NamedTuple):
    """The three ceilings and the identity of a file: the decisions ``admit`` applies, as values.

    Candidate, Admission and Ceilings are named tuples: immutable values whose definitions hold no flag a
    mutation tool could flip to no effect (a frozen dataclass's ``frozen=True`` decides no rule).
    """

    file_max_bytes: int = FILE_MAX_BYTES
    message_max_bytes: int = MESSAGE_MAX_BYTES
    message_max_files: int = MESSAGE_MAX_FILES

    def same_file(self, a: Candidate, b: Candidate) -> bool:
        """The reference's identity for akan.attachments.duplicate-refused: equal name and equal size."""
        return a.name == b.name and a.size == b.size

    def admit(self, attached: Sequence[Candidate], incoming: Candidate) -> Admission:
        """Decide on ``incoming`` given the files already on the message.

        Rules: akan.attachments.duplicate-refused, akan.attachments.ceiling.per-file,
        akan.attachments.ceiling.per-message-files, akan.attachments.ceiling.per-message-bytes,
        akan.attachments.refusal-at-paperclip (every refusal text names the file).
        """
        if any(self.same_file(f, incoming) for f in attached):
            return _refuse("duplicate", incoming.name, "the same file is already attached to this message.")
        if incoming.size > self.file_max_bytes:
            why = f"a file may be at most {self.file_max_bytes // MB} MB."
            return _refuse("file-too-large", incoming.name, why)
        if len(attached) + 1 > self.message_max_files:
            why = f"a message carries at most {self.message_max_files} files."
            return _refuse("too-many-files", incoming.name, why)
        if sum(f.size for f in attached) + incoming.size > self.message_max_bytes:
            return _refuse(
                "message-too-large", incoming.name,
                f"the files of one message may add up to at most {self.message_max_bytes // MB} MB.",
            )
        return Admission(True)

