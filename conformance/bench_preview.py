"""``python -m conformance.bench_preview``: how long the llmz inspector takes to cut a huge value.

The cut to the display budget used to bisect over the whole text, tokenizing half of it, then a quarter,
and so on, at every step. It must now cost about one tokenization of the value (about a second for
4 MB here), whatever the shape of the text. A benchmark, not a test: speed is never asserted in tests.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from conformance import argtypes
from reference.llmz.preview import Preserve, preview

SHAPES: tuple[Preserve, ...] = ("top", "bottom", "both")


def texts(chars: int) -> dict[str, str]:
    value = [{"id": n, "name": f"item {n}", "tags": ["a", "b"]} for n in range(chars // 60 + 1)]
    return {
        "json": json.dumps(value, indent=2)[:chars],
        "words": " ".join(f"word{n}" for n in range(chars // 5))[:chars],
        "spaces": " " * chars,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance.bench_preview", description=__doc__)
    parser.add_argument("--chars", type=argtypes.POSITIVE, default=4_000_000, help="value size (default 4 M)")
    parser.add_argument("--budget", type=argtypes.NON_NEGATIVE, default=2000, help="tokens (default 2,000)")
    args = parser.parse_args(argv)
    for name, text in texts(args.chars).items():
        for shape in SHAPES:
            started = time.perf_counter()
            shown = preview(text, args.budget, shape)
            seconds = time.perf_counter() - started
            print(f"{name:6} {shape:6} {len(text):,} chars -> {len(shown):,} in {seconds:.2f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
