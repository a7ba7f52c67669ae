"""``mpc-rr audit`` and ``mpc-rr attack linkability``: JSON keys, verdicts, plots, clean errors."""

from __future__ import annotations

import json
import math

import pytest

from scenarios import cli


@pytest.fixture(autouse=True)
def _only_ours(monkeypatch):
    monkeypatch.setattr(cli, "COMMANDS", ("audit", "attack"))


def _json(capsys, argv):
    assert cli.main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_audit_json_keys_and_paper_claim_refuted(capsys, tmp_path):
    argv = ["audit", "--mechanism", "keep-uniform", "--size", "2", "--p", "0.5",
            "--trials", "200000", "--confidence", "0.999", "--json", "--out", str(tmp_path)]  # fmt: skip
    data = _json(capsys, argv)
    for key in ("success", "baseline", "ci", "epsilon_lower", "epsilon_true", "epsilon_claimed", "trials"):
        assert key in data
    assert data["epsilon_true"] == pytest.approx(math.log(3))
    assert data["epsilon_claimed"] == pytest.approx(math.log(2))  # the paper's printed formula
    assert data["violation"] and data["epsilon_lower"] <= data["epsilon_true"]
    assert (tmp_path / "audit.png").stat().st_size > 10_000
    assert [c["trials"] for c in data["curve"]][-1] == 200_000


def test_audit_text_planted_bug_black_box(capsys):
    argv = ["audit", "--mechanism", "krr", "--k", "2", "--epsilon", "2", "--claimed-epsilon", "1",
            "--black-box", "--trials", "100000", "--no-plot"]  # fmt: skip
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "REFUTED" in out and "black-box search" in out


@pytest.mark.parametrize("mech", ["cluster", "lambda", "optimized"])
def test_audit_other_families(capsys, mech):
    data = _json(capsys, ["audit", "--mechanism", mech, "--trials", "50000", "--json", "--no-plot"])
    assert 0 < data["epsilon_lower"] <= data["epsilon_true"] and not data["violation"]


def test_audit_bad_input_is_a_clean_error(capsys):
    assert cli.main(["audit", "--mechanism", "krr", "--trials", "0", "--no-plot"]) == 2
    assert "trials must be an integer >= 1, got 0" in capsys.readouterr().err


def test_attack_linkability_json_and_plot(capsys, tmp_path):
    argv = ["attack", "linkability", "--parties", "120", "--p", "0.9", "--channel", "anonymous",
            "--curve", "40,120", "--reid-targets", "50", "--json", "--out", str(tmp_path)]  # fmt: skip
    data = _json(capsys, argv)
    for key in ("success", "baseline", "ci", "fully_relinked", "degree_of_anonymity", "anonymity_set"):
        assert key in data
    assert data["ci"][0] > data["baseline"]
    assert [row["parties"] for row in data["curve"]] == [40, 120]
    assert all(row["direct"]["success"] == 1.0 for row in data["curve"])
    acc = data["epsilon"]["pipeline_accounting"]
    assert acc["parallel"] == pytest.approx(data["epsilon"]["parallel_claimed"])
    assert (tmp_path / "linkability.png").stat().st_size > 10_000


def test_attack_linkability_bad_parties(capsys):
    assert cli.main(["attack", "linkability", "--parties", "1", "--no-plot"]) == 2
    assert "--parties must be in 2..32561" in capsys.readouterr().err
