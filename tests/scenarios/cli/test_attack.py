"""``mpc-rr attack linkability | eavesdrop | coalition``: JSON keys, verdicts, plots, offline
transcripts, clean errors."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scenarios import cli

pytestmark = pytest.mark.usefixtures("audit_and_attack_only")


def test_attack_linkability_json_and_plot(cli_json, tmp_path):
    argv = ["attack", "linkability", "--parties", "120", "--p", "0.9", "--channel", "anonymous",
            "--curve", "40,120", "--reid-targets", "50", "--json", "--out", str(tmp_path)]  # fmt: skip
    data = cli_json(argv)
    for key in ("success", "baseline", "ci", "fully_relinked", "degree_of_anonymity", "anonymity_set"):
        assert key in data
    assert data["ci"][0] > data["baseline"]
    assert [row["parties"] for row in data["curve"]] == [40, 120]
    assert all(row["direct"]["success"] == 1.0 for row in data["curve"])
    acc = data["epsilon"]["pipeline_accounting"]
    assert acc["parallel"] == pytest.approx(data["epsilon"]["parallel_claimed"])
    png = Path(data["plot"])
    assert png.parent == tmp_path and re.fullmatch(r"linkability-[0-9a-f]{6}\.png", png.name)
    assert png.stat().st_size > 10_000


def test_attack_linkability_bad_parties(capsys):
    assert cli.main(["attack", "linkability", "--parties", "1", "--no-plot"]) == 2
    assert "--parties must be at least 2, got 1" in capsys.readouterr().err
    assert cli.main(["attack", "linkability", "--parties", "40000", "--no-plot"]) == 2
    assert "--parties must be at most the 32,561 records of adult, got 40,000" in capsys.readouterr().err


def test_attack_linkability_on_one_record_says_why(capsys, tmp_path):
    one = tmp_path / "one.csv"
    one.write_text("a,b\nx,y\n")
    assert cli.main(["attack", "linkability", "--data", str(one), "--no-plot"]) == 2
    err = capsys.readouterr().err
    assert f"{one}: 1 record(s); linking needs at least 2 parties" in err and "2..1" not in err


def test_attack_eavesdrop_live_json(cli_json, tmp_path):
    argv = ["attack", "eavesdrop", "--protocol", "secagg", "--transport", "memory", "--parties", "30",
            "--cells", "4", "--permutations", "20", "--json", "--out", str(tmp_path)]  # fmt: skip
    data = cli_json(argv)
    for key in ("success", "baseline", "ci", "participation", "size", "timing", "content", "size_census"):
        assert key in data
    assert data["headline"] == "content" and data["content"]["recovered"] == 0
    assert data["size_census"]["constant"] and not data["size"]["leaks"]


def test_attack_eavesdrop_offline_on_a_secure_sum_transcript(
    cli_json, capsys, tmp_path, monkeypatch
):
    monkeypatch.setattr(cli, "COMMANDS", ("audit", "attack", "secure_sum"))
    path = tmp_path / "run.bin"
    argv = ["secure-sum", "--protocol", "full-mesh", "--parties", "8", "--cells", "6",
            "--transport", "harness", "--seed", "3", "--transcript", str(path), "--json"]  # fmt: skip
    assert cli.main(argv) == 0
    capsys.readouterr()
    data = cli_json(["attack", "eavesdrop", "--transcript", str(path), "--json"])
    assert data["protocol"] == "full-mesh" and data["content"]["scored"]
    c = data["content"]
    assert c["recovered"] == 0 and c["success"] == c["baseline"]  # shares are ciphertext


def test_attack_eavesdrop_bad_transcript_is_a_usage_error(capsys, tmp_path):
    bad = tmp_path / "x.bin"
    bad.write_bytes(b"not a transcript")
    assert cli.main(["attack", "eavesdrop", "--transcript", str(bad)]) == 2
    assert "not an mpc-rr transcript" in capsys.readouterr().err
    assert cli.main(["attack", "eavesdrop"]) == 2


def test_attack_coalition_json_plot_and_threshold(cli_json, capsys, tmp_path):
    argv = ["attack", "coalition", "--protocol", "secagg", "--parties", "10", "--size", "4",
            "--cells", "8", "--json", "--out", str(tmp_path)]  # fmt: skip
    data = cli_json(argv)
    t = data["threshold"]
    for key in ("success", "baseline", "ci", "threshold", "curve", "recovery_rate"):
        assert key in data
    first = min(c["size"] for c in data["curve"] if c["recovery_rate"] > 0)
    assert first == t == data["params"]["threshold"]
    first_plot = Path(data["plot"])
    assert re.fullmatch(r"coalition-[0-9a-f]{6}\.png", first_plot.name)
    assert first_plot.stat().st_size > 10_000
    # another attack asked for differently writes its own plot, the previous one stays
    again = cli_json([*argv[:-3], "--size", "3", "--json", "--out", str(tmp_path)])
    assert Path(again["plot"]) != first_plot and first_plot.exists() and Path(again["plot"]).exists()
    assert cli.main(["attack", "coalition", "--parties", "10", "--size", "10", "--no-plot"]) == 2
    assert "--size must be at most --parties - 1 = 9, got 10" in capsys.readouterr().err


@pytest.mark.slow
def test_attack_eavesdrop_plot_is_named_by_its_command_line(cli_json, tmp_path):
    argv = ["attack", "eavesdrop", "--protocol", "pipeline", "--parties", "30", "--permutations", "20",
            "--json", "--out", str(tmp_path)]  # fmt: skip
    png = Path(cli_json(argv)["plot"])
    assert re.fullmatch(r"eavesdrop-pipeline-[0-9a-f]{6}\.png", png.name) and png.stat().st_size > 10_000


def test_attack_coalition_names_the_variant_and_what_the_adversary_knew(cli_json):
    """A coalition placed before the run on the label's graph: every input under the fixed-draw
    variant, about the per-draw exposure under the protocol's joint draw."""
    argv = ["attack", "coalition", "--protocol", "secagg", "--parties", "60", "--size", "6", "--degree", "14",
            "--threshold", "5", "--max-corrupt", "0", "--max-dropout", "0.05", "--no-plot", "--json"]  # fmt: skip
    ours = cli_json(argv)
    broken = cli_json([*argv, "--variant", "fixed-draw"])
    assert ours["variant"] == "protocol" and broken["variant"] == "fixed-draw"
    assert "joint" in ours["draw"] and "run label" in broken["draw"]
    assert any("roster" in k for k in ours["adversary_knew"]) and any("nonce" in k for k in ours["adversary_knew"])
    assert 0 < ours["exposure_per_draw"] < 0.01 and broken["exposure_per_draw"] is None
    assert broken["recovery_rate"] == 1.0 and ours["recovery_rate"] <= 0.05


def test_linked_inference_below_the_prior_is_said(capsys, tmp_path):
    """Anonymous channel, 200 parties: the linked guesses lose to the majority value on some
    attributes; the summary names exactly those."""
    assert cli.main(["attack", "linkability", "--parties", "200", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    table = out.split("own (direct)")[1].split("    mean")[0].strip().splitlines()
    below = [cols[0] for cols in (row.split() for row in table) if float(cols[3]) < float(cols[1])]
    assert below, "the case no longer shows the effect: pick another"
    assert f"linked below the prior for {', '.join(below)}: guessing from the linked group is worse" in out


def test_linkability_curves_reach_this_runs_n(monkeypatch, tmp_path):
    """--parties 200: the grid's steps end at 100; the curves go on to this run's n."""
    from scenarios.figures import attacks as attack_figures

    seen = {}

    def fake_plot(curve, p, out, main=None, **k):
        seen.update(curve=curve, main=main)
        return tmp_path / "x.png"

    monkeypatch.setattr(attack_figures, "plot_linkability", fake_plot)
    assert cli.main(["attack", "linkability", "--parties", "200", "--json", "--out", str(tmp_path)]) == 0
    assert [row["parties"] for row in seen["curve"]] == [10, 30, 100, 200]
    assert seen["main"][0] == 200
