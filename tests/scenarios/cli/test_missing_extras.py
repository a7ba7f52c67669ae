"""Without an optional extra, the commands that need it exit 2 with the exact ``pip install`` to run,
before any work and without a traceback.  Each runs in a fresh interpreter in which the extra's
modules cannot be imported (``sys.modules[name] = None``), as in an install without the extra."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


def _without(modules: list[str], argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    code = (
        "import sys\n"
        f"for m in {modules!r}: sys.modules[m] = None\n"
        "from scenarios.cli import main\n"
        f"sys.exit(main({argv!r}))\n"
    )
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=120)  # fmt: skip


@pytest.mark.parametrize("missing", [["hypercorn"], ["segno"]])
def test_classroom_serve_without_the_classroom_extra(missing: list[str], tmp_path: Path) -> None:
    p = _without(missing, ["classroom", "serve", "--protocol", "full-mesh", "--bots", "2", "--once",
                           "--port", "0"], tmp_path)  # fmt: skip
    assert p.returncode == 2, p.stderr
    assert f"needs {missing[0]}, which is not installed: pip install 'mpc-rr[classroom]'" in p.stderr
    assert "Traceback" not in p.stderr and "join" not in p.stdout  # nothing served


def test_the_ray_engine_without_the_ray_extra(tmp_path: Path) -> None:
    p = _without(["ray"], ["run", "adult", "--parties", "50", "--engine", "ray", "--workers", "2",
                           "--out", str(tmp_path / "out")], tmp_path)  # fmt: skip
    assert p.returncode == 2, p.stderr
    assert "--engine ray needs ray, which is not installed: pip install 'mpc-rr[ray]'" in p.stderr
    assert "Traceback" not in p.stderr and not (tmp_path / "out").exists()  # refused before any work


def test_a_frame_without_the_pandas_extra(tmp_path: Path) -> None:
    code = (
        "import sys\nsys.modules['pandas'] = None\n"
        "from scenarios.results.frames import run_frame\n"
        "try:\n    run_frame({'relative_error': {}})\n"
        "except Exception as exc:\n    print(type(exc).__name__, exc)\n"
    )
    p = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                       env={"PYTHONPATH": str(ROOT)}, timeout=60)  # fmt: skip
    assert p.stdout.strip() == (
        "MissingExtra results as DataFrames needs pandas, which is not installed: pip install 'mpc-rr[pandas]'"
    ), p.stderr
