"""Reading files into attachments and degrading them for a provider (reference.akan.attachments)."""

from __future__ import annotations

from reference.akan.attachments import accepts_of, persisted, provider_message, read_file
from reference.akan.model import Accepts, Adaptor, File, ReaderResult


def test_the_app_reader_answers_before_the_built_in() -> None:
    # akan.attachments.reader.runs-first
    def reader(file: File) -> ReaderResult:
        return ReaderResult(kind="text", text="a red square")

    attachment = read_file(File(name="x.png", type="image/png", size=10), reader)
    assert attachment["kind"] == "text" and attachment["text"] == "a red square"


def test_a_declining_reader_leaves_the_file_to_the_built_in() -> None:
    # akan.attachments.builtin-read
    assert read_file(File(name="x.png", type="image/png", size=10), lambda file: None)["kind"] == "image"
    assert read_file(File(name="n.txt", type="text/plain", text="hi"), None)["kind"] == "text"
    assert read_file(File(name="a.zip", type="application/zip", size=5), None)["kind"] == "file"


def test_the_default_provider_accepts_neither_images_nor_documents() -> None:
    # akan.attachments.deepseek-accepts-none
    assert accepts_of(Adaptor()) == Accepts(image=False, document=False)
    assert accepts_of(Adaptor(name="x", accepts=Accepts(image=True))).image


def test_an_unreadable_attachment_becomes_a_note_naming_it() -> None:
    # akan.attachments.unreadable-note
    message = {
        "role": "user", "content": "look",
        "attachments": [{"name": "p.png", "kind": "image", "mime": "image/png", "size": 3}],
    }
    mapped = provider_message(message, Accepts())
    assert [part["type"] for part in mapped["content"]] == ["text", "text"]
    assert '"p.png"' in mapped["content"][1]["text"]
    assert provider_message(message, Accepts(image=True))["content"][1]["type"] == "image"


def test_a_summary_is_a_system_message_for_the_provider() -> None:
    # akan.compaction.summary-as-system-for-provider
    summary = {"role": "user", "content": "notes", "summary": True}
    assert provider_message(summary, Accepts()) == {"role": "system", "content": "notes"}


def test_persisting_keeps_only_attachment_names() -> None:
    # akan.attachments.persist-names-only
    attachment = {"name": "a.txt", "kind": "text", "text": "secret"}
    message = {"role": "user", "content": "c", "attachments": [attachment]}
    assert persisted(message) == {"role": "user", "content": "c", "attachments": [{"name": "a.txt"}]}
