"""Every usage error exits 2 before any work, with a message naming the flag and its rule.

Two tables: rules every registered command must follow (walked from the parser, so a command
added later is covered: ``--seed -1``, ``--step-timeout 0``, an unwritable ``--out``, an unknown
flag, ``--json`` errors as JSON), and the cases of the new-user trial with their
message.  Each case runs in an empty working folder that must still be empty afterwards:
nothing was computed or written before the refusal.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from mpc_rr.data import data_dir
from scenarios.cli import build_parser, main

DATA = str(data_dir())
"""A folder holding every shipped data set file (decompressed: ``survey_10000.csv``, ...)."""


def _walk(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):  # type: ignore[no-untyped-def]
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _walk(sub, (*path, name))


LEAVES = [
    (path, p)
    for path, p in _walk(build_parser())
    if path and not any(isinstance(a, argparse._SubParsersAction) for a in p._actions)
]


def _flags(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {s: a for a in parser._actions for s in a.option_strings}


def _with(flag: str) -> list[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    return [(path, p) for path, p in LEAVES if flag in _flags(p)]


def _ids(leaves: list[tuple[tuple[str, ...], argparse.ArgumentParser]]) -> list[str]:
    return [" ".join(p) for p, _ in leaves]


def _refused(argv: list[str], cwd: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    """Run ``mpc-rr argv``; it must exit 2 and leave ``cwd`` empty. Its (stdout, stderr)."""
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code  # type: ignore[assignment]
    out, err = capsys.readouterr()
    assert code == 2, (argv, code, err[-600:])
    assert not any(cwd.iterdir()), (argv, "wrote before refusing", sorted(cwd.iterdir()))
    assert "Traceback" not in err, argv
    return out, err


@pytest.fixture
def cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty working folder (the commands' default outputs go there)."""
    d = tmp_path / "cwd"
    d.mkdir()
    monkeypatch.chdir(d)
    return d


def test_the_tables_cover_the_commands() -> None:
    assert len(_with("--seed")) >= 10 and len(_with("--out")) >= 10 and len(_with("--json")) >= 20


# -- rules of every command -------------------------------------------------------------------
@pytest.mark.parametrize("path,parser", _with("--seed"), ids=_ids(_with("--seed")))
def test_a_negative_seed_is_refused_everywhere(path, parser, cwd, capsys) -> None:  # type: ignore[no-untyped-def]
    _, err = _refused([*path, "--seed", "-1"], cwd, capsys)
    assert f"{parser.prog}: error: argument --seed: must be an integer >= 0, got -1" in err


@pytest.mark.parametrize("path,parser", _with("--step-timeout"), ids=_ids(_with("--step-timeout")))
def test_a_zero_step_timeout_is_refused_everywhere(path, parser, cwd, capsys) -> None:  # type: ignore[no-untyped-def]
    _, err = _refused([*path, "--step-timeout", "0"], cwd, capsys)
    assert "argument --step-timeout: must be > 0, got 0.0" in err


@pytest.mark.parametrize("path,parser", _with("--out"), ids=_ids(_with("--out")))
def test_an_unwritable_out_is_refused_up_front_everywhere(path, parser, cwd, capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    _, err = _refused([*path, "--out", str(blocker / "sub")], cwd, capsys)
    assert f"argument --out: cannot write to {blocker / 'sub'}: {blocker} is not a folder" in err


@pytest.mark.parametrize("path,parser", _with("--out"), ids=_ids(_with("--out")))
def test_a_refusal_after_out_does_not_create_it(path, parser, cwd, capsys) -> None:  # type: ignore[no-untyped-def]
    """--out is probed, not created, at parse time: a later usage error leaves no empty folder."""
    _refused([*path, "--out", "new/folder", "--no-such-flag-at-all"], cwd, capsys)


@pytest.mark.parametrize("path,parser", LEAVES, ids=_ids(LEAVES))
def test_an_unknown_flag_is_refused_by_the_command_with_a_suggestion(path, parser, cwd, capsys) -> None:  # type: ignore[no-untyped-def]
    required = [a for a in parser._actions if a.required or (not a.option_strings and a.nargs is None)]
    required += [g for g in parser._mutually_exclusive_groups if g.required]
    if required:  # argparse names the missing arguments first; that is also a refusal
        _, err = _refused([*path, "--jsno"], cwd, capsys)
        assert f"{parser.prog}: error:" in err
        return
    _, err = _refused([*path, "--jsno"], cwd, capsys)
    assert f"usage: {parser.prog}" in err  # the command's usage, not the top level's
    hint = " (did you mean --json?)" if "--json" in _flags(parser) else ""
    assert f"{parser.prog}: error: unrecognized arguments: --jsno{hint}" in err


@pytest.mark.parametrize("path,parser", _with("--json"), ids=_ids(_with("--json")))
def test_usage_errors_under_json_are_a_json_object(path, parser, cwd, capsys) -> None:  # type: ignore[no-untyped-def]
    out, _ = _refused([*path, "--json", "--no-such-flag"], cwd, capsys)
    doc = json.loads(out)
    assert doc["exit"] == 2 and doc["kind"] == "error" and doc["error"]


# -- the cases of the new-user trial ----------------------------------------------------------
BAD = "{tmp}/a-file/sub"
CASES: list[tuple[list[str], str]] = [
    (["run", "--seed", "-1"], "argument --seed: must be an integer >= 0, got -1"),
    (["secure-sum", "--seed", "-3"], "argument --seed: must be an integer >= 0, got -3"),
    (["run", "--step-timeout", "0"], "argument --step-timeout: must be > 0, got 0.0"),
    (["rrba", "--out", BAD], "argument --out: cannot write to"),
    (["audit", "--mechanism", "krr", "--out", BAD], "argument --out: cannot write to"),
    (["schema", "infer", f"{DATA}/survey_10000.csv", "--out", BAD + ".toml"],
     "argument --out: cannot write to"),
    (["reproduce", "mdrr-fig3", "--out", BAD], "argument --out: cannot write to"),
    (["audit", "--mechanism", "krr", "--trials", "1000000000000"], "would take about"),
    (["audit", "--mechanism", "krr", "--trials", "0"], "argument --trials: must be an integer >= 1"),
    (["audit", "--mechanism", "krr", "--confidence", "1.5"], "argument --confidence: must be in (0, 1)"),
    (["audit", "--mechanism", "krr", "--epsilon", "-1"], "argument --epsilon: must be > 0"),
    (["audit", "--mechanism", "pipeline", "--parties", "100000000"], "would take about"),
    (["keys", "init", "--parties", "1000000", "--out", "deploy"], "at most about"),
    (["ping", "--transport", "tcp", "--processes", "--parties", "100000"], "Use --hub-process"),
    (["attack", "linkability", "--confidence", "0"], "argument --confidence: must be in (0, 1)"),
    (["attack", "linkability", "--sweeps", "-1"], "argument --sweeps: must be an integer >= 0"),
    (["reproduce", "mdrr-fig3", "--queries", "0"], "argument --queries: must be an integer >= 1"),
    (["schema", "infer", f"{DATA}/survey_10000.csv", "--max-categories", "0"],
     "argument --max-categories: must be an integer >= 1"),
    (["schema", "infer", f"{DATA}/survey_10000.csv", "--delimiter", ";"],
     "the file is probably delimited by ','; pass --delimiter ','"),
    (["classroom", "full-mesh", "--format", "text", "--json"], "--json asks for JSON, --format asks for text"),
    (["results", "list", "--store", "{tmp}/a-file"], "not an mpc-rr results store"),
    (["run", "adult", "--sed", "3"], "unrecognized arguments: --sed (did you mean --seed?)"),
    (["classroom", "full-mesh", "--parties", "11"], "argument --parties: must be an integer in [3, 10]"),
    (["run", "adult", "--workers", "2", "--transport", "tcp"], "--workers 2 shards the in-memory"),
    # silent acceptance (point 8): a flag the command would ignore is refused, naming it
    (["reproduce", "mdrr-table1", "--clients", "5"],
     "--clients: only for rrba-table4 and rrba-tables56 (mdrr-table1 uses every record)"),
    (["reproduce", "rrba-convergence", "--clients", "5"], "--clients: only for rrba-table4 and rrba-tables56"),
    (["reproduce", "rrba-table4", "--dataset", "adult6"], "--dataset: rrba-table4 runs the paper's RRBA"),
    (["reproduce", "dependence-ranking", "--queries", "5"], "--queries: only for mdrr-table1 and mdrr-fig3"),
    (["reproduce", "mdrr-fig3", "--dependence", "exact"], "--dependence: only for mdrr-table1"),
    # your own data (point 9): --data is taken with the reading flags, or refused with the reason
    (["audit", "--mechanism", "krr", "--data", "survey"],
     "--data: --mechanism krr is audited on chosen inputs, not records"),
    (["audit", "--mechanism", "rrba", "--table", "0.5,0.5", "--data", "survey"], "give either --table"),
    (["audit", "--mechanism", "pipeline", "--sizes", "2,2", "--data", "adult"], "give either --sizes"),
    (["audit", "--mechanism", "rrba", "--delimiter", ";"], "--delimiter: read a CSV file given with --data"),
    (["attack", "eavesdrop", "--protocol", "secagg", "--data", "survey"],
     "--data: --protocol secagg runs on one-hot inputs over --cells, not on records"),
    (["attack", "eavesdrop", "--transcript", "{tmp}/a-file", "--data", "survey"],
     "--data: an offline analysis reads the recorded run"),
    (["attack", "linkability", "--delimiter", ";"], "--delimiter: only for a CSV file, not 'adult'"),
    (["attack", "linkability", "--data", "survey"], "--data survey: no such file (or one of: adult)"),
    (["rrba", "--data", "survey", "--schema", "{tmp}/a-file"], "--schema: only for a CSV file"),
    (["reproduce", "mdrr-table1", "--columns", "a,b"], "--columns: read a CSV file given with --data"),
    # stale or leaking text (point 7): flags, not Python spellings, and what to change
    (["mechanism", "optimized", "--sizes", "5,5,5", "--eps", "2,3,4", "--method", "heuristic"],
     "attribute 2: requested 4, achieved 3 (stronger); use --method lp (exact) or --on-mismatch reorder"),
    (["audit", "--mechanism", "lambda", "--sizes", "5,5,5", "--black-box"],
     "--sizes gives 125: drop --black-box (the default test is built from the mechanism's structure"),
    (["audit", "--mechanism", "pipeline", "--black-box"], "--black-box: --mechanism pipeline is audited in one run"),
    (["rrba", "--t-floor", "0.5"], "--t-floor must be in [0, 1/9]"),
    (["run", "{tmp}/own.csv", "--infer-schema", "--ordinal", "nosuch"], "--ordinal: column(s) ['nosuch'] are not among"),
]


@pytest.mark.parametrize("argv,message", CASES, ids=[" ".join(a[:4]) for a, _ in CASES])
def test_trial_cases_are_refused_before_any_work(argv, message, cwd, capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "a-file").write_text("x")
    (tmp_path / "own.csv").write_text("a,b\n1,x\n2,y\n")
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    _, err = _refused(argv, cwd, capsys)
    assert message in err, err[-800:]


def test_an_infinite_epsilon_audit_is_plotted_not_crashed(cwd, capsys) -> None:  # type: ignore[no-untyped-def]
    argv = ["audit", "--mechanism", "rrba", "--table", "0.5,0.5,0", "--trials", "5000", "--json"]
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["epsilon_true"] in ("inf", float("inf"), None)
    plot = Path(doc["plot"])
    assert plot.name.startswith("audit-rrba-") and plot.stat().st_size > 10_000
    # another audit does not overwrite this one's plot
    assert main(["audit", "--mechanism", "krr", "--trials", "5000", "--json"]) == 0
    other = Path(json.loads(capsys.readouterr().out)["plot"])
    assert other != plot and plot.exists()


def test_party_params_with_an_unknown_key_are_refused(cwd, capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """``party --params '{"nosuch": 1}'`` names the key (the default protocol used to ignore it)."""
    deploy = tmp_path / "deploy"
    assert main(["keys", "init", "--parties", "3", "--out", str(deploy)]) == 0
    capsys.readouterr()
    for protocol, message in (("plainsum", "plainsum params: unknown key(s) 'nosuch'"),
                              ("secagg", "nosuch: not an option of secagg"),
                              ("pipeline", "pipeline params: unknown keys ['nosuch']")):  # fmt: skip
        argv = ["party", "--roster", str(deploy / "roster.json"), "--id", "1", "--protocol", protocol,
                "--params", '{"nosuch": 1}']  # fmt: skip
        out, err = _refused(argv, cwd, capsys)
        assert message in err and json.loads(out)["cause"] == "usage"
