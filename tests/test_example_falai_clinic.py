"""examples/falai/clinic_booking.py runs offline and shows its three flows, its silence wake and its rules."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "falai" / "clinic_booking.py"


def test_the_clinic_example_plays_the_whole_conversation() -> None:
    done = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    for expected in (
        "started book",
        "wake-up at Tue 08:00, moved to opening hours: silence:nudge:patient-4711:",
        "(replaces silence:nudge:patient-4711:",
        "Good morning! Shall we find a day for that appointment?",
        "rules: falai.silence.speaks-first",
        "action reserve_slot(patient=Leo Santos, day=Thursday)",
        "All set: Leo Santos on Thursday at 10:00",
        "started cancel",
        "rules: falai.routing.nobody, falai.idle.answers",
        "outcome duplicate-input",
    ):
        assert expected in out, f"{expected!r} missing from:\n{out}"
    assert out.count("assistant") == 6
