"""The built package is honest: installed from its wheel alone, it runs every scenario from an empty folder.

This builds the sdist from the clone, the wheel from that sdist (so both are proven to carry the data),
installs the wheel into a fresh virtualenv (with uv where present, else venv and pip) and runs
``agent-conformance`` from an empty temporary directory, where no clone is anywhere near. Dependencies
come from uv's or pip's cache or the index as usual. Marked
``packaging`` (about a minute): ``pytest -m 'not packaging'`` leaves it out.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import venv
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import copy_of_the_tree

from conformance.paths import REPO_ROOT, SCENARIO_ROOT

pytestmark = pytest.mark.packaging

SCENARIOS = len(list(SCENARIO_ROOT.rglob("*.yaml")))


def _run(argv: list[str], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


def _build(tmp: Path) -> tuple[Path, Path]:
    """sdist from the clone, then the wheel from the unpacked sdist, both with this setuptools."""
    dist = tmp / "dist"
    sdist = _run(
        [
            sys.executable,
            "-c",
            f"from setuptools import build_meta as b; print(b.build_sdist({str(dist)!r}))",
        ],
        cwd=REPO_ROOT,
    )
    assert sdist.returncode == 0, sdist.stderr[-3000:]
    sdist_path = dist / sdist.stdout.strip().splitlines()[-1]
    # What `pip wheel --no-deps --no-build-isolation <sdist>` does, without pip: unpack, build_wheel.
    unpacked = tmp / "sdist"
    _unpack(sdist_path, unpacked)
    (source,) = unpacked.iterdir()
    wheel = _run(
        [
            sys.executable,
            "-c",
            f"from setuptools import build_meta as b; print(b.build_wheel({str(dist)!r}))",
        ],
        cwd=source,
    )
    assert wheel.returncode == 0, wheel.stderr[-3000:]
    return sdist_path, dist / wheel.stdout.strip().splitlines()[-1]


def _unpack(archive_path: Path, into: Path) -> None:
    """Unpack the sdist, refusing any member that is not a plain file or folder inside ``into``.

    Why not ``extractall(filter="data")``: extraction filters arrived in Python 3.11.4, and the README's
    test command must pass on Debian 12's own 3.11.2. Our own sdist holds only files and folders, so the
    check the filter would make is short to write: no links, devices or paths leaving the folder."""
    with tarfile.open(archive_path) as archive:
        members = archive.getmembers()
        root = into.resolve()
        for member in members:
            target = (into / member.name).resolve()
            if not (member.isfile() or member.isdir()) or not target.is_relative_to(root):
                raise AssertionError(f"{archive_path}: unexpected member {member.name!r} ({member.type!r})")
        if hasattr(tarfile, "data_filter"):  # 3.11.4 and later: let the filter check again
            archive.extractall(into, members=members, filter="data")
        else:
            archive.extractall(into, members=members)


def _uv() -> str | None:
    """uv, if this machine has it: from the environment, PATH, or the clone's own ``.venv`` (bootstrap.py
    installs it there with nox). It makes the virtualenv and installs the wheel with its dependencies from
    its cache in a second or two, where venv plus pip took most of a minute of CPU."""
    try:
        from uv import find_uv_bin  # type: ignore[import-not-found,unused-ignore]

        return str(find_uv_bin())
    except (ImportError, FileNotFoundError):
        pass
    beside = REPO_ROOT / ".venv" / ("Scripts/uv.exe" if os.name == "nt" else "bin/uv")
    return shutil.which("uv") or (str(beside) if beside.exists() else None)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path, Path]]:
    """(sdist, wheel, the fresh virtualenv's bin folder) with only the wheel installed.

    The virtualenv and the unpacked sdist (about 4,000 files, over half of what a run of the tests leaves
    in pytest's temporary folder) are removed when the module's tests are done, while the other worker is
    still busy; left in place, a later pytest run removed them in its controller after every test had
    ended, seconds of unlinking added to that run's end. The sdist and the wheel stay for inspection."""
    tmp = tmp_path_factory.mktemp("package")
    sdist, wheel = _build(tmp)
    env_dir = tmp / "venv"
    bin_dir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    uv = _uv()
    if uv:
        made = _run([uv, "venv", "--quiet", "--python", sys.executable, str(env_dir)], cwd=tmp)
        assert made.returncode == 0, made.stderr[-3000:]
        python = str(bin_dir / "python")
        install = _run([uv, "pip", "install", "-q", "--python", python, str(wheel)], cwd=tmp, timeout=600)
    else:
        venv.EnvBuilder(with_pip=True).create(env_dir)
        pip = [str(bin_dir / "python"), "-m", "pip", "install", "-q", str(wheel)]
        install = _run(pip, cwd=tmp, timeout=600)
    assert install.returncode == 0, install.stderr[-3000:]
    yield sdist, wheel, bin_dir
    for unpacked in (env_dir, tmp / "sdist"):
        shutil.rmtree(unpacked, ignore_errors=True)


def test_sdist_carries_the_repository_folders_and_not_the_golden_transcripts(
    installed: tuple[Path, Path, Path],
) -> None:
    sdist, _, _ = installed
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    assert {"setup.py", "spec/ids.txt", "conformance/baselines/llmz-1.0.1.yaml"} <= names
    assert sum(1 for n in names if n.startswith("fixtures/scenarios/") and n.endswith(".yaml")) == SCENARIOS
    assert not [n for n in names if n.startswith("fixtures/golden/") or "node_modules" in n]


def test_wheel_carries_catalogue_scenarios_schemas_and_baselines(installed: tuple[Path, Path, Path]) -> None:
    _, wheel, _ = installed
    names = set(zipfile.ZipFile(wheel).namelist())
    data = "conformance/_data/"
    assert {
        f"{data}spec/ids.txt",
        f"{data}spec/schema/report.schema.json",
        f"{data}spec/protocol/record.schema.json",
        "conformance/baselines/llmz-1.0.1.yaml",
        "conformance/adapters/llmz_node/bridge.mjs",
    } <= names
    assert sum(1 for n in names if n.startswith(f"{data}scenarios/") and n.endswith(".yaml")) == SCENARIOS
    assert not [n for n in names if "node_modules" in n or "fixtures/golden" in n]


def test_installed_wheel_passes_every_scenario_from_an_empty_directory(
    installed: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    _, _, bin_dir = installed
    empty = tmp_path / "empty"
    empty.mkdir()
    done = _run([str(bin_dir / "agent-conformance"), "run", "--impl", "reference"], cwd=empty)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert done.stdout.splitlines()[-1] == f"{SCENARIOS} passed, 0 failed, 0 errored, 0 skipped"
    report = json.loads((empty / "build" / "conformance" / "reference" / "report.json").read_text())
    assert report["summary"]["passed"] == SCENARIOS
    assert not str(report["run"]["suite_version"]).endswith("+clone")


def test_installed_wheel_exits_2_for_a_missing_scenario_folder(
    installed: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    _, _, bin_dir = installed
    done = _run(
        [str(bin_dir / "python"), "-m", "conformance", "run", "--scenarios", str(tmp_path / "nowhere")],
        cwd=tmp_path,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "does not exist" in done.stderr
    assert not (tmp_path / "build").exists()


def test_a_clone_layout_planted_beside_the_installed_package_is_ignored(
    installed: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """Issue 23: a ``spec/ids.txt`` and ``fixtures/scenarios/`` in site-packages once made the installed
    suite run a planted one-scenario tree green. The package carries its own data and never looks there."""
    _, _, bin_dir = installed
    python = str(bin_dir / "python")
    probe = "import conformance, pathlib; print(pathlib.Path(conformance.__file__).parent.parent)"
    where = _run([python, "-c", probe], cwd=tmp_path)
    site = Path(where.stdout.strip())
    planted = [site / "spec", site / "fixtures", site / "pyproject.toml"]
    try:
        (site / "spec").mkdir()
        (site / "spec" / "ids.txt").write_text("falai.planted.rule\n", encoding="utf-8")
        one = site / "fixtures" / "scenarios" / "falai" / "business-hours" / "closing-boundary.yaml"
        one.parent.mkdir(parents=True)
        shutil.copy(site / "conformance" / "_data" / "scenarios" / "falai" / one.parent.name / one.name, one)
        project = '[project]\nname = "agent-runtime-conformance"\n'
        (site / "pyproject.toml").write_text(project, encoding="utf-8")
        command = [str(bin_dir / "agent-conformance"), "run", "--impl", "reference", "--system", "falai"]
        done = _run(command, cwd=tmp_path)
    finally:
        for path in planted:
            if path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    report = json.loads((tmp_path / "build" / "conformance" / "reference" / "report.json").read_text())
    assert report["summary"]["passed"] > 1 and not str(report["run"]["suite_version"]).endswith("+clone")


def test_pip_wheel_leaves_no_build_folder_or_egg_info_in_the_clone(tmp_path: Path) -> None:
    """`pip wheel .` used to leave build/lib/, build/bdist.*/ and an .egg-info folder in the clone
    (setup.py now builds in a temporary folder); build/ is where a clone's reports go."""
    tree = copy_of_the_tree(tmp_path / "clone")
    pip_wheel = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"]
    built = _run([*pip_wheel, "-w", str(tmp_path), "."], cwd=tree)
    assert built.returncode == 0, built.stderr[-3000:]
    assert list(tmp_path.glob("agent_runtime_conformance-*.whl"))
    left = sorted(str(p.relative_to(tree)) for p in [*tree.glob("build/*"), *tree.glob("*.egg-info")])
    assert left == [], f"the build left {left} in the clone"
