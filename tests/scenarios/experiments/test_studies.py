"""Studies declared in TOML (-> typed structs -> runs): every decoding error names its key,
grid points, seeds and keys, plug-in kinds, and the sweep into a SQLite store that resumes
after kill -9."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import msgspec
import numpy as np
import pytest

from mpc_rr.core import UsageError
from scenarios.experiments import kinds as kinds_mod
from scenarios.experiments.kinds import Kind, Outcome, RunContext, register
from scenarios.experiments.spec import load_scenario, parse_scenario, run_key, run_seed
from scenarios.experiments.sweep import sweep
from scenarios.results.provenance import code_version
from scenarios.results.store import Store

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "scenarios" / "experiments" / "examples"


# -- decoding: every error names the key -----------------------------------------------------
def doc(
    protocol: str = 'kind = "secure-sum"',
    grid: str = "",
    scenario: str = 'name = "t"',
    data: str = "",
) -> str:
    return f"[scenario]\n{scenario}\n{data}\n[protocol]\n{protocol}\n" + (
        f"[grid]\n{grid}\n" if grid else ""
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (doc('kind = "pipelin"'), r"protocol\.kind: unknown kind 'pipelin'; known: pipeline, secure-sum, rrba"),
        (doc('kind = "secure-sum"\nparites = 3'),
         r"protocol\.parites: unknown key; did you mean \['parties'\]\? \(parameters of secure-sum: protocol, parties"),
        (doc(grid='dropout = [0.1, "x"]'), r"grid\.dropout\[1\]: Expected `float`, got `str`"),
        (doc(grid="dropout = [0.1, 1.5]"), r"grid\.dropout\[1\]: Expected `float` < 1\.0"),
        (doc(grid="parties = [1]"), r"grid\.parties\[0\]: Expected `int` >= 2"),
        (doc(grid="dropout = []"), r"grid\.dropout: Expected `array` of length >= 1"),
        (doc(grid='protocol = ["secagg", "fullmesh"]'),
         r"grid\.protocol\[1\]: Invalid enum value 'fullmesh' \(choose from: full-mesh, full-mesh-board, plainsum, prio3, secagg\)"),
        (doc('kind = "secure-sum"\ntransport = "udp"'), r"protocol\.transport: Invalid enum value 'udp' \(choose from: harness, memory, tcp\)"),
        (doc(grid="colour = [1]"), r"grid\.colour: unknown key"),
        (doc('kind = "secure-sum"\nparties = 10', grid="parties = [20]"), r"grid\.parties: also set in \[protocol\]"),
        (doc(grid="dropout = [0.1, 0.2, 0.1]"), r"grid\.dropout\[2\]: repeated value 0\.1"),
        (doc(scenario='name = "t"\nmetrics = ["exact", "bites"]'), r"scenario\.metrics\[1\]: unknown metric 'bites' for kind secure-sum; did you mean \['bytes'\]"),
        (doc(scenario='name = "t"\nrepeats = 0'), r"scenario\.repeats: Expected `int` >= 1"),
        (doc(scenario='name = "a b"'), r"scenario\.name: Expected `str` matching regex"),
        (doc(scenario='nme = "t"'), r"scenario\.nme: unknown key"),
        (doc(data='[data]\nsource = "adult"'), r"data: the secure-sum kind draws its own inputs; remove the \[data\] table"),
        (doc('kind = "pipeline"', data='[data]\nsorce = "adult"'), r"data\.sorce: unknown key"),
        ("[protocol]\nkind = 'audit'\n", r"missing the \[scenario\] table"),
        (doc() + "[extra]\n", r"extra: unknown key \(tables: scenario, data, protocol, grid\)"),
        ("[scenario]\nname = \n", r"not valid TOML: .*line 2"),
    ],
)  # fmt: skip
def test_decoding_errors_name_the_key(text: str, message: str) -> None:
    with pytest.raises(UsageError, match=r"^study\.toml: " + message):
        parse_scenario(text, source="study.toml")


def test_point_checks_name_the_grid_point(tmp_path: Path) -> None:
    text = doc(
        'kind = "secure-sum"\nprotocol = "full-mesh"\nparties = 5',
        grid='drop_step = ["publish", "masked"]',
    )
    f = tmp_path / "s.toml"
    f.write_text(text)
    with Store(tmp_path / "r.db") as store, pytest.raises(UsageError, match=(
        r"s\.toml: grid point drop_step=masked: drop_step of full-mesh must be one of \['keys', 'shares', 'publish'\]"
    )):  # fmt: skip
        sweep(load_scenario(f), store, progress=False)
    with Store(tmp_path / "r.db") as store:
        assert store.count() == 0  # refused before any run
    bad = doc('kind = "pipeline"\nparties = 40000', data='[data]\nsource = "adult"')
    with pytest.raises(
        UsageError,
        match=r"protocol: parties must be at most the 32,561 records of adult, got 40000",
    ):
        from scenarios.experiments.sweep import plan

        plan(parse_scenario(bad, source="x.toml"))


def test_data_table_errors_name_data_keys(tmp_path: Path) -> None:
    (tmp_path / "p.csv").write_text("a,b,c\nx,y,z\nx,z,z\n")
    base = doc('kind = "rrba"', data='[data]\nsource = "p.csv"')
    with pytest.raises(
        UsageError,
        match=r"is a CSV file: give its schema \(data\.schema schema\.toml.*or data\.infer",
    ):
        from scenarios.experiments.sweep import plan

        plan(parse_scenario(base, source="s.toml", base=tmp_path))
    ok = doc(
        'kind = "rrba"\nclients = 2\nblock = 1',
        data='[data]\nsource = "p.csv"\ninfer = true\nname = "pp"',
    )
    source, runs, _ = plan(parse_scenario(ok, source="s.toml", base=tmp_path))
    assert source is not None and source.name == "pp" and source.records == 2 and len(runs) == 1


# -- grid, seeds and keys ----------------------------------------------------------------------
def test_grid_points_seeds_and_keys(secure_sum_study) -> None:
    s = parse_scenario(secure_sum_study.format(parties=10))
    pts = s.points()
    assert (
        len(pts) == 10
        and pts[0] == {"dropout": 0.0, "drop_step": "shares"}
        and pts[1]["drop_step"] == "masked"
    )
    runs = s.plan(None, "v1")
    assert len(runs) == 20 == len({r.key for r in runs})
    # one scenario seed fans out: repeat r's seed is child r of SeedSequence(seed), the same at every point
    ss = np.random.SeedSequence(11).spawn(2)
    assert ss[1].spawn_key == (1,)
    assert {r.seed for r in runs if r.repeat == 1} == {run_seed(11, 1)} and run_seed(
        11, 0
    ) != run_seed(11, 1)
    # growing the grid or the repeats, or editing the description, keeps every existing key
    grown = parse_scenario(
        secure_sum_study.format(parties=10).replace("repeats = 2", 'repeats = 3\ndescription = "more"')
        .replace("0.4]", "0.4, 0.5]")
    )  # fmt: skip
    assert {r.key for r in runs} < {r.key for r in grown.plan(None, "v1")}
    # ... while the code version, the seed, a fixed parameter or the data make new runs
    assert not {r.key for r in runs} & {r.key for r in s.plan(None, "v2")}
    assert not {r.key for r in runs} & {r.key for r in s.plan("csv:abc", "v1")}
    other = parse_scenario(secure_sum_study.format(parties=12))
    assert not {r.key for r in runs} & {r.key for r in other.plan(None, "v1")}
    assert runs[0].key == run_key(s.identity(None), runs[0].params, 0, "v1")
    assert runs[0].params["parties"] == 10 and runs[0].params["kind"] == "secure-sum"


def test_examples_decode_and_plan() -> None:
    names = {}
    for f in sorted(EXAMPLES.glob("*.toml")):
        s = load_scenario(f)
        names[s.kind.name] = s.name
        assert s.runs_planned >= 1 and s.meta.description
    assert set(names) == {"pipeline", "secure-sum", "rrba", "linkability", "cheat"}
    assert {
        "cheating",
        "mdrr-table1",
        "cost-memory-vs-tcp",
        "dropout-secagg",
        "rrba-convergence",
        "linkability",
    } == {load_scenario(f).name for f in EXAMPLES.glob("*.toml")}
    table1 = load_scenario(EXAMPLES / "mdrr_table1.toml")
    assert table1.grid == {"p": [0.1, 0.3, 0.5, 0.7], "td": [0.1, 0.2, 0.3], "tv": [50, 100, 300]}


def test_kind_literals_match_the_library() -> None:
    from mpc_rr.rrba import CLIENT_RNG, ESTIMATORS, REPAIRS, STOPS
    from mpc_rr.workflows._audit import AUDIT_MECHANISMS
    from scenarios.cli.commands.audit import CHOICES
    from scenarios.experiments.kinds.audit import AuditParams
    from scenarios.experiments.kinds.rrba import RRBAParams

    def choices(struct: type, name: str) -> set[str]:
        f = next(f for f in msgspec.structs.fields(struct) if f.name == name)
        return set(msgspec.inspect.type_info(f.type).values)  # type: ignore[attr-defined]

    assert choices(RRBAParams, "estimator") == set(ESTIMATORS) and choices(
        RRBAParams, "repair"
    ) == set(REPAIRS)
    assert choices(RRBAParams, "stop") == set(STOPS) and choices(RRBAParams, "client_rng") == set(
        CLIENT_RNG
    )
    # every central mechanism of mpc-rr audit; rrba (a table sent by a collection, audited on
    # its smallest cell) stays with the command, as does pipeline (the real roles)
    assert choices(AuditParams, "mechanism") == set(AUDIT_MECHANISMS) - {"rrba", "pipeline", "shuffle"}
    assert CHOICES == AUDIT_MECHANISMS  # the command's import-free copy
    # the cheat kind's and the command's import-free copies of the strategies
    from mpc_rr.adversary.active import cheat_strategies
    from scenarios.cli.commands.attack_cheat import _strategies
    from scenarios.experiments.kinds.cheat import CheatParams

    assert choices(CheatParams, "strategy") == set(_strategies()) == set(cheat_strategies())


# -- a plug-in kind, failures and retries ----------------------------------------------------
class ToyParams(
    msgspec.Struct, tag="toy", tag_field="kind", forbid_unknown_fields=True, kw_only=True
):
    x: int = 1
    fail_at: int = -1


def _toy(ctx: RunContext) -> Outcome:
    if ctx.params.x == ctx.params.fail_at and not os.environ.get("TOY_FIXED"):
        raise RuntimeError(f"toy bug at x={ctx.params.x}")
    v = float(np.random.default_rng(ctx.seed).normal() + ctx.params.x)
    return Outcome("ok", {"value": v, "x2": ctx.params.x**2}, {"value": v})


@pytest.fixture
def toy() -> Kind:
    kind = register(
        Kind(name="toy", params=ToyParams, run=_toy, metrics=("value", "x2"), data="none")
    )
    yield kind
    kinds_mod.KINDS.pop("toy")


def test_a_registered_kind_plugs_in_and_failures_are_retried(
    toy: Kind, tmp_path: Path, monkeypatch
) -> None:
    text = doc(
        'kind = "toy"\nfail_at = 2',
        grid="x = [1, 2, 3]",
        scenario='name = "toy-study"\nrepeats = 2\nseed = 5',
    )
    f = tmp_path / "toy.toml"
    f.write_text(text)
    with Store(tmp_path / "r.db") as store:
        res = sweep(load_scenario(f), store, progress=False)
        assert (res.planned, res.executed, res.failed, res.complete) == (6, 4, 2, False)
        fails = store.failures("toy-study")
        assert len(fails) == 2 and "RuntimeError: toy bug at x=2" in fails[0]["error"]
        assert "Traceback" in fails[0]["traceback"]
        monkeypatch.setenv("TOY_FIXED", "1")
        again = sweep(load_scenario(f), store, progress=False)
        assert (again.stored_before, again.executed, again.failed, again.complete) == (
            4,
            2,
            0,
            True,
        )
        rows = store.runs("toy-study")
    assert sorted((r.point["x"], r.repeat) for r in rows) == [
        (x, r) for x in (1, 2, 3) for r in (0, 1)
    ]
    v = {(r.point["x"], r.repeat): r.metrics["value"] for r in rows}
    # common random numbers: repeat r has the same seed at every point
    assert v[(2, 0)] - v[(1, 0)] == pytest.approx(1.0) and v[(1, 0)] != v[(1, 1)]


def test_kind_params_must_be_tagged() -> None:
    class Untagged(msgspec.Struct):
        x: int = 1

    with pytest.raises(
        UsageError, match=r'its params struct must be tagged: class P\(msgspec\.Struct, tag="u"'
    ):
        Kind(name="u", params=Untagged, run=_toy, metrics=("value",))


# -- the store survives kill -9 ----------------------------------------------------------------
def _count(db: Path) -> int:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as c:
            return int(c.execute("SELECT COUNT(*) FROM runs").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


def _rows(db: Path) -> dict[str, tuple]:
    with sqlite3.connect(db) as c:
        return {
            r[0]: r[1:]
            for r in c.execute("SELECT key, finished, metrics, result, session FROM runs")
        }


def _deterministic(metrics: str) -> dict:
    return {k: v for k, v in json.loads(metrics).items() if not k.endswith("_s")}


def test_kill_dash_9_mid_sweep_then_rerun_executes_only_the_missing_runs(
    secure_sum_study, tmp_path: Path
) -> None:
    scenario = tmp_path / "kill.toml"
    scenario.write_text(secure_sum_study.format(parties=24))
    db = tmp_path / "results.db"
    cmd = [
        sys.executable,
        "-m",
        "scenarios.cli",
        "scenario",
        "run",
        str(scenario),
        "--store",
        str(db),
        "--quiet",
    ]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while _count(db) < 3:
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        assert time.monotonic() < deadline, "the sweep stored nothing in 120 s"
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)  # mid-sweep, wherever it is: running a run or writing one
    assert proc.wait(timeout=30) == -signal.SIGKILL
    before = _rows(db)
    k = len(before)
    assert 3 <= k < 20, f"{k} runs stored at the kill (the test needs a sweep still running)"
    with Store(db, create=False) as store:
        (s1,) = store.sessions()
        assert (
            s1["finished"] is None and s1["executed"] == k and s1["planned"] == 20
        )  # killed, counted exactly

    rerun = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 0, rerun.stderr
    assert f"20 runs planned: {k} already stored, {20 - k} executed now, 0 failed" in rerun.stdout
    after = _rows(db)
    with Store(db, create=False) as store:
        s1, s2 = store.sessions()
        assert (s2["stored_before"], s2["executed"], s2["duplicates"], s2["failed"]) == (
            k,
            20 - k,
            0,
            0,
        )
        assert s2["finished"] is not None
    planned = {r.key for r in load_scenario(scenario).plan(None, code_version())}
    assert set(after) == planned  # nothing lost, nothing duplicated (keys are the primary key)
    assert all(
        after[key] == row for key, row in before.items()
    )  # the runs made before the kill are untouched
    assert {row[3] for key, row in after.items() if key not in before} == {s2["id"]}

    # the interrupted-then-resumed store holds the same results as an uninterrupted sweep
    with Store(tmp_path / "fresh.db") as fresh:
        sweep(load_scenario(scenario), fresh, progress=False)
    clean = _rows(tmp_path / "fresh.db")
    assert {k: _deterministic(r[1]) for k, r in clean.items()} == {
        k: _deterministic(r[1]) for k, r in after.items()
    }
    assert (
        sum(json.loads(r[1])["completed"] for r in after.values()) == 16
    )  # 0.4 > 1/3 aborts, cleanly


@pytest.mark.slow
def test_repeated_kills_at_random_moments_never_lose_or_duplicate(
    secure_sum_study, tmp_path: Path
) -> None:
    scenario = tmp_path / "kill.toml"
    scenario.write_text(secure_sum_study.format(parties=30))
    db = tmp_path / "results.db"
    cmd = [
        sys.executable,
        "-m",
        "scenarios.cli",
        "scenario",
        "run",
        str(scenario),
        "--store",
        str(db),
        "--quiet",
    ]
    rng = np.random.default_rng(0)
    kept: dict[str, tuple] = {}
    for _ in range(8):
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(float(rng.uniform(2.0, 6.0)))
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        rows = _rows(db) if db.exists() else {}
        assert all(rows[k] == v for k, v in kept.items())
        kept = rows
    final = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert final.returncode == 0, final.stderr
    assert set(_rows(db)) == {r.key for r in load_scenario(scenario).plan(None, code_version())}


@pytest.mark.slow
def test_worker_processes_give_the_same_results(secure_sum_study, tmp_path: Path) -> None:
    scenario = tmp_path / "s.toml"
    scenario.write_text(secure_sum_study.format(parties=10))
    stores = {}
    for jobs in (1, 2):
        with Store(tmp_path / f"j{jobs}.db") as store:
            res = sweep(load_scenario(scenario), store, jobs=jobs, progress=False)
            assert res.complete and res.executed == 20
            stores[jobs] = {r.key: _deterministic(json.dumps(r.metrics)) for r in store.runs()}
    assert stores[1] == stores[2]


def test_the_readme_study_decodes_and_its_data_loads(tmp_path: Path) -> None:
    from mpc_rr.data._shipped import shipped_bytes
    from scenarios.experiments.sweep import plan

    # the guide copies the shipped Survey sample beside study.toml first
    (tmp_path / "survey_10000.csv").write_bytes(shipped_bytes("survey_10000"))
    guide = (ROOT / "docs" / "guides" / "study.md").read_text()
    (text,) = [b for b in re.findall(r"```toml\n(.*?)```", guide, re.S) if '"survey-p"' in b]
    s = parse_scenario(text, source="study.toml", base=tmp_path)
    source, runs, _ = plan(s)
    assert s.name == "survey-p" and len(runs) == 4 * 2 * 3
    assert source is not None and source.name == "survey_10000" and source.records == 10_000
    assert source.schema.attributes[0].ordinal and source.schema.names == (
        "A",
        "S",
        "E",
        "O",
        "R",
        "T",
    )


def test_results_are_the_latest_studys_runs_never_a_mix(toy: Kind, tmp_path: Path) -> None:
    from scenarios.results.aggregate import by_point, select
    from scenarios.results.report import build

    f = tmp_path / "toy.toml"
    with Store(tmp_path / "r.db") as store:
        for fixed in (0, 5):  # the same point (y) under two different fixed parameters
            f.write_text(
                doc(
                    f'kind = "toy"\nx = {fixed}',
                    scenario='name = "mix"\nrepeats = 2',
                    grid="fail_at = [-1, -2]",
                )
            )
            sweep(load_scenario(f), store, progress=False)
        assert store.count() == 8
        runs = select(store, "mix")
        assert len(runs) == 4 and {r.params["x"] for r in runs} == {5}
        (sec,) = build(store)
        assert sec.other_runs == 4 and len(sec.runs) == 4
        everything = store.runs("mix")
        points = by_point(
            everything, ["x2"]
        )  # grouped by full parameters: 2 points x 2 fixed values
        assert sorted((p.point["fail_at"], p.metrics["x2"].mean) for p in points) == [
            (-2, 0.0),
            (-2, 25.0),
            (-1, 0.0),
            (-1, 25.0),
        ]


# -- SecAgg+'s max_corrupt reaches the protocol from a scenario ------------------------------------
def test_max_corrupt_is_a_parameter_of_the_secure_sum_and_pipeline_kinds(
    secure_sum_study, tmp_path: Path
) -> None:
    from mpc_rr.secure_sum.secagg import secagg_public

    text = secure_sum_study.format(parties=40).replace(
        'dropout = [0.0, 0.1, 0.2, 0.3, 0.4]\ndrop_step = ["shares", "masked"]',
        "max_corrupt = [0.05, 0.3]",
    ).replace("repeats = 2", "repeats = 1")
    (tmp_path / "c.toml").write_text(text)
    with Store(tmp_path / "c.db") as store:
        sweep(load_scenario(tmp_path / "c.toml"), store, progress=False)
    with sqlite3.connect(tmp_path / "c.db") as c:
        rows = {json.loads(p)["max_corrupt"]: json.loads(m) for p, m in c.execute("SELECT params, metrics FROM runs")}
    assert set(rows) == {0.05, 0.3}
    for mc, m in rows.items():
        assert m["completed"] and m["exact"], (mc, m)
        want = secagg_public(40, 8, run="x", max_dropout=0.3333, max_corrupt=mc)
        assert (m["degree"], m["threshold"]) == (want.config.degree, want.config.threshold), (mc, m)
    assert rows[0.3]["threshold"] > rows[0.05]["threshold"]  # a larger coalition, a higher threshold

    # like max_dropout, it only applies where SecAgg+ runs (checked before any run)
    from scenarios.experiments.sweep import plan

    with pytest.raises(UsageError, match="max_corrupt only apply to protocol secagg"):
        plan(parse_scenario(doc('kind = "secure-sum"\nprotocol = "full-mesh"\nmax_corrupt = 0.2'), source="m.toml"))
    with pytest.raises(UsageError, match="max_corrupt only apply to dependence secure-sum or pairwise-rr"):
        plan(parse_scenario(doc('kind = "pipeline"\nmax_corrupt = 0.2', data='[data]\nsource = "adult"'), source="p.toml"))
