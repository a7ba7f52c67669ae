"""File-descriptor budget of in-process TCP runs: refused or raised up front, never "Too many
open files" midway.

The limits are changed in a subprocess: lowering the hard limit cannot be undone.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from mpc_rr.core import UsageError
from transports.limits import ensure_fd_limit

resource = pytest.importorskip("resource")  # POSIX only: elsewhere the OS has no such limit


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_run_tcp_is_refused_before_any_work_when_the_hard_limit_is_too_low() -> None:
    out = _run(
        """
        import resource
        resource.setrlimit(resource.RLIMIT_NOFILE, (200, 200))
        import parties.tcp_runner as tr
        from mpc_rr.secure_sum.plainsum import make_role

        def work_started(*a, **k):
            print("WORK STARTED", flush=True)
            raise SystemExit(5)

        tr.generate_deployment = tr.open_hub = work_started
        roles = {i: make_role(i, 300, 1, {"cells": 1}) for i in range(300)}
        tr.run_tcp_sync(roles)
        """
    )
    assert "WORK STARTED" not in out.stdout
    assert out.returncode == 1, out.stderr
    last = out.stderr.strip().splitlines()[-1]
    assert last.startswith("mpc_rr.core.UsageError: run_tcp with 299 parties and their hub in one process")
    assert "the open-file limit (RLIMIT_NOFILE) is 200" in last
    assert "hard limit 200" in last and "`ulimit -n " in last
    assert last.endswith("or run the hub in its own process, one socket per party here instead of two "
                         "(parties.procs.run_with_hub_process; `mpc-rr ping --hub-process`)")


def test_the_soft_limit_is_raised_when_the_hard_limit_allows_it() -> None:
    out = _run(
        """
        import resource
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (48, hard))
        from parties.tcp_runner import run_tcp_sync
        from mpc_rr.secure_sum.plainsum import expected_total, make_role

        n = 40  # 39 clients: 78 sockets in this process, more than 48
        roles = {i: make_role(i, n, 3, {"cells": 2}) for i in range(n)}
        res = run_tcp_sync(roles, tls=False)
        assert res.ok, res.errors
        assert (roles[0].result.total == expected_total(n - 1, 3, 2)).all()
        print("soft limit now", resource.getrlimit(resource.RLIMIT_NOFILE)[0])
        """
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert int(out.stdout.split()[-1]) >= 2 * 39


def test_ensure_fd_limit_checks_its_argument() -> None:
    with pytest.raises(UsageError, match=r"needed must be an int >= 0, got -1"):
        ensure_fd_limit(-1, "test")
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    assert ensure_fd_limit(0, "nothing") == soft  # enough already: nothing changes
