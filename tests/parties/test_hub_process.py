"""The hub in its own OS process, every client in this one: 10,000 TLS parties in one process.

One process holding both ends of each loopback connection needs two file
descriptors per party; with the hub elsewhere it needs one.  The limits are
lowered in a subprocess: a lowered hard limit cannot be raised again.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import trio

from mpc_rr.core import UsageError
from mpc_rr.core._registry import get_protocol
from mpc_rr.secure_sum.plainsum import expected_total, make_role
from parties.procs import run_with_hub_process
from parties.tcp_runner import run_tcp, run_tcp_sync
from transports.errors import TransportError
from transports.pki import generate_deployment
from transports.tcp import open_hub

resource = pytest.importorskip("resource")  # POSIX only


def test_a_hub_process_fits_where_one_process_cannot() -> None:
    # 100 clients: ~264 descriptors with the hub here, ~164 with the hub elsewhere; limit 200
    code = """
        import json, resource
        resource.setrlimit(resource.RLIMIT_NOFILE, (200, 200))
        from mpc_rr.core import UsageError
        from scenarios.cli.commands.ping import ping
        try:
            ping("tcp", 100)
        except UsageError as exc:
            print("REFUSED", exc)
        rep, _ = ping("tcp", 100, hub_process=True)
        print(json.dumps(rep))
    """
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=180
    )
    assert out.returncode == 0, out.stderr[-3000:]
    refused, report = out.stdout.strip().splitlines()[-2:]
    assert refused.startswith("REFUSED run_tcp with 100 parties and their hub in one process")
    assert "run the hub in its own process" in refused
    rep = json.loads(report)
    assert rep["ok"] is True, rep.get("errors")
    assert rep["transport"] == "tcp-hub-process" and rep["tls"] is True
    assert rep["handshakes"] == 100 and rep["messages"] == 200
    assert rep["max_rss_bytes"] > 0 and rep["hub_max_rss_bytes"] > 0


def test_same_results_and_transcript_as_the_hub_in_this_process() -> None:
    n, seed, params = 9, 4, {"cells": 3, "run": "hp"}
    spec = get_protocol("plainsum")
    split = run_with_hub_process(spec, n, seed=seed, params=params, transcript=True, timeout=60)
    assert split.ok, split.errors
    want = expected_total(n - 1, seed, 3)
    assert set(split.results) == set(range(n))
    assert all(np.array_equal(r["total"], want) for r in split.results.values())
    # the deployed label is "hp#<16 hex digits>", the run's nonce; same label, same bytes
    label = split.reports[0]["run"]
    assert label.startswith("hp#") and len(label) == len("hp#") + 16
    labelled = {**params, "run": label}
    together = run_tcp_sync({i: make_role(i, n, seed, labelled) for i in range(n)}, transcript=True)
    assert together.ok
    assert split.links() == together.links()
    assert split.costs.messages == together.costs.messages == 2 * (n - 1)
    assert split.costs.bytes == together.costs.bytes
    # wire bytes count both processes' writes: every payload byte crosses the wire at least once
    extra = split.costs.extra
    assert split.reports[0]["wire_bytes"] > 0
    assert extra["wire_bytes"] - extra["wire_bytes_setup"] >= split.costs.bytes
    assert extra["wire_bytes"] >= together.costs.extra["wire_bytes"] - 64 * n  # TLS record sizes vary


def test_secagg_over_a_hub_process_sums_exactly() -> None:
    n, params = 12, {"cells": 5, "run": "hp-secagg"}
    spec = get_protocol("secagg")
    res = run_with_hub_process(spec, n, seed=7, params=params, timeout=120)
    assert res.ok, res.errors
    ref = trio.run(
        lambda: run_tcp({i: spec.make_role(i, n, 7, params) for i in range(n)}, timeout=120)
    )
    assert ref.ok
    want = spec.result_to_json(ref.roles[0].result)
    assert res.results[0] == want


def test_a_hub_that_never_signals_the_start_is_a_clean_error(tmp_path) -> None:  # type: ignore[no-untyped-def]
    roster = generate_deployment(3, tmp_path, hub_port=0)

    async def main() -> None:
        # a hub that welcomes the parties but never calls start_all
        async with open_hub(roster, host="127.0.0.1", port=0, tls=False) as hub:
            live = roster.with_hub_address("127.0.0.1", hub.port)
            roles = {i: make_role(i, 3, 0, {"cells": 1}) for i in (1, 2)}
            with pytest.raises(TransportError, match=r"did not signal the start within 0.5 s"):
                await run_tcp(roles, roster=live, tls=False, connect_wait=0.5)

    trio.run(main)


def test_roles_must_cover_the_roster_but_the_hub(tmp_path) -> None:  # type: ignore[no-untyped-def]
    roster = generate_deployment(4, tmp_path, hub_port=0).with_hub_address("127.0.0.1", 1)
    with pytest.raises(UsageError, match=r"roles and roster list different parties"):
        run_tcp_sync({1: make_role(1, 4, 0, {"cells": 1})}, roster=roster)
    no_port = generate_deployment(3, tmp_path / "b", hub_port=0)
    with pytest.raises(UsageError, match=r"the hub runs elsewhere, but the roster gives it no port"):
        run_tcp_sync({i: make_role(i, 3, 0, {"cells": 1}) for i in (1, 2)}, roster=no_port)


@pytest.mark.slow
def test_ten_thousand_tls_parties_with_the_hub_in_its_own_process() -> None:
    # 10,000 TLS parties on a machine whose hard open-file limit (20,000) cannot hold 10,000
    # parties and their hub in one process; ~45 s on 2 quiet cores
    out = subprocess.run(
        [sys.executable, "-m", "scenarios.cli", "ping", "--transport", "tcp", "--hub-process",
         "--parties", "10000", "--timeout", "900", "--json"],
        capture_output=True, text=True, timeout=1200,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    rep = json.loads(out.stdout)
    assert rep["ok"] is True and rep["tls"] is True and rep["handshakes"] == 10_000
    per_party = (rep["max_rss_bytes"] + rep["hub_max_rss_bytes"]) / 10_000
    assert per_party < 150_000, f"{per_party / 1000:.0f} KB per TLS party (both processes)"


def test_a_protocol_the_hub_process_cannot_find_is_refused_up_front() -> None:
    from mpc_rr.core import ProtocolSpec

    with pytest.raises(UsageError, match=r"'my-sum' is not a built-in protocol"):
        run_with_hub_process(ProtocolSpec("my-sum", make_role), 4, params={"cells": 2})


def test_a_hub_process_that_dies_is_named_with_its_exit_code() -> None:
    # /bin/false stands in for a hub whose interpreter fails at once
    with pytest.raises(TransportError, match=r"the hub's process exited \(code 1\)"):
        run_with_hub_process(get_protocol("plainsum"), 4, params={"cells": 2}, timeout=30, python="/bin/false")


