"""Start-up cost: what `mpc-rr --help` and a party process import, and how soon a party is ready.

Wall-clock bounds are generous (the test machine is shared and loaded); the
import checks are exact: a heavy module that sneaks back into these paths
fails them.
"""

from __future__ import annotations

import json
import os
import resource
import socket
import subprocess
import sys
import time
from pathlib import Path

from transports.pki import generate_deployment

ROOT = Path(__file__).resolve().parents[3]
# msgspec is allowed: the protocols' typed options are msgspec structs, and their fields are the
# commands' flags (about 20 ms of import, measured; numpy alone is 150 ms)
NEVER_AT_HELP = {"numpy", "scipy", "matplotlib", "trio", "cryptography", "pytest"}
NEVER_IN_A_PARTY = {"scipy", "matplotlib", "pytest", "pandas", "tqdm", "importlib.metadata"}


def _imported(stderr: str) -> set[str]:
    """Module names from ``python -X importtime`` output."""
    names = set()
    for line in stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip())
    return names


def _child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def test_help_imports_no_heavy_library_and_is_fast() -> None:
    cpu0, t0 = _child_cpu(), time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "scenarios.cli", "--help"],
        capture_output=True, text=True, cwd=ROOT, check=True,
    )  # fmt: skip
    wall, cpu = time.perf_counter() - t0, _child_cpu() - cpu0
    assert "COMMAND" in out.stdout
    heavy = {m for m in _imported(out.stderr) if m.split(".")[0] in NEVER_AT_HELP}
    assert not heavy, f"mpc-rr --help imports {sorted(heavy)[:10]}"
    # 0.3 s on a quiet machine; generous bounds for a loaded one
    assert cpu < 1.0 and wall < 10.0, (cpu, wall)


def test_version_is_read_only_when_asked() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "scenarios.cli", "--version"], capture_output=True, text=True, cwd=ROOT
    )
    assert out.returncode == 0 and out.stdout.startswith("mpc-rr ")


def test_a_party_process_imports_nothing_it_does_not_use_and_reports_its_startup(
    tmp_path: Path,
) -> None:
    probe = socket.create_server(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()  # nobody listens there: the party is ready, finds no hub, reports and exits
    generate_deployment(40, tmp_path, hub_port=port)  # 39 data parties: a sparse SecAgg+ graph
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "scenarios.cli", "party", "--roster",
         str(tmp_path / "roster.json"), "--id", "3", "--protocol", "secagg", "--params",
         json.dumps({"cells": 1582}), "--linger", "0.5"],
        capture_output=True, text=True, cwd=ROOT, env=env, timeout=120,
    )  # fmt: skip
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report["cause"] == "connection" and out.returncode == 1
    unused = {m for m in _imported(out.stderr) if m in NEVER_IN_A_PARTY or m.split(".")[0] in NEVER_IN_A_PARTY}
    assert not unused, f"a SecAgg+ party process imports {sorted(unused)[:10]}"
    # process age when it was ready to connect: about 1 s on a quiet machine
    assert 0 < report["startup_s"] < 10.0
