"""What produced a result: the code version, library versions and the machine.

:func:`code_version` is part of every stored run's key (:mod:`scenarios.results.store`):
the package version plus a digest of the source files that compute runs --
``mpc_rr/``, ``parties/``, ``transports/`` and ``scenarios/`` except the
modules that only schedule, store or present runs (the sweep, the store,
the summaries, the report and the ``scenario``/``results``/``report``
commands).  Editing an estimator makes
every run "missing" again; editing the report does not.
The git commit, when there is one, is recorded next to it for the reader
(a digest of the files is what decides, so uncommitted edits count too).
"""

from __future__ import annotations

import functools
import hashlib
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

__all__ = ["code_version", "git_commit", "machine", "versions"]

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("mpc_rr", "parties", "transports", "scenarios")
# presentation only: changing them changes no result ("scenarios/results/report": report.py and
# every report_*.py module of its figures, matched as a prefix)
PRESENTATION = ("scenarios/results/store.py", "scenarios/experiments/sweep.py", "scenarios/results/aggregate.py", "scenarios/results/provenance.py",
                "scenarios/results/report", "scenarios/cli/commands/scenario.py",
                "scenarios/cli/commands/results.py", "scenarios/cli/commands/report.py")  # fmt: skip


def _package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mpc-rr")
    except PackageNotFoundError:
        return "0+unknown"


@functools.cache
def code_version() -> str:
    """``<version>+src.<12 hex>``: the package version and a digest of the computing sources."""
    h = hashlib.sha256()
    for pkg in PACKAGES:
        for f in sorted((ROOT / pkg).rglob("*.py")):
            rel = f.relative_to(ROOT).as_posix()
            if rel.startswith(PRESENTATION):
                continue
            h.update(rel.encode() + b"\0" + f.read_bytes() + b"\0")
    return f"{_package_version()}+src.{h.hexdigest()[:12]}"


@functools.cache
def git_commit() -> str | None:
    """The checkout's commit (``+dirty`` with uncommitted changes), or ``None``."""
    try:
        head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True,
                              text=True, timeout=5, check=True).stdout.strip()  # fmt: skip
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=5, check=True).stdout.strip()  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    return head + ("+dirty" if dirty else "") if head else None


def versions() -> dict[str, str]:
    """Python and the libraries that compute or draw results."""
    from importlib.metadata import PackageNotFoundError, version

    out = {
        "python": platform.python_version(),
        "mpc-rr": _package_version(),
        "code": code_version(),
    }
    commit = git_commit()
    if commit:
        out["git"] = commit
    for lib in (
        "numpy",
        "scipy",
        "msgspec",
        "trio",
        "cryptography",
        "matplotlib",
        "clarabel",
        "pot",
        "randomgen",
    ):
        try:
            out[lib] = version(lib)
        except PackageNotFoundError:
            continue
    return out


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _memory_gib() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 2**20, 1)
    except (OSError, ValueError):
        pass
    return None


def machine() -> dict[str, Any]:
    """Host, OS, CPU, cores, memory and the load average when asked."""
    try:
        load: list[float] | None = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        load = None
    return {
        "host": platform.node(),
        "os": f"{platform.system()} {platform.release()}",
        "platform": platform.platform(),
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "cores_usable": len(os.sched_getaffinity(0))
        if hasattr(os, "sched_getaffinity")
        else os.cpu_count(),
        "memory_gib": _memory_gib(),
        "load_average": load,
        "python_executable": sys.executable,
    }
