"""The pipeline over real transports: memory and TCP (mutual TLS) give identical results."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mpc_rr.data import load_adult
from mpc_rr.workflows import RunOptions, run_and_evaluate
from parties.runners import runner_for
from scenarios.cli import main


def _estimates(ev) -> list[np.ndarray]:
    return [e.distribution for e in ev.execution.result.estimates]


def test_memory_tcp_and_harness_agree_with_300_parties() -> None:
    opts = RunOptions(parties=300, seed=5, queries=50)
    data = load_adult()
    runs = {name: run_and_evaluate(opts, runner_for(name), data) for name in ("harness", "memory", "tcp")}
    ref_result, ref_ex = runs["memory"]
    for name, (result, ex) in runs.items():
        assert result["clusters"] == ref_result["clusters"], name
        for a, b in zip(_estimates(ex), _estimates(ref_ex), strict=True):
            np.testing.assert_array_equal(a, b)
        assert result["relative_error"] == ref_result["relative_error"], name
        assert result["cost"]["messages"] == 900, name  # 300 x (record, clustering, release)
    assert runs["tcp"][0]["cost"]["transport"] == "tcp"


def test_run_command_writes_results(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "run",
                "adult",
                "--parties",
                "200",
                "--transport",
                "memory",
                "--queries",
                "40",
                "--out",
                str(tmp_path),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "clusters:" in out and "epsilon per party" in out
    res = json.loads((tmp_path / "results.json").read_text())
    for key in ("clusters", "epsilon", "relative_error", "cost", "seed", "parties"):
        assert key in res
    assert res["parties"] == 200 and res["seed"] == 1
    assert set(res["relative_error"]) == {
        "RR-Independent",
        "RR-Clusters",
        "RR-Independent+Adjustment",
        "RR-Clusters+Adjustment",
    }
    assert set(res["relative_error"]["RR-Clusters"]) == {"0.1", "0.5"}
    assert res["epsilon"]["total"] == pytest.approx(
        res["epsilon"]["dependence"] + res["epsilon"]["release"]
    )
    assert res["cost"]["coordinator"]["messages_received"] == 400
    assert (tmp_path / "relative_error.png").stat().st_size > 5_000
    assert (
        (tmp_path / "relative_error.csv")
        .read_text()
        .startswith("method,sigma,median_relative_error")
    )


def test_run_command_rejects_bad_options(capsys: pytest.CaptureFixture[str]) -> None:
    for argv, message in [
        (["--p", "1.5"], "argument --p: must be in (0, 1], got 1.5"),
        (["--transport", "carrier-pigeon"], "argument --transport: invalid choice: 'carrier-pigeon'"),
        (["--queries", "0"], "argument --queries: must be an integer >= 1, got 0"),
        (["--secagg-failure", "2"], "argument --secagg-failure: must be in (0, 1), got 2.0"),
        (["--max-dropout", "0.2"], "--max-dropout only apply to --dependence secure-sum or pairwise-rr"),
        (["--out", "README.md/results"], "argument --out: cannot write to README.md/results: Not a directory"),
    ]:
        with pytest.raises(SystemExit) as exc:
            code = main(["run", "adult", "--parties", "100", *argv])
            raise SystemExit(code)
        assert exc.value.code == 2, argv
        assert message in capsys.readouterr().err, argv
