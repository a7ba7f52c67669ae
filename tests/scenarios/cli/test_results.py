"""`mpc-rr results list | show | export`: one CSV row per run with its parameters and metrics,
JSON with the scenario texts and sessions, per-point summaries, errors naming what is missing."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

from scenarios.cli import main
from scenarios.experiments.spec import load_scenario
from scenarios.experiments.sweep import sweep
from scenarios.results.store import Store

# one worker builds the module's store once (pytest-xdist, --dist loadgroup)
pytestmark = pytest.mark.xdist_group("results-store")


@pytest.fixture(scope="module")
def small_store(tmp_path_factory: pytest.TempPathFactory, secure_sum_study: str) -> Path:
    d = tmp_path_factory.mktemp("store")
    f = d / "ss.toml"
    f.write_text(secure_sum_study.format(parties=8).replace("repeats = 2", "repeats = 2").replace(
        "[0.0, 0.1, 0.2, 0.3, 0.4]", "[0.0, 0.5]"))  # fmt: skip
    with Store(d / "r.db") as store:
        sweep(load_scenario(f), store, progress=False)
    return d / "r.db"


def test_export_csv_is_one_row_per_run_with_params_and_metrics(small_store: Path, capsys) -> None:
    assert main(["results", "export", "--csv", "--store", str(small_store)]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    with Store(small_store, create=False) as store:
        runs = {r.key: r for r in store.runs()}
    assert len(rows) == len(runs) == 8
    for row in rows:
        r = runs[row["run_key"]]
        assert (
            row["scenario"] == "kill-test"
            and row["kind"] == "secure-sum"
            and int(row["seed"]) == r.seed
        )
        assert (
            float(row["param.dropout"]) == r.params["dropout"]
            and row["param.drop_step"] == r.params["drop_step"]
        )
        assert row["param.degree"] == "" and row["completed"] == (
            "true" if r.metrics["completed"] else "false"
        )
        assert (
            int(row["bytes"]) == r.metrics["bytes"] and float(row["wall_s"]) == r.metrics["wall_s"]
        )
    assert {row["status"] for row in rows} == {"ok", "aborted"}


def test_export_json_and_show(small_store: Path, capsys, tmp_path: Path) -> None:
    out = tmp_path / "all.json"
    assert (
        main(["results", "export", "--json", "--store", str(small_store), "--out", str(out)]) == 0
    )
    doc = json.loads(out.read_text())
    assert len(doc["runs"]) == 8 and doc["scenarios"][0]["scenario"] == "kill-test"
    assert (
        "[grid]" in doc["scenarios"][0]["texts"][0]["text"]
        and doc["scenarios"][0]["sessions"][0]["machine"]["cores"]
    )
    assert all(r["result"]["protocol"] == "secagg" for r in doc["runs"])
    capsys.readouterr()
    assert main(["results", "show", "kill-test", "--json", "--store", str(small_store)]) == 0
    points = json.loads(capsys.readouterr().out)
    assert [p["point"] for p in points] == [
        {"dropout": d, "drop_step": s} for d in (0.0, 0.5) for s in ("shares", "masked")
    ]
    assert [p["metrics"]["completed"]["mean"] for p in points] == [1.0, 1.0, 0.0, 0.0]
    assert all(p["runs"] == 2 and len(set(p["seeds"])) == 2 for p in points)
    key = doc["runs"][0]["key"]
    assert main(["results", "show", key[:10], "--store", str(small_store)]) == 0
    assert json.loads(capsys.readouterr().out)["key"] == key
    assert main(["results", "list", "--json", "--store", str(small_store)]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert (row["runs"], row["planned"], row["points"], row["aborted"]) == (8, 8, 4, 4)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["results", "show", "nope"], r"no scenario named 'nope' \(scenarios: kill-test\)"),
        (["results", "show", "abcdef"], r"no run with a key starting 'abcdef'"),
        (["results", "export", "--csv", "--scenario", "nope"], r"--scenario: \['nope'\] not in"),
        (
            ["results", "show", "kill-test", "--metrics", "bites"],
            r"--metrics: \['bites'\] not measured by kill-test",
        ),
    ],
)
def test_results_errors(small_store: Path, capsys, argv: list[str], message: str) -> None:
    assert main([*argv, "--store", str(small_store)]) == 2
    assert re.search(message, capsys.readouterr().err)


def test_not_a_store_is_refused(tmp_path: Path, capsys) -> None:
    (tmp_path / "x.db").write_text("hello")
    assert main(["results", "list", "--store", str(tmp_path / "x.db")]) == 2
    assert "not an mpc-rr results store" in capsys.readouterr().err
    assert main(["results", "list", "--store", str(tmp_path / "none.db")]) == 2
    assert "no such results store" in capsys.readouterr().err
