"""`mpc-rr run --dependence secure-sum --dp-epsilon E`: a finite central epsilon for the noisy counts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scenarios.cli import main


def test_dp_epsilon_gives_the_dependence_phase_a_central_figure(tmp_path: Path, capsys) -> None:
    argv = ["run", "adult", "--parties", "200", "--dependence", "secure-sum", "--dp-epsilon", "1",
            "--transport", "harness", "--queries", "5", "--json", "--out", str(tmp_path / "o")]  # fmt: skip
    assert main(argv) == 0
    printed = json.loads(capsys.readouterr().out)
    saved = json.loads((tmp_path / "o" / "results.json").read_text())
    for r in (printed, saved):
        dep = r["privacy"]["phases"][0]
        assert dep["phase"].startswith("dependence") and 0 < dep["central_epsilon"] <= 1.0
        assert dep["delta"] == pytest.approx(1e-6) and "colluders" in dep["bound"]
        assert r["privacy"]["total"]["central_epsilon"] is not None
        noise = r["secure_sum"]["noise"]
        assert noise["mechanism"] == "skellam" and noise["epsilon"] == dep["central_epsilon"]
        assert noise["honest_min"] == 200 - 20 - 20  # SecAgg+'s default bounds
        assert noise["party_variance"] * noise["honest_min"] == pytest.approx(
            noise["central_variance"]
        )


def test_dp_epsilon_is_refused_without_the_secure_sum_dependence(capsys) -> None:
    assert (
        main(["run", "adult", "--parties", "20", "--transport", "harness", "--dp-epsilon", "1"])
        == 2
    )
    assert "--dp-epsilon only applies to --dependence secure-sum" in capsys.readouterr().err


def test_dp_epsilon_must_be_positive(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["run", "adult", "--dependence", "secure-sum", "--dp-epsilon", "0"])
    assert exc.value.code == 2
    assert "argument --dp-epsilon: must be > 0" in capsys.readouterr().err
