"""The public API of mpc_rr is importable from the package, lazily."""

from __future__ import annotations

import subprocess
import sys

import mpc_rr


def test_every_public_name_resolves() -> None:
    for name in mpc_rr.__all__:
        assert getattr(mpc_rr, name) is not None, name


def test_importing_the_package_loads_nothing_heavy() -> None:
    code = (
        "import sys, mpc_rr; from mpc_rr.rrba import ESTIMATORS; from mpc_rr.estimation import ESTIMATORS; "
        "from mpc_rr.mdrr import MECHANISMS; from mpc_rr.data import DEFAULT_MAX_CATEGORIES; "
        "print('numpy' in sys.modules, 'scipy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
