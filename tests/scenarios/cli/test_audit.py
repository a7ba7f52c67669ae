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


def test_audit_rrba_json_targets_the_smallest_cell_and_refutes_the_paper(capsys, tmp_path):
    argv = ["audit", "--mechanism", "rrba", "--p", "0.3", "--table", "0.6,0.3,0.09,0.01",
            "--trials", "100000", "--json", "--out", str(tmp_path)]  # fmt: skip
    data = _json(capsys, argv)
    for key in ("success", "baseline", "ci", "epsilon_lower", "epsilon_true", "epsilon_claimed", "trials"):
        assert key in data
    assert data["epsilon_claimed"] == pytest.approx(-math.log(0.7))
    assert data["violation"] and data["epsilon_claimed"] < data["epsilon_lower"] <= data["epsilon_true"] + 0.05
    assert "smallest cell" in data["test"] and "drawn uniformly" in data["naive"]["test"]
    assert (tmp_path / "audit.png").stat().st_size > 10_000


def test_audit_rrba_at_the_table_a_collection_sent(capsys):
    argv = ["audit", "--mechanism", "rrba", "--data", "survey", "--clients", "600", "--block", "200",
            "--trials", "50000", "--no-plot"]  # fmt: skip
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "sent to block 4 after 600 clients" in out and "REFUTED" in out


def test_audit_pipeline_json(capsys):
    argv = ["audit", "--mechanism", "pipeline", "--parties", "800", "--sizes", "2,2", "--p", "0.5",
            "--json", "--no-plot"]  # fmt: skip
    data = _json(capsys, argv)
    for key in ("success", "baseline", "ci", "epsilon_lower", "epsilon_true", "epsilon_claimed", "trials"):
        assert key in data
    assert 0 < data["epsilon_lower"] <= data["epsilon_claimed"] and not data["violation"]
    assert data["trials"] == 800


def test_attack_eavesdrop_live_json(capsys, tmp_path):
    argv = ["attack", "eavesdrop", "--protocol", "secagg", "--transport", "memory", "--parties", "30",
            "--cells", "4", "--permutations", "20", "--json", "--out", str(tmp_path)]  # fmt: skip
    data = _json(capsys, argv)
    for key in ("success", "baseline", "ci", "participation", "size", "timing", "content", "size_census"):
        assert key in data
    assert data["headline"] == "content" and data["content"]["recovered"] == 0
    assert data["size_census"]["constant"] and not data["size"]["leaks"]


def test_attack_eavesdrop_offline_on_a_secure_sum_transcript(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(cli, "COMMANDS", ("audit", "attack", "secure_sum"))
    path = tmp_path / "run.bin"
    argv = ["secure-sum", "--protocol", "full-mesh", "--parties", "8", "--cells", "6",
            "--transport", "harness", "--seed", "3", "--transcript", str(path), "--json"]  # fmt: skip
    assert cli.main(argv) == 0
    capsys.readouterr()
    data = _json(capsys, ["attack", "eavesdrop", "--transcript", str(path), "--json"])
    assert data["protocol"] == "full-mesh" and data["content"]["scored"]
    c = data["content"]
    assert c["recovered"] == 0 and c["success"] == c["baseline"]  # shares are ciphertext


def test_attack_eavesdrop_bad_transcript_is_a_usage_error(capsys, tmp_path):
    bad = tmp_path / "x.bin"
    bad.write_bytes(b"not a transcript")
    assert cli.main(["attack", "eavesdrop", "--transcript", str(bad)]) == 2
    assert "not an mpc-rr transcript" in capsys.readouterr().err
    assert cli.main(["attack", "eavesdrop"]) == 2


def test_attack_coalition_json_plot_and_threshold(capsys, tmp_path):
    argv = ["attack", "coalition", "--protocol", "secagg", "--parties", "10", "--size", "4",
            "--cells", "8", "--json", "--out", str(tmp_path)]  # fmt: skip
    data = _json(capsys, argv)
    t = data["threshold"]
    for key in ("success", "baseline", "ci", "threshold", "curve", "recovery_rate"):
        assert key in data
    first = min(c["size"] for c in data["curve"] if c["recovery_rate"] > 0)
    assert first == t == data["params"]["threshold"]
    assert (tmp_path / "coalition.png").stat().st_size > 10_000
    assert cli.main(["attack", "coalition", "--parties", "10", "--size", "10", "--no-plot"]) == 2
    assert "--size must be at most --parties - 1 = 9, got 10" in capsys.readouterr().err
