"""Shared helpers for benchmarks that measure a baseline revision beside this checkout:
export a revision's tree with ``git archive`` and run one measured child in a tree."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
"""This checkout (the project root)."""


def export_tree(rev: str, into: Path) -> Path:
    """Extract revision ``rev`` of this repository into the folder ``into``; return it.

    Raises :class:`subprocess.CalledProcessError` when git does not know ``rev``.
    """
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into


def run_child(
    script: str, tree: Path, args: list[str], timeout: float | None = None
) -> dict[str, object]:
    """Run ``script --child ARGS`` with ``tree``'s code in a fresh interpreter; return the JSON
    object its last line of output prints.  A folder of the data set files is passed on as
    ``MPC_RR_DATA``, since an older tree may not ship them.  ``timeout`` (s): the child is
    killed after it and :class:`subprocess.TimeoutExpired` raised."""
    from mpc_rr.data import data_dir

    env = dict(os.environ, PYTHONPATH=str(tree), MPC_RR_DATA=str(data_dir()))
    out = subprocess.run(
        [sys.executable, str(Path(script).resolve()), "--child", *args],
        capture_output=True, text=True, env=env, cwd=str(tree), timeout=timeout,
    )  # fmt: skip
    if out.returncode != 0:
        raise RuntimeError(f"child run in {tree} failed:\n{out.stderr[-3000:]}")
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result
