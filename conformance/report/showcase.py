"""``python -m conformance.report.showcase`` (``nox -s report``): the side-by-side page and its screenshot.

Runs the suite against the reference and, where Node and npm are installed, against llmz 1.0.1 through the
bridge with its baseline; writes one ``report.html`` with both as columns, prints ``compare`` of the two,
and, where Chromium is installed, saves screenshots of the page (the llmz rules that differ, and one rule
opened to its failing checks). Everything lands in ``build/conformance/showcase/``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from conformance.adapters.llmz_node.install import missing_tools
from conformance.catalogue.load import load_catalogue
from conformance.cli import main as cli_main
from conformance.paths import BASELINE_DIR, BUILD_ROOT
from conformance.report import browser, compare, html


def _run(impl: str, directory: Path, *extra: str) -> Path:
    code = cli_main(["run", "--impl", impl, "--report-dir", str(directory), *extra])
    if code == 2:
        raise SystemExit(f"showcase: the run against {impl} could not start")
    return directory / "report.json"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance.report.showcase", description=__doc__)
    parser.add_argument("--out", type=Path, default=BUILD_ROOT / "conformance" / "showcase")
    parser.add_argument(
        "--llmz-report",
        type=Path,
        help="use this report.json of llmz 1.0.1 (e.g. the one `nox -s conformance-llmz` just wrote) "
        "instead of running the bridge again",
    )
    args = parser.parse_args(argv)
    paths = [_run("reference", args.out / "reference")]
    missing = missing_tools()
    if args.llmz_report is not None:
        if not args.llmz_report.is_file():
            raise SystemExit(f"showcase: --llmz-report {args.llmz_report} is not a file")
        paths.append(args.llmz_report)
    elif missing:
        print(f"showcase: no {' or '.join(missing)} on PATH, so the page holds the reference alone")
    else:
        baseline = str(BASELINE_DIR / "llmz-1.0.1.yaml")
        paths.append(_run("llmz-node", args.out / "llmz-1.0.1", "--expected-failures", baseline))
    reports = [compare.load(path) for path in paths]
    page = html.write(reports, load_catalogue(), args.out / "report.html")
    print(f"wrote {page}")
    if len(reports) == 2:
        print("\n".join(compare.render(compare.compare(*reports))))
    chromium = browser.find_chromium()
    if chromium is None:
        print("showcase: no Chromium installed (apt-get install chromium), so no screenshot was taken")
        return 0
    url = page.resolve().as_uri()
    opened = next((c.rules[0] for c in reports[-1].scenarios if c.checks and c.rules), "")
    views = (("report.png", "#system=llmz&differ=1"), ("report-open.png", f"#q={opened}&open={opened}"))
    for name, fragment in views:
        print(f"wrote {browser.screenshot(chromium, url + fragment, args.out / name)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
