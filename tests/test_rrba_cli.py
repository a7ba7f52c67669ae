"""``mpc-rr rrba``: output keys, files, and clean errors for bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scenarios.cli import main


def test_json_keys_and_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["rrba", "--data", "survey", "--clients", "1200", "--block", "200", "--p", "0.5",
         "--t-floor", "0.01", "--marginals", "3", "--seed", "4", "--json", "--out", str(tmp_path)]
    )  # fmt: skip
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    for key in (
        "clients",
        "blocks",
        "converged",
        "epsilon_true",
        "epsilon_paper",
        "l2",
        "js",
        "cost",
    ):
        assert key in doc
    assert doc["clients"] == 1200 and doc["blocks"] == 6 and doc["subsets_total"] == 15
    assert set(doc["l2"]) == {"2", "3", "4"} and doc["marginals"]["3"]["method"] == "qp"
    assert doc["cost"]["messages"] is None and doc["cost"]["answers"] == 1200 * 3
    # floor 0.01 caps each subset at ln(1 + 0.5 / (0.5 * 0.01)) = ln 101; a view has 3 subsets
    assert doc["epsilon_true"] <= 3 * doc["epsilon_cap_per_subset"] + 1e-9
    assert doc["epsilon_paper"] == pytest.approx(0.6931, abs=1e-4)
    assert json.loads((tmp_path / "results.json").read_text())["blocks"] == 6
    assert (tmp_path / "convergence.png").stat().st_size > 10_000


def test_text_output_from_a_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "d.csv"
    f.write_text("x,y,z\n" + "".join(f"{i % 2},{i % 3},{(i // 2) % 2}\n" for i in range(300)))
    assert (
        main(["rrba", "--data", str(f), "--block", "50", "--p", "1", "--out", str(tmp_path)]) == 0
    )
    out = capsys.readouterr().out
    assert "300 of 300 records of d.csv" in out and "3 subsets in 3 views" in out
    assert "epsilon: true (worst client, its view's subsets composed) inf" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--p", "0"], r"p must be in (0, 1], got 0.0"),
        (["--p", "1.5"], r"p must be in (0, 1], got 1.5"),
        (["--k", "0"], "k (attributes per subset) must be >= 1, got 0"),
        (["--block", "0"], "block (clients per block) must be an int >= 1, got 0"),
        (["--clients", "0"], "--clients must be >= 1, got 0"),
        (["--data", "nowhere"], "--data must be one of"),
        (["--t-floor", "0.5"], "t_floor must be in [0, 1/9]"),
        (["--alpha", "2"], "alpha must be in (0, 1), got 2.0"),
    ],
)
def test_bad_input_is_a_clean_error(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["rrba", "--clients", "300", "--out", str(tmp_path), *argv]) == 2
    assert message in capsys.readouterr().err


def test_empty_csv_is_a_clean_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "e.csv"
    f.write_text("a,b\n")
    assert main(["rrba", "--data", str(f), "--out", str(tmp_path)]) == 2
    assert "has a header but no records (empty data)" in capsys.readouterr().err
