"""``mpc-rr mechanism``: table and JSON output for both families, clean errors."""

from __future__ import annotations

import json
import math

import pytest

from scenarios import cli


@pytest.fixture(autouse=True)
def _only_mechanism(monkeypatch):
    # other subcommands live on other branches; this file tests ours in isolation
    monkeypatch.setattr(cli, "COMMANDS", ("mechanism",))


def test_mechanism_is_registered():
    import importlib

    importlib.reload(cli)
    assert "mechanism" in cli.COMMANDS


def test_lambda_table(capsys):
    assert cli.main(["mechanism", "lambda", "--sizes", "5,5,5", "--lambdas", "0.6,0.7,0.4"]) == 0
    out = capsys.readouterr().out
    assert "66.5%" in out and "54.9%" in out and "84.4%" in out
    assert "68.6%" in out  # joint share (Theorem 2)
    assert "6.1454" in out  # overall epsilon = sum of ln(1 + λ n / (1 − λ))


def test_lambda_json(capsys):
    argv = ["mechanism", "lambda", "--sizes", "5,5,5", "--lambdas", "0.6,0.7,0.4", "--json"]
    assert cli.main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    for key in ("epsilons", "overall_epsilon", "entropy_share", "overall_entropy_share"):
        assert key in data
    expected = [math.log1p(lam * 5 / (1 - lam)) for lam in (0.6, 0.7, 0.4)]
    assert data["epsilons"] == pytest.approx(expected)
    assert data["overall_epsilon"] == pytest.approx(sum(expected))
    assert data["overall_entropy_share"] == pytest.approx(sum(data["entropy_share"]) / 3)


def test_optimized_json_auto_uses_lp(capsys):
    argv = ["mechanism", "optimized", "--sizes", "5,5,5", "--eps", "2,3,4", "--json"]
    assert cli.main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    for key in (
        "requested_epsilons",
        "achieved_epsilons",
        "overall_epsilon",
        "kronecker_epsilon",
        "method",
        "seconds",
    ):
        assert key in data
    assert data["method"] == "lp"
    assert round(data["overall_epsilon"], 4) == 6.6633
    assert data["kronecker_epsilon"] == 9.0
    assert data["achieved_epsilons"] == pytest.approx([2, 3, 4], abs=1e-6)
    assert data["comparison"]["heuristic"] is None  # refused in the given order
    assert "attribute 2: requested 4, achieved 3" in data["comparison"]["heuristic_refused"]


def test_optimized_table_heuristic_reorder(capsys):
    argv = ["mechanism", "optimized", "--sizes", "5,5,5", "--eps", "2,3,4"]
    argv += ["--method", "heuristic", "--on-mismatch", "reorder"]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "method: heuristic" in out
    assert "induction order: [0, 2, 1]" in out
    assert "LP optimum:        6.6633" in out
    assert "Kronecker (sum):   9.0000" in out


def test_optimized_heuristic_refusal_is_a_clean_error(capsys):
    argv = ["mechanism", "optimized", "--sizes", "5,5,5,5,5", "--eps", "5,4,3,2,1"]
    assert cli.main([*argv, "--method", "heuristic"]) == 2
    err = capsys.readouterr().err
    assert "attribute 4: requested 1, achieved 5 (weaker)" in err


def test_lambda_bad_value_is_a_clean_error(capsys):
    assert cli.main(["mechanism", "lambda", "--sizes", "5,5", "--lambdas", "0,0.5"]) == 2
    assert "lambdas[0] must satisfy 0 < λ <= 1" in capsys.readouterr().err
