"""Party processes forked (from the runner or a fork server) or fresh interpreters.

A fork imports once and forks the parties: each is still its own OS process,
and must draw its own keys (fork safety), give the same results as a fresh
interpreter, and never re-run the caller's main script.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from mpc_rr.core import Codec, UsageError
from mpc_rr.secure_sum.plainsum import expected_total
from mpc_rr.secure_sum.secagg import AdvertiseKeys
from parties.launch import launch_party, resolve_launch
from parties.procs import run_processes

ROOT = Path(__file__).resolve().parents[2]


def test_both_launches_give_the_same_results_and_payloads() -> None:
    params = {"cells": 4, "run": "launch"}
    runs = {
        launch: run_processes("plainsum", 5, seed=3, params=params, timeout=60, transcript=True, launch=launch)
        for launch in ("fork-server", "exec")
    }
    want = expected_total(4, 3, 4)
    for launch, r in runs.items():
        assert r.ok, (launch, r.errors)
        assert all(np.array_equal(v["total"], want) for v in r.results.values()), launch
        assert set(r.exit_codes.values()) == {0}, (launch, r.exit_codes)
    # each run has its own nonce in its label; everything else is the same
    labels = {launch: r.reports[0]["run"].encode() for launch, r in runs.items()}
    assert labels["exec"] != labels["fork-server"]
    links = {
        launch: {k: [f.replace(labels[launch], b"launch#" + b"0" * 16) for f in frames]
                 for k, frames in r.links().items()}
        for launch, r in runs.items()
    }  # fmt: skip
    assert links["fork-server"] == links["exec"]
    # a fresh interpreter imports trio, numpy, ssl, cryptography and the roles (~0.5 s of CPU);
    # a forked party has them already
    ready = {launch: statistics.median(float(rep["startup_s"]) for rep in r.reports.values())
             for launch, r in runs.items()}  # fmt: skip
    assert ready["fork-server"] < ready["exec"], ready


def test_forked_parties_draw_their_own_keys() -> None:
    # Parties forked from one pre-imported server must not share CSPRNG state:
    # equal keys would let any party unmask its neighbours.
    r = run_processes("secagg", 7, seed=1, params={"cells": 8}, timeout=90, transcript=True)
    assert r.ok, r.errors
    codec = Codec([AdvertiseKeys])
    adverts = [
        codec.decode(data) for (src, dst), frames in r.links().items() if dst == 0 for data in frames[:1]
    ]
    assert len(adverts) == 6
    keys = [a.c_pk for a in adverts] + [a.s_pk for a in adverts]  # type: ignore[attr-defined]
    assert len(set(keys)) == 12, "two forked parties advertised the same public key"


@pytest.mark.slow  # the default tier compares the start-up of both launches on the plain sum
def test_forked_parties_are_ready_sooner_than_fresh_interpreters() -> None:
    ready = {}
    for launch in ("fork-server", "exec"):
        r = run_processes("secagg", 4, seed=2, params={"cells": 16}, timeout=90, launch=launch)
        assert r.ok, r.errors
        ready[launch] = statistics.median(float(rep["startup_s"]) for rep in r.reports.values())
    # a fresh interpreter imports trio, numpy, ssl, cryptography and the roles (~0.5 s of CPU);
    # a forked party has them already
    assert ready["fork-server"] < ready["exec"], ready


def test_parties_forked_from_the_runner_draw_their_own_keys_and_sum_right(tmp_path: Path) -> None:
    # launch="fork" needs a process without other threads: a fresh interpreter, not pytest's
    script = textwrap.dedent(
        """
        import json
        import numpy as np
        from mpc_rr.core import Codec
        from mpc_rr.secure_sum import expected_total
        from mpc_rr.secure_sum.secagg import AdvertiseKeys
        from parties.procs import run_processes

        r = run_processes("secagg", 7, seed=1, params={"cells": 8}, timeout=90, transcript=True,
                          launch="fork")
        codec = Codec([AdvertiseKeys])
        adverts = [codec.decode(f[0]) for (src, dst), f in r.links().items() if dst == 0]
        keys = {a.c_pk for a in adverts} | {a.s_pk for a in adverts}
        print(json.dumps({"ok": r.ok, "errors": {str(k): v for k, v in r.errors.items()},
                          "adverts": len(adverts), "distinct_keys": len(keys),
                          "exact": bool(np.array_equal(r.results[0]["total"], expected_total(6, 1, 8))),
                          "exit_codes": sorted(set(r.exit_codes.values()))}))
        """
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run(
        [sys.executable, "-"], input=script, capture_output=True, text=True, timeout=180, env=env
    )
    assert out.returncode == 0, out.stderr[-2000:]
    import json

    rep = json.loads(out.stdout.strip().splitlines()[-1])
    assert rep["ok"], rep["errors"]
    assert rep["exact"] and rep["exit_codes"] == [0]
    assert rep["adverts"] == 6 and rep["distinct_keys"] == 12, "two forked parties shared a key"


def test_fork_is_refused_with_other_threads_and_auto_falls_back_to_the_fork_server() -> None:
    import threading

    stop = threading.Event()
    t = threading.Thread(target=stop.wait, daemon=True)
    t.start()
    try:
        with pytest.raises(UsageError, match=r"launch 'fork' needs Linux and a process without other threads"):
            resolve_launch("fork")
        assert resolve_launch("auto") == "fork-server"
    finally:
        stop.set()
        t.join()
    assert resolve_launch("fork-server") == "fork-server" and resolve_launch("exec") == "exec"


@pytest.mark.parametrize("how", ["file", "stdin"])
def test_the_callers_main_script_is_not_rerun_in_the_parties(tmp_path: Path, how: str) -> None:
    marker = tmp_path / "ran.txt"
    script = textwrap.dedent(
        f"""
        # no `if __name__ == "__main__"` guard, on purpose: parties must not run this again
        with open({str(marker)!r}, "a") as f:
            f.write("ran\\n")
        from parties.procs import run_processes
        r = run_processes("plainsum", 3, seed=0, params={{"cells": 2}}, timeout=60)
        print("OK" if r.ok else r.errors)
        """
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    if how == "file":
        path = tmp_path / "user_script.py"
        path.write_text(script)
        out = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=120, env=env)
    else:
        out = subprocess.run(
            [sys.executable, "-"], input=script, capture_output=True, text=True, timeout=120, env=env
        )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "OK"
    assert marker.read_text() == "ran\n"


def test_unknown_launch_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(
        UsageError, match=r"launch must be one of \('auto', 'fork', 'fork-server', 'exec'\), got 'spawn'"
    ):
        run_processes("plainsum", 3, launch="spawn")
    with pytest.raises(UsageError, match=r"launch must be one of"):
        launch_party("thread", ["--help"], tmp_path / "log")


def test_a_hub_that_dies_at_start_ends_the_run_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # The hub's process exits before listening (here: a bad interpreter flag stands in for a
    # crash at start-up); the clients would retry connecting for their whole linger.
    import parties.procs as procs

    real = procs.launch_party

    def launch(launch: str, argv: list[str], log: Path, **kw: object):  # type: ignore[no-untyped-def]
        if argv[argv.index("--id") + 1] == "0":
            log.write_text("hub: simulated failure before listening\n")
            return subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])
        return real(launch, argv, log, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(procs, "launch_party", launch)
    t0 = time.monotonic()
    r = run_processes("plainsum", 4, seed=0, params={"cells": 2}, timeout=120, linger=60)
    took = time.monotonic() - t0
    assert took < 30, f"the run waited {took:.1f} s for a hub that was gone"
    assert not r.ok
    assert "no report (exit 3)" in r.errors[0] and "simulated failure before listening" in r.errors[0]
    assert set(r.errors) == {0, 1, 2, 3}
    assert all("terminated" in r.errors[i] or "connection" in r.errors[i] for i in (1, 2, 3)), r.errors
