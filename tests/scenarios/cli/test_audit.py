"""``mpc-rr audit``: JSON keys, verdicts, plots, the RRBA client and the pipeline, clean errors."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from scenarios import cli

pytestmark = pytest.mark.usefixtures("audit_and_attack_only")


def test_audit_json_keys_and_paper_claim_refuted(cli_json, tmp_path):
    argv = ["audit", "--mechanism", "keep-uniform", "--size", "2", "--p", "0.5",
            "--trials", "200000", "--confidence", "0.999", "--json", "--out", str(tmp_path)]  # fmt: skip
    data = cli_json(argv)
    for key in ("success", "baseline", "ci", "epsilon_lower", "epsilon_true", "epsilon_claimed", "trials"):
        assert key in data
    assert data["epsilon_true"] == pytest.approx(math.log(3))
    assert data["epsilon_claimed"] == pytest.approx(math.log(2))  # the paper's printed formula
    assert data["violation"] and data["epsilon_lower"] <= data["epsilon_true"]
    assert Path(data["plot"]).parent == tmp_path and Path(data["plot"]).stat().st_size > 10_000
    assert [c["trials"] for c in data["curve"]][-1] == 200_000


def test_audit_text_planted_bug_black_box(capsys):
    argv = ["audit", "--mechanism", "krr", "--k", "2", "--epsilon", "2", "--claimed-epsilon", "1",
            "--black-box", "--trials", "100000", "--no-plot"]  # fmt: skip
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "REFUTED" in out and "black-box search" in out


@pytest.mark.parametrize("mech", ["cluster", "lambda", "optimized"])
def test_audit_other_families(cli_json, mech):
    data = cli_json(["audit", "--mechanism", mech, "--trials", "50000", "--json", "--no-plot"])
    assert 0 < data["epsilon_lower"] <= data["epsilon_true"] and not data["violation"]


def test_audit_bad_input_is_a_clean_error(capsys):
    with pytest.raises(SystemExit) as exc:  # refused by argparse, before any work
        cli.main(["audit", "--mechanism", "krr", "--trials", "0", "--no-plot"])
    assert exc.value.code == 2
    assert "trials: must be an integer >= 1, got 0" in capsys.readouterr().err


def test_audit_rrba_json_targets_the_smallest_cell_and_refutes_the_paper(cli_json, tmp_path):
    argv = ["audit", "--mechanism", "rrba", "--p", "0.3", "--table", "0.6,0.3,0.09,0.01",
            "--trials", "100000", "--json", "--out", str(tmp_path)]  # fmt: skip
    data = cli_json(argv)
    for key in ("success", "baseline", "ci", "epsilon_lower", "epsilon_true", "epsilon_claimed", "trials"):
        assert key in data
    assert data["epsilon_claimed"] == pytest.approx(-math.log(0.7))
    assert data["violation"] and data["epsilon_claimed"] < data["epsilon_lower"] <= data["epsilon_true"] + 0.05
    assert "smallest cell" in data["test"] and "drawn uniformly" in data["naive"]["test"]
    assert Path(data["plot"]).parent == tmp_path and Path(data["plot"]).stat().st_size > 10_000


def test_audit_rrba_at_the_table_a_collection_sent(capsys):
    argv = ["audit", "--mechanism", "rrba", "--data", "survey", "--clients", "600", "--block", "200",
            "--trials", "50000", "--no-plot"]  # fmt: skip
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "sent to block 4 after 600 clients" in out and "REFUTED" in out


def test_audit_pipeline_json(cli_json):
    argv = ["audit", "--mechanism", "pipeline", "--parties", "800", "--sizes", "2,2", "--p", "0.5",
            "--json", "--no-plot"]  # fmt: skip
    data = cli_json(argv)
    for key in ("success", "baseline", "ci", "epsilon_lower", "epsilon_true", "epsilon_claimed", "trials"):
        assert key in data
    assert 0 < data["epsilon_lower"] <= data["epsilon_claimed"] and not data["violation"]
    assert data["trials"] == 800


