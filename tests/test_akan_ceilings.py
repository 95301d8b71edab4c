"""The paperclip's admission policy (reference.akan.ceilings) at each boundary."""

from __future__ import annotations

from reference.akan.ceilings import MB, Admission, Candidate, Ceilings

admit = Ceilings().admit


def _files(*sizes: int) -> list[Candidate]:
    return [Candidate(f"f{i}.bin", size) for i, size in enumerate(sizes)]


def test_a_file_exactly_at_four_megabytes_is_accepted_and_one_byte_more_is_not() -> None:
    # akan.attachments.ceiling.per-file
    assert admit([], Candidate("a.png", 4 * MB)).accepted
    refused = admit([], Candidate("b.png", 4 * MB + 1))
    assert (refused.accepted, refused.reason) == (False, "file-too-large")


def test_the_message_may_total_exactly_eight_megabytes() -> None:
    # akan.attachments.ceiling.per-message-bytes
    assert admit(_files(4 * MB), Candidate("c.png", 4 * MB)).accepted
    refused = admit(_files(4 * MB, 4 * MB), Candidate("d.txt", 1))
    assert refused.reason == "message-too-large"


def test_the_fifth_file_fits_and_the_sixth_does_not() -> None:
    # akan.attachments.ceiling.per-message-files
    assert admit(_files(1, 1, 1, 1), Candidate("fifth.txt", 1)).accepted
    assert admit(_files(1, 1, 1, 1, 1), Candidate("sixth.txt", 1)).reason == "too-many-files"


def test_the_same_file_twice_is_refused_but_a_namesake_of_another_size_is_not() -> None:
    # akan.attachments.duplicate-refused (the reference's reading: same name and same size)
    attached = [Candidate("image.png", 100)]
    assert admit(attached, Candidate("image.png", 100)).reason == "duplicate"
    assert admit(attached, Candidate("image.png", 101)).accepted


def test_every_refusal_names_the_file() -> None:
    # akan.attachments.refusal-at-paperclip
    cases: list[Admission] = [
        admit([], Candidate("huge.mov", 5 * MB)),
        admit(_files(4 * MB, 4 * MB), Candidate("extra.txt", 1)),
        admit(_files(1, 1, 1, 1, 1), Candidate("sixth.txt", 1)),
        admit([Candidate("same.txt", 3)], Candidate("same.txt", 3)),
    ]
    for admission, name in zip(cases, ["huge.mov", "extra.txt", "sixth.txt", "same.txt"], strict=True):
        assert not admission.accepted
        assert admission.text is not None and f'"{name}"' in admission.text
