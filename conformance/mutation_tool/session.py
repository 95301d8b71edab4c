"""Running Cosmic Ray: a copy of the tree per system, a session per module, a seeded sample, ``exec``.

Cosmic Ray's local distributor writes each mutation into the file on disk, runs the test command and puts
the file back. It does so in a copy of the tree (``build/mutation/tree-<system>/``), never in the clone:
an interrupted run must not leave a mutated reference behind, and the three systems can run side by side
without seeing each other's mutations. The test command runs with the copy as its working directory, so
``python -m`` imports the copy's ``reference`` (the editable install's finder comes after the working
directory on the path).

Per module: ``cosmic-ray init`` lists every mutation in a work database (``<system>/<module>.sqlite``);
:func:`sample` sets aside the mutations of excluded lines (:mod:`.exclude`: decorators and marked type
guards), keeps ``per_module`` of the remaining wanted operators' mutations, chosen uniformly with a seeded
generator, and marks the rest ``skipped`` (Cosmic Ray's own way of setting work aside, as its filters do);
``cosmic-ray exec`` runs what is left.
"""

from __future__ import annotations

import random
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from conformance.mutation_tool.exclude import excluded_in, exclusion_of
from conformance.mutation_tool.plan import LAST, TIMEOUT, Target, wanted_operator

#: What the test command needs from the clone, copied into each system's tree.
COPIED = ("reference", "conformance", "variants", "fixtures", "spec")


def copy_tree(root: Path, tree: Path, invariants: Iterable[str] = ()) -> None:
    """The copy a system's mutants run in: ``COPIED``, the targets' invariant test files, and an empty
    ``pytest.ini`` so those tests run under no settings of the clone's."""
    if tree.exists():
        shutil.rmtree(tree)
    tree.mkdir(parents=True)
    ignore = shutil.ignore_patterns("__pycache__", "node_modules", "*.pyc")
    for name in COPIED:
        shutil.copytree(root / name, tree / name, ignore=ignore)
    for file in sorted(set(invariants)):
        (tree / file).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(root / file, tree / file)
    (tree / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")


def test_command(item: Target) -> str:
    first = ",".join(item.first)
    last = ",".join(LAST)
    return (
        f"{sys.executable} -m conformance.mutation_tool.probe --system {item.system}"
        + (f" --first {first}" if first else "")
        + (f" --last {last}" if last else "")
        + (f" --invariants {','.join(item.invariants)}" if item.invariants else "")
    )


def config_text(item: Target, timeout: float = TIMEOUT) -> str:
    """The Cosmic Ray configuration for one module (TOML; the paths are relative to the tree)."""
    return (
        "[cosmic-ray]\n"
        f'module-path = "{item.path}"\n'
        f"timeout = {timeout}\n"
        "excluded-modules = []\n"
        f'test-command = "{test_command(item)}"\n'
        "\n[cosmic-ray.distributor]\n"
        'name = "local"\n'
    )


def cosmic_ray(*args: str, cwd: Path) -> None:
    """Run the Cosmic Ray command line of this interpreter's environment; a failure stops the session."""
    done = subprocess.run(
        [sys.executable, "-m", "cosmic_ray.cli", *args], cwd=cwd, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"cosmic-ray {' '.join(args)} failed ({done.returncode}):\n{done.stderr[-2000:]}")


def choose(jobs: list[tuple[str, str, int]], per_module: int, rng: random.Random) -> set[str]:
    """The job ids to run: ``per_module`` of ``jobs`` (id, operator, occurrence) whose operator is wanted,
    uniformly at random. The candidates are sorted first so the draw depends on the seed and the source,
    never on the order Cosmic Ray stored them in."""
    candidates = sorted((op, occ, job) for job, op, occ in jobs if wanted_operator(op))
    picked = rng.sample(candidates, min(per_module, len(candidates)))
    return {job for _, _, job in picked}


def sample(db: Path, item: Target, per_module: int, seed: int, tree: Path) -> int:
    """Mark every job of ``db`` outside the sample as skipped; returns how many are left to run. Jobs on
    an excluded line (``tree``'s copy of the module decides which) are never candidates."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    lines = excluded_in(tree / item.path)
    with use_db(str(db), WorkDB.Mode.open) as work_db:
        items: Iterable[Any] = work_db.work_items
        jobs = [
            (w.job_id, w.mutations[0].operator_name, w.mutations[0].occurrence)
            for w in items
            if exclusion_of(lines, w.mutations[0].start_pos, w.mutations[0].end_pos) is None
        ]
        every = [w.job_id for w in work_db.work_items]
        keep = choose(jobs, per_module, random.Random(f"{seed}:{item.name}"))
        skipped = [job for job in every if job not in keep]
        work_db.set_multiple_results(skipped, WorkResult(worker_outcome=WorkerOutcome.SKIPPED))
    return len(keep)


def run_module(
    item: Target, tree: Path, out: Path, per_module: int, seed: int, log: Callable[[str], None]
) -> Path:
    folder = out / item.system
    folder.mkdir(parents=True, exist_ok=True)
    stem = item.name.split("/", 1)[1]
    config = folder / f"{stem}.toml"
    db = folder / f"{stem}.sqlite"
    config.write_text(config_text(item), encoding="utf-8")
    if db.exists():
        db.unlink()
    cosmic_ray("init", str(config.resolve()), str(db.resolve()), cwd=tree)
    count = sample(db, item, per_module, seed, tree)
    log(f"{item.name}: {count} mutants")
    cosmic_ray("exec", str(config.resolve()), str(db.resolve()), cwd=tree)
    log(f"{item.name}: done")
    return db


def budget(item: Target, per_module: int, per_module_extended: int | None) -> int:
    """How many mutants ``item`` gets: the core modules' count, or the extended group's."""
    if item.core or per_module_extended is None:
        return per_module
    return per_module_extended


def run_system(
    system: str, targets: list[Target], root: Path, out: Path, per_module: int, seed: int,
    log: Callable[[str], None], per_module_extended: int | None = None,
) -> list[Path]:  # fmt: skip
    tree = out / f"tree-{system}"
    copy_tree(root, tree, [file for item in targets for file in item.invariants])
    return [
        run_module(item, tree, out, budget(item, per_module, per_module_extended), seed, log)
        for item in targets
    ]


def run(
    targets: list[Target], root: Path, out: Path, per_module: int, seed: int, jobs: int = 1,
    log: Callable[[str], None] = print, per_module_extended: int | None = None,
) -> None:  # fmt: skip
    """Run every target, the systems side by side on up to ``jobs`` workers (one tree each). A ``core``
    module gets ``per_module`` mutants, any other ``per_module_extended`` (``per_module`` when None)."""
    systems = sorted({t.system for t in targets})
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [
            pool.submit(
                run_system,
                s,
                [t for t in targets if t.system == s],
                root,
                out,
                per_module,
                seed,
                log,
                per_module_extended,
            )
            for s in systems
        ]
        for future in futures:
            future.result()
