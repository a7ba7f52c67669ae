"""Issue 21: a deployed party's bad key files are usage errors with a report, and every
deployed run has its own label (a message replayed from another run is rejected)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import trio

from mpc_rr.core import get_protocol
from mpc_rr.secure_sum.plainsum import expected_total
from parties.node import run_label, run_node
from parties.party_main import main as party_main
from transports.pki import Roster, generate_deployment


@pytest.fixture
def deployment(tmp_path: Path) -> Roster:
    return generate_deployment(3, tmp_path / "keys", hub_port=0)


def _break(roster: Roster, how: str) -> Path:
    """Break party 1's files as ``how`` says; the file that is now wrong."""
    key, cert = roster.key_path(1), roster.cert_path(1)
    if how == "missing key":
        key.unlink()
        return key
    if how == "garbage key":
        key.write_bytes(b"-----BEGIN PRIVATE KEY-----\ngarbage\n-----END PRIVATE KEY-----\n")
        return key
    if how == "another party's key":
        shutil.copy(roster.key_path(2), key)
        return key
    if how == "another party's certificate":
        shutil.copy(roster.cert_path(2), cert)
        return cert
    if how == "garbage certificate":
        cert.write_bytes(b"not a certificate")
        return cert
    if how == "missing CA":
        roster.ca_path().unlink()
        return roster.ca_path()
    raise AssertionError(how)


HOWS = ["missing key", "garbage key", "another party's key", "another party's certificate",
        "garbage certificate", "missing CA"]  # fmt: skip


@pytest.mark.parametrize("how", HOWS)
def test_a_bad_key_file_is_exit_2_naming_the_file_with_a_report(
    deployment: Roster, how: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: exit 3 with a traceback (a UsageError inside a trio ExceptionGroup), no report."""
    bad = _break(deployment, how)
    argv = ["--roster", str(deployment.directory / "roster.json"), "--id", "1", "--linger", "1"]
    assert party_main(argv) == 2
    out, err = capsys.readouterr()
    report = json.loads(out.strip().splitlines()[-1])
    assert report["cause"] == "usage" and report["ok"] is False and report["party"] == 1
    assert str(bad) in report["error"], report["error"]
    assert str(bad) in err and "Traceback" not in err


def test_a_bad_hub_key_is_exit_2_too(deployment: Roster, capsys: pytest.CaptureFixture[str]) -> None:
    deployment.key_path(0).write_bytes(b"\x00" * 64)
    argv = ["--roster", str(deployment.directory / "roster.json"), "--id", "0", "--linger", "1"]
    assert party_main(argv) == 2
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert report["cause"] == "usage" and str(deployment.key_path(0)) in report["error"]


def test_a_missing_roster_is_exit_2_with_a_report(tmp_path: Path, capsys) -> None:
    assert party_main(["--roster", str(tmp_path / "nope.json"), "--id", "1"]) == 2
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert report["cause"] == "usage" and "nope.json" in report["error"]


def test_run_labels_carry_the_nonce_and_keep_their_base() -> None:
    spec = get_protocol("plainsum")
    assert run_label(spec, 7, {}, "ab12") == "plainsum-7#ab12"
    assert run_label(spec, 7, {"run": "mine"}, "ab12") == "mine#ab12"
    assert run_label(spec, 7, {"run": "mine"}, "") == "mine"


async def _deploy(roster: Roster, n: int, seed: int) -> dict[int, dict]:
    """Every party of a plainsum run in this process, over plaintext TCP; their reports."""
    spec = get_protocol("plainsum")
    reports: dict[int, dict] = {}
    port_file = roster.directory / "port"
    port_file.unlink(missing_ok=True)

    async def one(pid: int, r: Roster) -> None:
        reports[pid] = await run_node(
            r, pid, spec, seed=seed, params={"cells": 2}, tls=False, linger=10, timeout=30,
            port_file=port_file if pid == 0 else None,
        )  # fmt: skip

    async with trio.open_nursery() as nursery:
        nursery.start_soon(one, 0, roster)
        while not port_file.exists():
            await trio.sleep(0.01)
        live = roster.with_hub_address("127.0.0.1", int(port_file.read_text()))
        for pid in range(1, n):
            nursery.start_soon(one, pid, live)
    return reports


async def test_two_runs_with_one_seed_have_different_labels_and_the_same_result(
    deployment: Roster,
) -> None:
    """Before: plainsum's run label was "" and SecAgg+'s `secagg-{seed}`: a message of an
    earlier run with the same seed carried the same label and was accepted."""
    runs = [await _deploy(deployment, 3, seed=5) for _ in range(2)]
    labels = [{r["run"] for r in reports.values()} for reports in runs]
    assert all(len(ls) == 1 for ls in labels), labels  # one label per run, on every party
    (first,), (second,) = labels
    assert first != second and first.startswith("plainsum-5#") and second.startswith("plainsum-5#")
    want = expected_total(2, 5, 2).tolist()
    for reports in runs:
        assert all(r["ok"] and r["result"]["total"] == want for r in reports.values()), reports


def test_a_message_of_an_earlier_run_with_the_same_seed_is_rejected_naming_its_sender() -> None:
    from mpc_rr.core import PeerError, WireArray
    from mpc_rr.secure_sum.plainsum import PlainValue, make_role

    spec = get_protocol("plainsum")
    earlier, now = (run_label(spec, 5, {}, nonce) for nonce in ("aa11", "bb22"))
    hub = make_role(0, 3, 5, {"cells": 2, "run": now})
    hub.start()
    stale = PlainValue(x=WireArray.from_numpy(np.zeros(2, np.int64)), run=earlier)
    with pytest.raises(PeerError, match="from party 1 is labelled run 'plainsum-5#aa11'") as err:
        hub.receive(1, stale)
    assert err.value.peer == 1


def test_the_secagg_graph_is_not_a_function_of_the_label() -> None:
    """The label (seed and nonce) fixes only the broken variant's graph (what an adversary
    computes before the run); the protocol draws its graph in the run."""
    from mpc_rr.secure_sum.secagg import secagg_public
    from mpc_rr.secure_sum.secagg._params import fixed_graph

    spec = get_protocol("secagg")
    pubs = [secagg_public(60, 3, run=run_label(spec, 9, {}, nonce), degree=20) for nonce in ("", "aa11", "bb22")]
    assert all(p.graph is None for p in pubs)  # nothing to predict: drawn from the parties' joint seed
    graphs = [fixed_graph(p.config).neighbors for p in pubs]
    assert np.array_equal(graphs[0], graphs[1]) and np.array_equal(graphs[0], graphs[2])
    other = fixed_graph(secagg_public(60, 3, run=run_label(spec, 10, {}, "aa11"), degree=20).config).neighbors
    assert not np.array_equal(graphs[0], other)  # the fixed derivation follows the label's base
