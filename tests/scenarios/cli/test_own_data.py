"""Every command that takes data takes the user's CSV with the reading flags of ``mpc-rr run``:
a small held-out file, semicolon-delimited and without a header, so the
records can only be read if ``--delimiter`` and ``--names`` are honoured; its attribute names
must then appear in each command's report (the command ran on it, not on a built-in data set).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from scenarios.cli import main

NAMES = "age,sex,edu,job"
READ = ["--delimiter", ";", "--names", NAMES, "--max-categories", "5"]


@pytest.fixture(scope="module")
def own(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """400 synthetic records with a dependence (job follows edu), written as ``a;b;c;d`` lines."""
    rng = np.random.default_rng(7)
    age = rng.integers(1, 5, 400)
    sex = rng.choice(["F", "M"], 400)
    edu = rng.choice(["hs", "none", "uni"], 400)
    job = np.where(rng.random(400) < 0.7, np.char.add("j-", edu), rng.choice(["j-hs", "j-x"], 400))
    f = tmp_path_factory.mktemp("own") / "held_out.csv"
    f.write_text("".join(f"{a};{s};{e};{j}\n" for a, s, e, j in zip(age, sex, edu, job, strict=True)))
    return f


def _json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict:  # type: ignore[type-arg]
    assert main([*argv, "--json"]) == 0, capsys.readouterr().err[-800:]
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_rrba_reads_the_file_with_the_reading_flags(own, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    doc = _json(["rrba", "--data", str(own), *READ, "--clients", "300", "--block", "100",
                 "--marginals", "0", "--out", str(tmp_path)], capsys)  # fmt: skip
    assert doc["attributes"] == NAMES.split(",")
    assert "300 of 400 records of held_out.csv (inferred schema)" in doc["data"]


def test_rrba_category_limit_is_enforced(own, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    argv = ["rrba", "--data", str(own), "--delimiter", ";", "--names", NAMES, "--max-categories", "3",
            "--out", str(tmp_path)]  # fmt: skip
    assert main(argv) == 2
    assert "column 'age' has 4 distinct values, more than" in capsys.readouterr().err


def test_rrba_columns_keep_only_the_named_ones(own, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    doc = _json(["rrba", "--data", str(own), *READ, "--columns", "edu,job", "--clients", "200",
                 "--block", "100", "--marginals", "0", "--out", str(tmp_path)], capsys)  # fmt: skip
    assert doc["attributes"] == ["edu", "job"]


def test_linkability_attacks_the_file(own, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    doc = _json(["attack", "linkability", "--data", str(own), *READ, "--parties", "120", "--no-plot",
                 "--reid-targets", "50", "--out", str(tmp_path)], capsys)  # fmt: skip
    assert doc["data"] == "held_out" and doc["pairs"] == 6  # 4 attributes: 6 pairs, not Adult's 28
    assert doc["inference"]["attributes"] == NAMES.split(",")
    assert doc["auxiliary_table"].startswith("every record of the file")


@pytest.mark.parametrize("protocol", ["pipeline", "rrba"])
def test_eavesdrop_runs_on_the_file(protocol, own, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    doc = _json(["attack", "eavesdrop", "--protocol", protocol, "--data", str(own), *READ,
                 "--parties", "100", "--block", "50", "--permutations", "0", "--no-plot",
                 "--out", str(tmp_path)], capsys)  # fmt: skip
    assert doc["content"]["attributes"] == NAMES.split(",")


def test_audit_pipeline_takes_the_domains_of_the_file(own, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    doc = _json(["audit", "--mechanism", "pipeline", "--data", str(own), *READ, "--parties", "300",
                 "--no-plot", "--out", str(tmp_path)], capsys)  # fmt: skip
    assert list(doc["sizes"]) == [4, 2, 3, 4] and "held_out.csv" in doc["domain"]


def test_audit_rrba_collects_the_file(own, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    doc = _json(["audit", "--mechanism", "rrba", "--data", str(own), *READ, "--clients", "300",
                 "--block", "100", "--trials", "2000", "--no-plot", "--out", str(tmp_path)], capsys)  # fmt: skip
    assert "held_out (400 records)" in json.dumps(doc)


def test_reproduce_runs_the_experiment_on_the_file(own, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    doc = _json(["reproduce", "mdrr-table1", "--data", str(own), *READ, "--runs", "1", "--queries", "3",
                 "--out", str(tmp_path)], capsys)  # fmt: skip
    assert "data=held_out" in doc["choices"] and "n=400" in doc["choices"]
    assert all(r["paper"] is None for r in doc["rows"])  # not Adult: no paper figure beside ours
