"""`mpc-rr run`: results written, bad options and inapplicable shard flags refused; your own data
(`FILE.csv --schema | --infer-schema`) and its name in every output."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mpc_rr.data import Dataset, load_adult
from scenarios.cli import main
from scenarios.figures.run import plot_title
from scenarios.reproduce import mdrr

ROWS = [
    ("young", "F", "north", "low"), ("old", "M", "south", "high"), ("adult", "F", "north", "mid"),
    ("young", "M", "east", "low"), ("adult", "M", "south", "high"), ("old", "F", "east", "mid"),
]  # fmt: skip


def people(tmp_path: Path, n: int = 60) -> Path:
    f = tmp_path / "people.csv"
    lines = ["id,age,sex,region,income"] + [
        f"{i},{','.join(ROWS[(i * 7) % len(ROWS)])}" for i in range(n)
    ]
    f.write_text("\n".join(lines) + "\n")
    return f


SCHEMA = """
[[attribute]]
name = "age"
kind = "ordinal"
categories = ["young", "adult", "old"]

[[attribute]]
name = "sex"
categories = ["F", "M"]

[[attribute]]
name = "income"
kind = "ordinal"
categories = ["low", "mid", "high"]
"""


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    assert main(["run", *args, "--transport", "harness", "--queries", "5", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_run_with_a_schema_file_names_every_output(tmp_path: Path, capsys) -> None:
    csv = people(tmp_path)
    schema = tmp_path / "people.toml"
    schema.write_text(SCHEMA)
    out = tmp_path / "out"
    r = run_json(capsys, str(csv), "--schema", str(schema), "--seed", "4", "--out", str(out))
    assert r["dataset"] == "people" and r["run_id"] == "people-4" and r["parties"] == 60
    assert [a["name"] for a in r["attributes"]] == ["age", "sex", "income"]
    assert r["attributes"][0] == {
        "name": "age",
        "kind": "ordinal",
        "categories": ["young", "adult", "old"],
    }
    t = r["timing"]  # the phases cut the protocol's wall time
    assert set(t["phases_s"]) == {
        "network setup",
        "dependence",
        "clustering + release",
        "estimation",
    }
    assert sum(t["phases_s"].values()) == pytest.approx(t["protocol_s"], rel=1e-6)
    saved = json.loads((out / "results.json").read_text())
    assert saved["dataset"] == "people"
    assert plot_title(saved).startswith(
        "people: 60 parties, p = 0.7"
    ) and "1 run (seed 4)" in plot_title(saved)
    assert "adult" not in json.dumps({k: saved[k] for k in ("dataset", "run_id")})


def test_run_with_an_inferred_schema_and_a_name(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    csv = people(tmp_path)
    r = run_json(capsys, str(csv), "--infer-schema", "--columns", "region,age", "--ordinal", "age",
                 "--name", "town", "--parties", "40")  # fmt: skip
    assert r["dataset"] == "town" and r["run_id"] == "town-1" and r["parties"] == 40
    assert r["attributes"] == [
        {"name": "region", "kind": "nominal", "categories": ["east", "north", "south"]},
        {"name": "age", "kind": "ordinal", "categories": ["adult", "old", "young"]},
    ]
    assert (tmp_path / "results" / "run-town-1" / "results.json").is_file()  # default folder named


LATE = ("regoin", "id", "61")  # found while reading the file (after the output folder is probed)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["{csv}"], "is a CSV file: give its schema \\(--schema schema.toml.*or --infer-schema"),
        (["{csv}", "--schema", "{dir}"], "--schema .*: is a directory"),
        (["{csv}", "--schema", "{dir}/none.toml"], "--schema .*none.toml: no such file"),
        (["{csv}", "--schema", "{schema}", "--ordinal", "age"], "--ordinal applies with --infer-schema"),
        (["{csv}", "--schema", "{schema}", "--columns", "age"], "--columns applies with --infer-schema"),
        (["adult", "--schema", "{schema}"], "--schema: only for a CSV file; 'adult' is the shipped"),
        (["adult", "--infer-schema"], "--infer-schema: only for a CSV file"),
        (["adult", "--delimiter", ";"], "--delimiter: only for a CSV file"),
        (["adlut"], "DATA adlut: no such file \\(or one of: adult\\)"),
        (["{dir}", "--infer-schema"], "DATA .*: is a directory, not a CSV file"),
        (["{csv}", "--infer-schema", "--columns", "age,regoin"], "no column 'regoin'"),
        (["{csv}", "--infer-schema", "--columns", "id", "--max-categories", "10"],
         "column 'id' has 60 distinct values, more than max_categories = 10"),
        (["{csv}", "--infer-schema", "--columns", "age", "--parties", "61"],
         "--parties must be at most the 60 records of people, got 61"),
    ],
)  # fmt: skip
def test_data_flag_errors_name_the_flag_and_the_rule(
    tmp_path: Path, capsys, monkeypatch, args: list[str], message: str
) -> None:
    import re

    monkeypatch.chdir(tmp_path)
    csv = people(tmp_path)
    schema = tmp_path / "s.toml"
    schema.write_text(SCHEMA)
    (tmp_path / "d").mkdir()
    argv = [a.format(csv=csv, dir=tmp_path / "d", schema=schema) for a in args]
    assert main(["run", *argv, "--transport", "harness"]) == 2
    err = capsys.readouterr().err
    # (an error found while reading the file follows the "loading ..." progress lines)
    assert err.splitlines()[-1].startswith("mpc-rr run: error: ") and re.search(message, err), err
    if not any(a.split(",")[-1] in LATE for a in argv):  # refused before any work: nothing written
        assert not (tmp_path / "results").exists()


def test_mutually_exclusive_schema_flags_are_refused_by_argparse(tmp_path: Path, capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["run", str(people(tmp_path)), "--schema", "s.toml", "--infer-schema"])
    assert exc.value.code == 2
    assert "--infer-schema: not allowed with argument --schema" in capsys.readouterr().err


def test_table1_paper_column_only_next_to_adult() -> None:
    adult = load_adult()
    small = adult.subsample(400, np.random.default_rng(0))
    kw = {"p_values": (0.7,), "tds": (0.1,), "tvs": (50,), "queries_per_run": 5}
    named_adult = mdrr.table1(small, 1, 0, **kw)  # type: ignore[arg-type]
    other = mdrr.table1(Dataset(small.schema, small.codes, "people"), 1, 0, **kw)  # type: ignore[arg-type]
    assert named_adult[0].paper == mdrr.PAPER_TABLE1[(0.7, 0.1)][0]
    assert other[0].paper is None
    assert other[0].ours == named_adult[0].ours  # same data, same seed: only the label differs
    assert mdrr.paper_values("adultx6") is mdrr.PAPER_TABLE2 and adult.repeat(6).name == "adultx6"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--transport", "tcp", "--workers", "2"], "--workers 2 shards the in-memory simulation"),
        (["--ray-address", "auto"], "--ray-address only applies to --engine ray"),
        (["--transport", "harness", "--engine", "ray"], "--engine ray needs --transport memory"),
    ],
)
def test_shard_flags_refused_where_they_do_not_apply(argv, message, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["run", "adult", "--parties", "20", *argv]) == 2
    assert message in capsys.readouterr().err


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
        (["--out", "README.md/results"], "argument --out: cannot write to README.md/results: README.md is not a folder"),
    ]:
        with pytest.raises(SystemExit) as exc:
            code = main(["run", "adult", "--parties", "100", *argv])
            raise SystemExit(code)
        assert exc.value.code == 2, argv
        assert message in capsys.readouterr().err, argv


def test_a_dependence_sum_that_cannot_fit_is_refused_before_any_party_is_built(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A secure-sum dependence larger than the memory at hand is refused with the estimate,
    exit 2, nothing written, instead of a worker killed for memory minutes later."""
    monkeypatch.setattr("scenarios.cli.options.available_memory", lambda: 2**28)
    out = tmp_path / "out"
    assert main(["run", "adult", "--dependence", "secure-sum", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "32,561 parties x 1,582 pair cells needs about" in err, err
    assert "256 MiB are available" in err and not out.exists()


def test_the_secagg_memory_estimate_no_longer_grows_with_the_square_of_the_parties() -> None:
    """The consistency round sends each party a committee quorum's signatures (a constant),
    not a majority of all parties' (about 36 GiB on all of Adult before the committee)."""
    from mpc_rr.secure_sum import memory_estimate

    small, large = memory_estimate("secagg", 4000, 16), memory_estimate("secagg", 8000, 16)
    assert large / small < 3  # was 4: n * (n / 2) * 64 B dominated
    assert memory_estimate("secagg", 32561, 1582) < 2 * 2**30
