"""The ``mpc-rr reproduce`` command writes the paper's tables next to ours."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from scenarios.cli import main


def test_table1_csv_and_printout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "reproduce",
                "mdrr-table1",
                "--runs",
                "1",
                "--seed",
                "3",
                "--queries",
                "5",
                "--out",
                str(tmp_path),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "dependence=rr" in out and "epsilon-formula=true" in out
    rows = list(csv.reader((tmp_path / "mdrr_table1.csv").open()))
    assert rows[0] == ["p", "td", "tv", "ours", "paper"]
    assert len(rows) == 1 + 36
    first = dict(zip(rows[0], rows[1], strict=True))
    assert (first["p"], first["td"], first["tv"], first["paper"]) == ("0.1", "0.1", "50", "0.335")
    assert all(0 <= float(r[3]) < 10 for r in rows[1:])


def test_fig3_json_and_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "reproduce",
            "mdrr-fig3",
            "--runs",
            "1",
            "--queries",
            "3",
            "--out",
            str(tmp_path),
            "--json",
            "--epsilon-formula",
            "paper",
        ]
    )
    assert code == 0
    res = json.loads(capsys.readouterr().out)
    assert set(res["relative_error"]["0.7"]) == {
        "Randomized", "RR-Independent", "RR-Clusters", "RR-Independent+Adjustment", "RR-Clusters+Adjustment",
    }  # fmt: skip
    assert (tmp_path / "mdrr_fig3.png").stat().st_size > 10_000


def test_bad_runs_is_a_clean_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["reproduce", "mdrr-table1", "--runs", "0", "--out", str(tmp_path)])
    assert exc.value.code == 2
    assert "argument --runs: must be an integer >= 1, got 0" in capsys.readouterr().err


def test_data_may_be_the_folder_the_help_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before: `reproduce --data <a directory>` crashed although the help names a directory."""
    from mpc_rr.data import data_dir  # a folder holding adult.data, as the paper's

    argv = ["reproduce", "mdrr-table1", "--runs", "1", "--queries", "2", "--data", str(data_dir()),
            "--out", str(tmp_path), "--json"]  # fmt: skip
    assert main(argv) == 0
