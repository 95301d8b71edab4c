"""Reading a file into a message attachment, and making attachments fit what a provider can read.

Reading happens in the browser: the app's reader is asked first, and the built-in reads only images (as
bytes) and text (as text). What a provider cannot read is not removed but swapped for a note naming the
file, so the model knows a file was there and that it has not seen it. That step is
``AgentService.readable`` in the framework; an adaptor only declares ``accepts``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from reference.akan.model import Accepts, Adaptor, File, Message, Reader

Attachment = dict[str, Any]
CanRead = Callable[[str, Accepts], bool]

#: akan.attachments.deepseek-accepts-none: what an adaptor accepts when it declares nothing.
DEFAULT_ACCEPTS: dict[str, Accepts] = {"deepseek": Accepts(image=False, document=False)}


def accepts_of(adaptor: Adaptor) -> Accepts:
    if adaptor.accepts is not None:
        return adaptor.accepts
    return DEFAULT_ACCEPTS.get(adaptor.name, Accepts())


def _shape(file: File, kind: str, text: str | None, data: str | None) -> Attachment:
    attachment: Attachment = {"name": file.name, "kind": kind, "mime": file.type, "size": file.byte_size}
    if text is not None:
        attachment["text"] = text
    if data is not None:
        attachment["data"] = data
    return attachment


def read_file(file: File, reader: Reader | None) -> Attachment:
    """akan.attachments.reader.runs-first, then akan.attachments.builtin-read.

    The app's reader answers first; ``None`` hands the file to the built-in. A file the built-in cannot
    read is kept as an opaque ``file`` attachment rather than dropped.
    """
    read = reader(file) if reader is not None else None
    if read is not None:
        return _shape(file, read.kind, read.text, read.data)
    if file.type.startswith("image/"):
        return _shape(file, "image", None, file.data)
    if file.type.startswith("text/") or file.text is not None:
        return _shape(file, "text", file.text or "", None)
    return _shape(file, "file", None, None)


def can_read(kind: str, accepts: Accepts) -> bool:
    """akan.attachments.accepts-declaration: text always; image and document only when declared."""
    return kind == "text" or (kind == "image" and accepts.image) or (kind == "document" and accepts.document)


def note_for(attachment: Attachment) -> str:
    """The note standing in for an unreadable attachment; it always names the file."""
    kind = attachment["kind"]
    what = {"image": "images", "document": "documents"}.get(kind, "this type of file")
    return (
        f'[The user attached "{attachment["name"]}" ({attachment["mime"]}), but this model cannot read '
        f"{what}, so its content was not included.]"
    )


def _part(attachment: Attachment, accepts: Accepts, readable: CanRead) -> dict[str, Any]:
    if "kind" not in attachment:
        # Restored from storage, where only the name is kept (akan.attachments.persist-names-only): the
        # model is told a file was there whose content this conversation no longer has.
        return {"type": "text", "text": f'[The user attached "{attachment["name"]}" earlier; its content was '
                "not kept when the conversation was saved.]"}
    if not readable(attachment["kind"], accepts):
        return {"type": "text", "text": note_for(attachment)}
    if attachment["kind"] == "text":
        return {"type": "text", "text": f'[File "{attachment["name"]}"]\n{attachment.get("text", "")}'}
    part = {"type": attachment["kind"], "name": attachment["name"], "mime": attachment["mime"]}
    for key in ("text", "data"):
        if key in attachment:
            part[key] = attachment[key]
    return part


def provider_message(message: Message, accepts: Accepts, readable: CanRead = can_read) -> Message:
    """One posted message as the adaptor sends it to its provider; ``readable`` says what it can read.

    akan.compaction.summary-as-system-for-provider: a summary becomes a system message.
    akan.attachments.unreadable-note: unreadable attachments become notes, never disappear.
    """
    if message.get("summary"):
        return {"role": "system", "content": message["content"]}
    attachments = message.get("attachments") or []
    if message.get("role") != "user" or not attachments:
        return {key: value for key, value in message.items() if key != "attachments"}
    parts = [{"type": "text", "text": message.get("content", "")}]
    parts.extend(_part(attachment, accepts, readable) for attachment in attachments)
    return {"role": "user", "content": parts}


def persisted(message: Message) -> Message:
    """A message as saved to web storage: attachments keep only their name.

    akan.attachments.persist-names-only.
    """
    if not message.get("attachments"):
        return dict(message)
    return {**message, "attachments": [{"name": a["name"]} for a in message["attachments"]]}


def prompt_message(text: str, images: Sequence[File]) -> Message:
    """One message of an app's ``prompt()`` answer as it joins the transcript.

    akan.attachments.msg-image-same-shape: each ``Msg.image`` becomes an image attachment of the message,
    read exactly as a file from the paperclip would be, never placeholder text.
    """
    message: Message = {"role": "user", "content": text}
    if images:
        message["attachments"] = [read_file(image, None) for image in images]
    return message
