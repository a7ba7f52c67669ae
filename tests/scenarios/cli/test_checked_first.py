"""Every input checked before the work: numeric extremes, paths, sizes and protocol parameters
are refused with exit 2 and a message that says what to change (never a traceback, exit 3),
and nothing is written first.  How fast the refusals print is measured by
``benchmarks/refusals.py``, not here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mpc_rr.data import data_dir
from scenarios.cli import main

DATA = str(data_dir())


@pytest.fixture
def cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty working folder (the commands' default outputs, e.g. results/, go there)."""
    d = tmp_path / "cwd"
    d.mkdir()
    monkeypatch.chdir(d)
    monkeypatch.setenv("MPC_RR_DATA", DATA)
    return d


def _status(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:  # argparse's refusals
        return int(exc.code)  # type: ignore[arg-type]


def _refused(argv: list[str], cwd: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """``mpc-rr argv`` exits 2, leaves ``cwd`` empty and prints no traceback; its stderr."""
    code = _status(argv)
    err = capsys.readouterr().err
    assert code == 2, (argv, code, err[-1500:])
    assert "Traceback" not in err, err[-1500:]
    assert not any(cwd.iterdir()), ("wrote before refusing", sorted(cwd.rglob("*")))
    return err


# -- numeric extremes of the privacy planner -------------------------------------------------
def test_a_trillion_parties_is_refused_with_what_to_do(cwd, capsys) -> None:  # type: ignore[no-untyped-def]
    err = _refused(["privacy", "--epsilon0", "1", "--parties", "1000000000000", "--channel",
                    "anonymous"], cwd, capsys)  # fmt: skip
    assert "at most 2,147,483,647 parties, got 1,000,000,000,000" in err
    assert "bounds yours" in err and "--bound closed-form" in err


def test_the_largest_numerical_n_and_the_closed_form_beyond_it_give_numbers(capsys) -> None:  # type: ignore[no-untyped-def]
    for extra in (["--parties", str(2**31 - 1)], ["--parties", "1000000000000000", "--bound", "closed-form"]):
        assert main(["privacy", "--epsilon0", "1", "--channel", "anonymous", "--json", *extra]) == 0
        doc = json.loads(capsys.readouterr().out)
        assert 0 < doc["central_epsilon"] < 1e-3


def test_an_overflowing_epsilon0_is_refused(cwd, capsys) -> None:  # type: ignore[no-untyped-def]
    err = _refused(["privacy", "--epsilon0", "1e308", "--parties", "1000", "--channel", "anonymous"],
                   cwd, capsys)  # fmt: skip
    assert "epsilon0 must be at most 700" in err and "got 1e+308" in err


def test_the_inverse_solver_says_no_n_rather_than_crashing(capsys) -> None:  # type: ignore[no-untyped-def]
    argv = ["privacy", "--epsilon0", "1", "--parties", "1000", "--channel", "anonymous",
            "--target-epsilon", "0.00001", "--json"]  # fmt: skip
    assert main(argv) == 0
    solve = json.loads(capsys.readouterr().out)["solve"]
    assert solve["smallest_parties"] is None and 0 < solve["largest_epsilon0"] < 0.001


def test_a_plot_into_a_folder_that_cannot_be_made_is_refused_first(cwd, capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "a-file").write_text("x")
    target = tmp_path / "a-file" / "sub" / "x.png"
    err = _refused(["privacy", "--epsilon0", "1", "--parties", "1000", "--plot", str(target)], cwd, capsys)
    assert f"argument --plot: cannot write to {target}: {tmp_path / 'a-file'} is not a folder" in err


# -- paths -----------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["../../evil", "a/b", "..", "sub\\x"])
def test_a_name_that_is_a_path_is_refused(name, cwd, capsys) -> None:  # type: ignore[no-untyped-def]
    err = _refused(["run", "adult", "--name", name, "--parties", "50", "--transport", "harness"], cwd, capsys)
    assert "argument --name: must be a plain name (it names output folders)" in err


def test_an_empty_name_is_refused_by_the_parser(cwd, capsys) -> None:  # type: ignore[no-untyped-def]
    err = _refused(["run", "adult", "--name", ""], cwd, capsys)
    assert "argument --name: must not be empty" in err


def test_a_scenario_data_name_that_is_a_path_is_refused(cwd, capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    toml = tmp_path / "s.toml"
    toml.write_text('[scenario]\nname = "s"\n[data]\nsource = "adult"\nname = "../up"\n'
                    '[protocol]\nkind = "pipeline"\n')  # fmt: skip
    err = _refused(["scenario", "check", str(toml)], cwd, capsys)
    assert "must be a plain name" in err


def test_a_transcript_in_a_new_folder_is_written(cwd, capsys) -> None:  # type: ignore[no-untyped-def]
    """The folder of --transcript is created like --out's (it was refused after the run)."""
    argv = ["run", "adult", "--parties", "60", "--transport", "harness", "--queries", "5",
            "--transcript", "nodir/t.bin", "--out", "out"]  # fmt: skip
    assert main(argv) == 0
    assert (cwd / "nodir" / "t.bin").stat().st_size > 0


def test_the_replaced_warning_waits_for_the_run(cwd, capsys) -> None:  # type: ignore[no-untyped-def]
    argv = ["run", "adult", "--parties", "60", "--transport", "harness", "--queries", "5", "--out", "out"]
    assert main(argv) == 0
    assert "holds a previous run" not in capsys.readouterr().err
    # a refused run into the same folder says nothing about replacing it
    assert _status([*argv, "--workers", "100000"]) == 2
    assert "holds a previous run" not in capsys.readouterr().err
    assert main(argv) == 0
    assert "out holds a previous run: its results.json" in capsys.readouterr().err


# -- sizes -----------------------------------------------------------------------------------
def test_a_million_repeats_are_counted_not_built(cwd, capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    toml = tmp_path / "big.toml"
    toml.write_text('[scenario]\nname = "big"\nseed = 1\nrepeats = 1000000\n[data]\nsource = "adult"\n'
                    '[protocol]\nkind = "pipeline"\ntransport = "harness"\n'
                    "[grid]\np = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95]\n")  # fmt: skip
    assert main(["scenario", "check", str(toml), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["runs"] == 10_000_000 and doc["points"] == 10
    err = _refused(["scenario", "run", str(toml), "--store", "s.db"], cwd, capsys)
    assert "10 grid points x 1,000,000 repeats = 10,000,000 runs; at most 1,000,000" in err


def test_more_workers_than_the_machine_runs_are_refused(cwd, capsys) -> None:  # type: ignore[no-untyped-def]
    from parties.cores import WORKERS_PER_CORE, available_cores

    err = _refused(["run", "adult", "--parties", "500", "--workers", "100000"], cwd, capsys)
    bound = WORKERS_PER_CORE * available_cores()
    assert f"--workers 100,000 worker processes on {available_cores()} core(s): at most {bound}" in err


def test_the_library_refuses_too_many_workers() -> None:
    from mpc_rr.core import UsageError
    from parties.shards import ShardedRunner

    with pytest.raises(UsageError, match=r"workers 100,000 worker processes on \d+ core\(s\)"):
        ShardedRunner(workers=100_000)


def test_more_parties_than_adult_has_are_refused_before_loading(cwd, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import scenarios.workloads.data_source as ds

    def no_loading(*a: object, **k: object) -> None:
        raise AssertionError("the data was loaded before the refusal")

    monkeypatch.setattr(ds, "load_dataset", no_loading)
    err = _refused(["run", "adult", "--parties", "10000000000"], cwd, capsys)
    assert "--parties must be at most the 32,561 records of adult, got 10,000,000,000" in err


def test_more_parties_than_a_csv_has_are_refused_after_loading_it(cwd, capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    csv = tmp_path / "own.csv"
    csv.write_text("a,b\n" + "".join(f"{i % 2},{i % 3}\n" for i in range(30)))
    err = _refused(["run", str(csv), "--infer-schema", "--parties", "31"], cwd, capsys)
    assert "--parties must be at most the 30 records of own, got 31" in err


def test_the_known_record_counts_are_the_data(cwd) -> None:  # type: ignore[no-untyped-def]
    from scenarios.cli.validation import RECORDS
    from scenarios.workloads.data_source import DataSpec, load_dataset

    for name, n in RECORDS.items():
        assert load_dataset(DataSpec(source=name)).n == n


def test_network_profiles_agree_with_the_transports() -> None:
    from scenarios.cli.validation import NETWORK_PROFILES
    from transports.network_profiles import PROFILES

    assert NETWORK_PROFILES == tuple(PROFILES)


def test_impossible_secagg_thresholds_are_refused_before_building_parties(cwd, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from mpc_rr.pipeline import PipelinePlan

    def no_building(*a: object, **k: object) -> None:
        raise AssertionError("parties were built before the refusal")

    monkeypatch.setattr(PipelinePlan, "build", no_building)
    argv = ["run", "adult", "--dependence", "secure-sum", "--max-dropout", "0.9", "--max-corrupt",
            "0.9", "--parties", "2000", "--transport", "harness"]  # fmt: skip
    err = _refused(argv, cwd, capsys)
    assert "no threshold is both secure and robust" in err and "lower max_dropout / max_corrupt" in err


@pytest.mark.parametrize("constant,hint", [
    ("a,b,c\n" + "x,y,z\n" * 20, "every column is constant"),
    ("a,b,c\n" + "".join(f"x,{i % 2},{i % 3}\n" for i in range(20)), "--infer-schema --columns b,c"),
])  # fmt: skip
def test_constant_columns_are_refused_naming_them(constant, hint, cwd, capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    csv = tmp_path / "const.csv"
    csv.write_text(constant)
    err = _refused(["run", str(csv), "--infer-schema", "--transport", "harness"], cwd, capsys)
    named = "a, b, c" if "every" in hint else "a"
    assert f"column(s) {named} have a single value in every record" in err and hint in err


# -- refusals that need no work at all (timed in benchmarks/refusals.py) ---------------------
@pytest.mark.parametrize("argv,message", [
    (["run", "nosuch.csv", "--infer-schema"], "DATA nosuch.csv: no such file"),
    (["run", "{tmp}", "--infer-schema"], "is a directory, not a CSV file"),
    (["run", "adult", "--network", "nosuch"], "--network 'nosuch' is neither a profile (lan, wan, mobile)"),
    (["run", "adult", "--network", "nosuch.toml"], "--network nosuch.toml: no such file"),
    (["run", "adult", "--engine", "ray", "--transport", "harness"], "--engine ray needs --transport memory"),
    (["run", "adult", "--network", "lan", "--engine", "ray"], "--network runs the parties in one process"),
])  # fmt: skip
def test_quick_refusals_import_nothing_heavy(argv, message, cwd, capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    import subprocess
    import sys

    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    err = _refused(argv, cwd, capsys)
    assert message in err
    # in a fresh interpreter: the refusal comes before numpy, trio or the protocols are imported
    probe = ("import sys; from scenarios.cli import main; code = main(sys.argv[1:]); "
             "heavy = [m for m in ('numpy', 'trio', 'scipy', 'mpc_rr.pipeline._coordinator') if m in sys.modules]; "
             "print(code, heavy)")  # fmt: skip
    root = Path(__file__).resolve().parents[3]
    env = {"PYTHONPATH": str(root), "MPC_RR_DATA": DATA, "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", probe, *argv], cwd=cwd, env=env, capture_output=True,
                         text=True, timeout=60).stdout  # fmt: skip
    assert out.strip() == "2 []", out


# -- honest outputs --------------------------------------------------------------------------
def test_a_dependence_phase_that_merged_nothing_says_what_it_cost(cwd, capsys) -> None:  # type: ignore[no-untyped-def]
    argv = ["run", "adult", "--td", "0.95", "--parties", "300", "--transport", "harness",
            "--queries", "10", "--out", "out", "--json"]  # fmt: skip
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    assert all(len(c) == 1 for c in doc["clusters"])
    e = doc["epsilon"]
    (w,) = [w for w in doc["warnings"] if "merged no attributes" in w]
    assert f"at {e['total']:.3g} per party instead of the {e['release']:.3g}" in w and "--td 0.95" in w
    # a run that merges says nothing of the kind
    assert main([*argv[:2], "--td", "0.01", *argv[4:]]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert any(len(c) > 1 for c in doc["clusters"])
    assert not any("merged no attributes" in w for w in doc["warnings"])


def test_reproduce_on_own_data_labels_it_truthfully(cwd, capsys) -> None:  # type: ignore[no-untyped-def]
    argv = ["reproduce", "mdrr-table1", "--data", f"{DATA}/survey_10000.csv", "--runs", "1",
            "--queries", "5", "--out", "rep"]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "Table 1's grid on survey_10000 (your data, not the paper's Adult)" in out
    assert "Table 1 (Adult)" not in out and "dataset=adult" not in out
    assert "data=survey_10000 (your records, n=10000; not Adult)" in out


def test_results_show_and_the_report_surface_the_runs_warnings(cwd, capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Wide data (37 attributes of alarm): RR-Adjustment's weights rest on few records; the
    stored run keeps the warning and both views of the store say it."""
    toml = tmp_path / "w.toml"
    toml.write_text('[scenario]\nname = "wide"\nseed = 1\nrepeats = 1\n[data]\nsource = "alarm"\n'
                    '[protocol]\nkind = "pipeline"\ntransport = "harness"\nparties = 2000\nqueries = 10\n'
                    "[grid]\np = [0.7]\n")  # fmt: skip
    store = str(tmp_path / "w.db")
    assert main(["scenario", "run", str(toml), "--store", store, "--quiet"]) == 0
    capsys.readouterr()
    assert main(["results", "show", "wide", "--store", store]) == 0
    shown = capsys.readouterr().out
    assert "warning: 1 run(s), first at p=0.7: RR-Independent+Adjustment: RR-Adjustment's weights rest on" in shown
    html = tmp_path / "r.html"
    assert main(["report", store, "--out", str(html)]) == 0
    assert "Warning: 1 run(s), first at p=0.7: RR-Independent+Adjustment: RR-Adjustment&#x27;s weights" in html.read_text()


def test_the_accountant_refuses_its_extremes_itself() -> None:
    """The library's entry points, not only the command: a number or a clean refusal."""
    from mpc_rr.core import UsageError
    from mpc_rr.privacy import closed_form_epsilon, numerical_epsilon, smallest_n

    with pytest.raises(UsageError, match="at most 2,147,483,647 parties, got 1,000,000,000,000"):
        numerical_epsilon(1.0, 10**12, 1e-6)
    with pytest.raises(UsageError, match="epsilon0 must be at most 700"):
        closed_form_epsilon(1e308, 1000, 1e-6)
    assert 0 < closed_form_epsilon(1.0, 10**15, 1e-6).central_epsilon < 1e-5
    assert smallest_n(1.0, 1e-5, 1e-6) is None  # beyond the numerical range: not found, no crash


def test_scenario_run_says_how_long_is_left(cwd, capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    toml = tmp_path / "s.toml"
    toml.write_text('[scenario]\nname = "eta"\nseed = 1\nrepeats = 1\n[data]\nsource = "adult"\n'
                    '[protocol]\nkind = "pipeline"\ntransport = "harness"\nparties = 60\nqueries = 5\n'
                    "[grid]\np = [0.5, 0.7]\n")  # fmt: skip
    assert main(["scenario", "run", str(toml), "--store", str(tmp_path / "s.db")]) == 0
    err = capsys.readouterr().err  # not a terminal: one line per run
    first, last = [ln for ln in err.splitlines() if ln.startswith("eta: [")]
    assert first.startswith("eta: [1/2]") and " s left)" in first and "about " in first
    assert last.startswith("eta: [2/2]") and "left" not in last


def test_privacy_png_says_it_is_one_report_and_gives_the_total(monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    import scenarios.figures.privacy as pp

    seen: dict[str, object] = {}
    monkeypatch.setattr(pp, "plot_central_curve", lambda curve, path, **k: seen.update(k) or path)
    result = {"epsilon": {"dependence": 21.9, "release": 21.9, "total": 43.8},
              "privacy": {"plot_data": {"k": 16, "curve": [], "epsilon0": 3.65, "parties": 2000,
                                        "mark": 3.65, "phase": "release (clusters)", "channel": "direct"}}}  # fmt: skip
    pp.write_privacy_plot(result, tmp_path, "adult")
    assert "One report of the run, not its total" in str(seen["note"]) and "43.8" in str(seen["note"])
    assert seen["mark_label"] == "this run, one report"
