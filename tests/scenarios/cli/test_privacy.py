"""`mpc-rr privacy` (planning, inverse solver), `mpc-rr audit --mechanism shuffle`, and the ledger of
`mpc-rr run` for each dependence source."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mpc_rr.privacy import CHANNELS
from scenarios.cli import main
from scenarios.cli.commands.privacy import CHANNELS as CLI_CHANNELS


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_channels_agree_with_the_library() -> None:
    assert CLI_CHANNELS == CHANNELS


def test_plan_json_has_the_figures_and_the_theorem(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _json(capsys, "privacy", "--epsilon0", "4", "--parties", "100000", "--delta", "1e-6",
                "--channel", "anonymous")  # fmt: skip
    assert 0.1675 <= doc["central_epsilon"] <= 0.1728 and doc["delta"] == 1e-6
    assert "FMT21" in doc["bound"] and doc["seconds"] < 5


def test_direct_channel_amplifies_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _json(capsys, "privacy", "--epsilon0", "4", "--parties", "100000", "--channel", "direct")
    assert doc["central_epsilon"] == 4.0 and doc["delta"] == 0.0 and not doc["amplified"]


def test_secure_sum_plan_discounts_the_colluders_the_protocol_assumes(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["privacy", "--epsilon0", "2", "--parties", "300", "--channel", "secure-sum"]
    default = _json(capsys, *base)
    nobody = _json(capsys, *base, "--max-corrupt", "0")
    # SecAgg+'s default coalition: 30 clients whose reports the aggregator knows
    assert default["max_corrupt"] == 0.1 and default["colluders"] == 30 and default["honest_parties"] == 270
    assert default["central_epsilon"] > nobody["central_epsilon"] + 0.05
    assert nobody["honest_parties"] == 300 and nobody["central_epsilon"] == pytest.approx(1.141, abs=1e-3)
    a = default["assumption"]
    assert a["holds"] and a["colluders"] == 30 and a["bound"] == 30
    assert "secure-sum channel (SecAgg+): hides senders only if the aggregator does not collude with more " \
        "than floor(0.1 n) = 30 clients" in a["channel"] and "public randomness" in a["channel"]
    # an anonymous channel is FMT21's ideal shuffler: no colluder unless planned
    anon = _json(capsys, "privacy", "--epsilon0", "2", "--parties", "300", "--channel", "anonymous")
    assert anon["colluders"] == 0 and anon["central_epsilon"] == pytest.approx(nobody["central_epsilon"])
    planned = _json(capsys, "privacy", "--epsilon0", "2", "--parties", "300", "--channel", "anonymous",
                    "--max-corrupt", "0.1")  # fmt: skip
    assert planned["central_epsilon"] == pytest.approx(default["central_epsilon"])


def test_a_coalition_beyond_the_channels_bound_prints_no_number(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["privacy", "--epsilon0", "2", "--parties", "300", "--channel", "prio3", "--max-corrupt", "0.6"]
    doc = _json(capsys, *argv)
    assert doc["central_epsilon"] is None and doc["delta"] is None and not doc["amplified"]
    assert doc["reason"].startswith("no central guarantee: the coalition of 180 colluding clients exceeds "
                                    "the bound of 148")  # fmt: skip
    assert not doc["assumption"]["holds"] and "min_batch - 2 = 148" in doc["assumption"]["channel"]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "central:         none -- no central guarantee" in printed and "(1." not in printed
    within = _json(capsys, *argv[:-1], "0.4")  # 120 colluders: within the bound, a figure
    assert within["central_epsilon"] is not None and within["honest_parties"] == 180


def test_inverse_solver_for_keep_or_uniform(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _json(capsys, "privacy", "--mechanism", "krr", "--k", "4", "--p", "0.7", "--parties",
                "20000", "--target-epsilon", "0.05")  # fmt: skip
    solve = doc["solve"]
    assert 0 < solve["largest_p"] < 0.7  # p = 0.7 misses the target at n = 20000 ...
    assert solve["smallest_parties"] > 20000  # ... and more parties would meet it
    check = _json(capsys, "privacy", "--mechanism", "krr", "--k", "4", "--p",
                  str(solve["largest_p"]), "--parties", "20000")  # fmt: skip
    assert check["central_epsilon"] == pytest.approx(0.05, abs=1e-3)


@pytest.mark.parametrize(
    "argv",
    [
        ["--parties", "10"],  # no epsilon0 and no p
        ["--epsilon0", "1", "--p", "0.5", "--mechanism", "krr", "--k", "2", "--parties", "10"],
        ["--p", "0.5", "--parties", "10"],  # p without krr
        ["--epsilon0", "-1", "--parties", "10"],
        ["--epsilon0", "1", "--parties", "10", "--channel", "pigeon"],
        ["--epsilon0", "1", "--parties", "10", "--delta", "0"],
        ["--epsilon0", "1", "--parties", "10", "--max-corrupt", "1"],
        ["--epsilon0", "1", "--parties", "10", "--max-corrupt", "-0.1"],
    ],
)
def test_bad_input_is_a_usage_error(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        code = main(["privacy", *argv])
        raise SystemExit(code)
    assert exc.value.code == 2


def test_the_discounted_claim_stays_above_the_audit_of_its_honest_part(capsys: pytest.CaptureFixture[str]) -> None:
    # 1 of 10 parties colludes: what the aggregator does not know is a shuffle of 9 honest
    # reports, which the audit attacks directly (nearly tight at this size: a multiset without
    # zeros); the claim must not fall below what it measures
    plan = _json(capsys, "privacy", "--mechanism", "krr", "--k", "2", "--epsilon0", "2", "--parties", "10")
    audit = _json(capsys, "audit", "--mechanism", "shuffle", "--epsilon", "2", "--parties",
                  str(plan["honest_parties"]), "--trials", "100000", "--seed", "3")  # fmt: skip
    assert plan["honest_parties"] == 9 and audit["epsilon_lower"] > 1.8
    assert audit["epsilon_lower"] <= plan["central_epsilon"]


def test_audit_shuffle_command_catches_the_leaky_channel(capsys: pytest.CaptureFixture[str]) -> None:
    ok = _json(capsys, "audit", "--mechanism", "shuffle", "--epsilon", "4", "--parties", "1000",
               "--trials", "50000")  # fmt: skip
    assert not ok["violation"] and ok["epsilon_lower"] <= ok["epsilon_claimed"]
    bad = _json(capsys, "audit", "--mechanism", "shuffle", "--epsilon", "4", "--parties", "10000",
                "--trials", "50000", "--channel", "leaky")  # fmt: skip
    assert bad["violation"]


def test_run_stores_and_prints_the_ledger(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    csv = tmp_path / "people.csv"
    rows = [("young", "F", "north"), ("old", "M", "south"), ("adult", "F", "east")]
    csv.write_text("age,sex,region\n" + "".join(f"{','.join(rows[i % 3])}\n" for i in range(40)))
    out = tmp_path / "out"
    argv = ["run", str(csv), "--infer-schema", "--transport", "harness", "--queries", "5",
            "--dependence", "pairwise-rr", "--sum", "full-mesh-board", "--audit", "4000",
            "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "privacy ledger" in printed and "audit >= " in printed
    led = json.loads((out / "results.json").read_text())["privacy"]
    dep, rel = led["phases"]
    assert dep["channel"] == "secure-sum" and dep["releases"] == 3 and rel["channel"] == "direct"
    assert rel["central_epsilon"] == pytest.approx(rel["local_epsilon"])  # direct: no amplification
    assert dep["central_epsilon"] <= dep["local_epsilon"] and dep["paper_epsilon"] < dep["local_epsilon"]
    assert led["total"]["central_epsilon"] <= led["total"]["local_epsilon"] + 1e-9
    # --audit: every phase's strongest k-RR release audited, never above what the ledger claims
    for ph in (dep, rel):
        assert ph["audit_lower"] is not None and 0 <= ph["audit_lower"] <= ph["central_epsilon"]
    assert rel["audit_lower"] > 0  # a direct k-RR report is easy to audit
    assert led["total"]["audit_lower"] == max(dep["audit_lower"], rel["audit_lower"])
    assert (out / "privacy.png").stat().st_size > 10_000
    # each phase's input validity, in the results and the summary
    doc = json.loads((out / "results.json").read_text())
    assert [v["phase"] for v in doc["validity"]] == [dep["phase"], rel["phase"]]
    assert doc["validity"][0] == {"phase": "dependence (4.3 pairs)", "protocol": "full-mesh-board",
                                  "validity": "none: one client can set any count"}
    assert "range-checked" in doc["validity"][1]["validity"]
    assert "dependence (4.3 pairs) via full-mesh-board: none: one client can set any count" in printed
    # the dependence sum's coalition: 4 of the 40 parties (the family's default 0.1)
    assert dep["assumption"]["colluders"] == 4 and dep["honest_parties"] == 36
