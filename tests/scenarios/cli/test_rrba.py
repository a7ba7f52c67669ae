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
    assert doc["cost"]["tables_sent"] == 1200 * 3 and doc["cost"]["dropouts"]["left_out"] == 0
    # floor 0.01 caps each subset at ln(1 + 0.5 / (0.5 * 0.01)) = ln 101; a view has 3 subsets
    assert doc["epsilon_true"] <= 3 * doc["epsilon_cap_per_subset"] + 1e-9
    assert doc["epsilon_paper"] == pytest.approx(0.6931, abs=1e-4)
    assert json.loads((tmp_path / "results.json").read_text())["blocks"] == 6
    assert (tmp_path / "convergence.png").stat().st_size > 10_000
    # the ledger: answers sent directly, so central = local (no amplification), paper's per view
    led = doc["privacy"]
    assert led["total"]["channel"] == "direct" and led["total"]["delta"] == 0.0
    assert led["total"]["central_epsilon"] == pytest.approx(doc["epsilon_true"], rel=1e-9)
    assert led["total"]["paper_epsilon"] == pytest.approx(doc["epsilon_paper_view"])
    assert (tmp_path / "privacy.png").stat().st_size > 10_000


def test_text_output_from_a_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "d.csv"
    f.write_text("x,y,z\n" + "".join(f"{i % 2},{i % 3},{(i // 2) % 2}\n" for i in range(300)))
    assert (
        main(["rrba", "--data", str(f), "--block", "50", "--p", "1", "--out", str(tmp_path)]) == 0
    )
    out = capsys.readouterr().out
    assert "300 of 300 records of d.csv" in out and "3 subsets in 3 views" in out
    assert "epsilon: true (worst client, its view's subsets composed) inf" in out


def _json(capsys: pytest.CaptureFixture[str], argv: list[str], out: Path) -> dict:  # type: ignore[type-arg]
    assert main(["rrba", "--clients", "200", "--block", "50", "--t-floor", "0.01", "--marginals",
                 "1", "--seed", "5", "--json", "--out", str(out), *argv]) == 0  # fmt: skip
    doc: dict = json.loads(capsys.readouterr().out)  # type: ignore[type-arg]
    return doc


def test_distributed_runs_print_measured_costs_and_equal_the_engine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    central = _json(capsys, [], tmp_path / "c")
    memory = _json(capsys, ["--transport", "memory"], tmp_path / "m")
    secure = _json(capsys, ["--transport", "harness", "--secure-tally"], tmp_path / "s")
    for doc in (memory, secure):
        assert [r["estimate"] for r in doc["subsets"]] == [r["estimate"] for r in central["subsets"]]
        assert doc["epsilon_true"] == central["epsilon_true"]
    c = memory["cost"]
    assert c["transport"] == "memory" and c["messages"] == 400 and c["bytes"] > 0
    assert c["aggregator"]["messages_sent"] == 200 and c["clients"]["count"] == 200
    assert c["clients"]["mean"]["messages_sent"] == 1
    assert c["dropouts"] == {"asked": 200, "answered": 200, "left_out": 0, "silent": 0,
                             "rejected": 0, "lost_blocks": 0}  # fmt: skip
    s = secure["cost"]
    # SecAgg+'s six messages: keys, the draw's reveal, shares, masked input, the consistency
    # round, unmasking
    assert s["transport"] == "harness" and s["clients"]["mean"]["messages_sent"] == 6
    assert s["bytes"] > 10 * c["bytes"] and secure["options"]["secure_tally"] is True


def test_dropouts_are_left_out_counted_and_printed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    t = tmp_path / "run.transcript"
    argv = ["rrba", "--clients", "300", "--block", "100", "--marginals", "1", "--transport",
            "memory", "--dropout", "0.1", "--transcript", str(t), "--out", str(tmp_path)]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "over memory, plain tally: 570 messages" in out
    assert "300 clients asked, 270 answers in the tallies, 30 left out (30 silent at the deadline" in out
    assert "aggregator: sent 300 messages" in out
    from mpc_rr.core import Transcript

    assert len(Transcript.load(t).events) == 570


def test_a_noisy_secure_tally_states_its_central_epsilon(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rrba", "--clients", "100", "--block", "50", "--marginals", "0", "--json", "--out",
                 str(tmp_path), "--transport", "harness", "--secure-tally", "--dp-epsilon", "2"]) == 0  # fmt: skip
    noisy = json.loads(capsys.readouterr().out)
    phase = noisy["privacy"]["phases"][0]
    assert phase["channel"] == "secure-sum" and 1.9 < phase["central_epsilon"] <= 2.0
    assert "honest survivors" in phase["bound"] and noisy["sum"]["dp_epsilon"] == 2.0
    assert noisy["cost"]["dropouts"]["answered"] == 100


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--secure-tally"], "--secure-tally need a distributed run: add --transport"),
        (["--dropout", "0.1"], "--dropout need a distributed run"),
        (["--transport", "memory", "--client-rng", "shared"], "--client-rng shared is for the centralized engine"),
        (["--transport", "memory", "--max-dropout", "0.2"], "--max-dropout only apply with --secure-tally"),
        (["--transport", "memory", "--dp-epsilon", "1"], "--dp-epsilon only apply with --secure-tally"),
        (["--transport", "harness", "--secure-tally", "--clients", "301", "--block", "100"],
         "block 4 would hold 1 client"),
        (["--p", "0"], r"p must be in (0, 1], got 0.0"),
        (["--p", "1.5"], r"p must be in (0, 1], got 1.5"),
        (["--k", "0"], "k (attributes per subset) must be >= 1, got 0"),
        (["--block", "0"], "block (clients per block) must be an int >= 1, got 0"),
        (["--clients", "0"], "--clients must be >= 1, got 0"),
        (["--data", "nowhere"], "--data nowhere: no such file (or one of: adult, survey"),
        (["--t-floor", "0.5"], "--t-floor must be in [0, 1/9]"),
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
    assert "e.csv: has no records (only a header, line 1)" in capsys.readouterr().err


def test_marginals_0_skips_the_marginal_errors_and_negative_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["rrba", "--data", "survey", "--clients", "300", "--block", "100", "--seed", "4",
            "--marginals", "0", "--out", str(tmp_path)]  # fmt: skip
    assert main([*argv, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["marginals"] == {} and doc["l2"] == {} and doc["seconds"]["marginals"] == 0
    assert not any("nan" in w for w in doc["warnings"])
    assert main(argv) == 0
    assert "marginals vs truth: not evaluated (--marginals 0)" in capsys.readouterr().out
    argv[argv.index("0")] = "-1"
    assert main(argv) == 2
    assert "--marginals must be >= 0 (0 skips the marginal errors), got -1" in capsys.readouterr().err


def test_refused_with_an_estimate_when_it_cannot_fit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Exit 2 before the collection, naming the figure, the rule and the widest table."""
    monkeypatch.setattr("scenarios.cli.options.available_memory", lambda: 1024)
    assert main(["rrba", "--clients", "300", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "needs about" in err and "are available (refused above 80 %)" in err
    assert "tables padded to the widest one's" in err and "use a larger --block" in err
    assert not (tmp_path / "o").exists()


def test_census_widths_estimate() -> None:
    """42 census columns (instance weight and dividends among them): the allocation that failed
    with 118 GiB is now an estimate refused up front; 35 columns fit in 2 GB."""
    from benchmarks.rrba_wide import _NUMERIC, CENSUS
    from mpc_rr.rrba import collection_bytes, cover

    wide = collection_bytes(CENSUS, cover(42, 2).subsets, 20_000, 250)
    assert wide > 118 * 2**30 * 8  # float64 tables where the bool mask alone was 118 GiB
    kept = [c for i, c in enumerate(CENSUS) if i not in _NUMERIC]
    assert collection_bytes(kept, cover(35, 2).subsets, 20_000, 250) < 2e9
