"""One options path for the inner sum: ``--sum NAME --sum-option KEY=VALUE`` (checked by that
protocol's options struct) for ``mpc-rr run`` and ``mpc-rr rrba``, ``sum_options`` for their
scenario kinds and the Python API; SecAgg+'s own flags are aliases; every results.json records
the inner sum and its options."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import mpc_rr
from scenarios.cli import main


@pytest.fixture
def tiny_csv(tmp_path: Path) -> Path:
    rng = np.random.default_rng(0)
    rows = ["a,b,c"] + [f"{rng.integers(3)},{rng.integers(2)},{rng.integers(2)}" for _ in range(40)]
    path = tmp_path / "tiny.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict:  # type: ignore[type-arg]
    assert main(argv) == 0, capsys.readouterr().err
    out: dict = json.loads(capsys.readouterr().out)  # type: ignore[type-arg]
    return out


def test_run_passes_any_protocols_options_and_records_them(
    tiny_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = _run(["run", str(tiny_csv), "--infer-schema", "--transport", "harness", "--queries", "5", "--dependence", "secure-sum", "--sum", "prio3",
                "--sum-option", "field=field128", "--json", "--out", str(tmp_path / "r")], capsys)  # fmt: skip
    assert doc["secure_sum"]["protocol"] == "prio3"
    assert (
        doc["secure_sum"]["options"]["field"] == "field128"
        and doc["secure_sum"]["options"]["invalid"] == 0
    )
    assert doc["secure_sum"]["params"]["field"] == "Field128"  # the run used it
    # SecAgg+'s flags are aliases of its options, recorded the same way
    doc = _run(["run", str(tiny_csv), "--infer-schema", "--transport", "harness", "--queries", "5", "--dependence", "secure-sum",
                "--max-dropout", "0.2", "--sum-option", "failure=1e-5", "--json", "--out", str(tmp_path / "s")],
               capsys)  # fmt: skip
    assert doc["secure_sum"]["protocol"] == "secagg"
    assert (
        doc["secure_sum"]["options"]["max_dropout"] == 0.2
        and doc["secure_sum"]["options"]["failure"] == 1e-5
    )


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--sum", "prio3", "--secagg-degree", "4"], r"--secagg-degree only apply to --sum secagg"),
        (
            ["--sum-option", "bogus=1"],
            r"--sum-option bogus: not an option of secagg \(its options: ",
        ),
        (["--sum-option", "degree=0"], r"secagg options: Expected `int` >= 1 - at `\$.degree`"),
        (["--sum-option", "degree"], r"--sum-option takes KEY=VALUE, got 'degree'"),
        (
            ["--secagg-degree", "4", "--sum-option", "degree=5"],
            r"option degree is given twice: 5 and 4",
        ),
    ],
)
def test_run_refuses_options_the_chosen_sum_does_not_have(
    flags: list[str],
    message: str,
    tiny_csv: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = [
        "run",
        str(tiny_csv),
        "--infer-schema",
        "--dependence",
        "secure-sum",
        *flags,
        "--out",
        str(tmp_path / "r"),
    ]
    assert main(argv) == 2
    import re

    assert re.search(message, capsys.readouterr().err)


def test_rrba_passes_the_tallys_options_and_records_them(
    tiny_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = _run(["rrba", "--data", str(tiny_csv), "--infer-schema", "--block", "20", "--transport", "harness", "--secure-tally",
                "--sum", "plainsum", "--sum-option", "proceed_on_timeout=true", "--marginals", "1", "--json",
                "--out", str(tmp_path / "r")], capsys)  # fmt: skip
    assert doc["sum"] == {"protocol": "plainsum", "options": {"proceed_on_timeout": True}}
    doc = _run(["rrba", "--data", str(tiny_csv), "--infer-schema", "--block", "20", "--marginals", "1", "--json",
                "--out", str(tmp_path / "c")], capsys)  # fmt: skip
    assert doc["sum"] is None  # answers in the clear: no inner sum
    assert (
        main(
            [
                "rrba",
                "--data",
                str(tiny_csv),
                "--infer-schema",
                "--sum-option",
                "degree=3",
                "--out",
                str(tmp_path / "x"),
            ]
        )
        == 2
    )
    assert "--sum-option only apply with --secure-tally" in capsys.readouterr().err


def test_the_python_api_takes_the_same_options(tiny_csv: Path) -> None:
    report = mpc_rr.run_pipeline(str(tiny_csv), dependence="secure-sum", sum="prio3",
                                 sum_options={"field": "field128"}, seed=2)  # fmt: skip
    assert report.document["secure_sum"]["options"]["field"] == "field128"
    with pytest.raises(mpc_rr.UsageError, match=r"degree"):
        mpc_rr.run_pipeline(
            str(tiny_csv), dependence="secure-sum", sum="prio3", sum_options={"degree": 3}
        )


def test_the_kinds_take_sum_options(
    tiny_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    study = tmp_path / "s.toml"
    study.write_text(
        f'[scenario]\nname = "opts"\nseed = 1\nrepeats = 1\nmetrics = ["clients", "messages"]\n\n'
        f'[data]\nsource = "{tiny_csv}"\ninfer = true\n\n'
        '[protocol]\nkind = "rrba"\nblock = 20\nmarginals = 1\nclient_rng = "per-client"\n'
        'secure_tally = true\nsum = "plainsum"\n\n[protocol.sum_options]\nproceed_on_timeout = true\n'
    )
    assert (
        main(["scenario", "run", str(study), "--store", str(tmp_path / "r.db"), "--quiet"]) == 0
    ), capsys.readouterr().err
    capsys.readouterr()
    assert main(["results", "export", "--json", "--store", str(tmp_path / "r.db")]) == 0
    runs = json.loads(capsys.readouterr().out)
    rows = runs["runs"] if isinstance(runs, dict) else runs
    assert len(rows) == 1 and rows[0]["metrics"]["clients"] == 40
    assert rows[0]["metrics"]["messages"] > 0  # the distributed roles ran, the tally a plainsum
    bad = tmp_path / "bad.toml"
    bad.write_text(
        f'[scenario]\nname = "bad"\nseed = 1\nrepeats = 1\nmetrics = ["completed"]\n\n'
        f'[data]\nsource = "{tiny_csv}"\ninfer = true\n\n'
        '[protocol]\nkind = "pipeline"\ndependence = "secure-sum"\nsum = "prio3"\ntransport = "harness"\n\n'
        "[protocol.sum_options]\ndegree = 3\n"
    )
    assert main(["scenario", "run", str(bad), "--store", str(tmp_path / "b.db"), "--quiet"]) == 2
    assert "degree only apply to sum secagg" in capsys.readouterr().err
