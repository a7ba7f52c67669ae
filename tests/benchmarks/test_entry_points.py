"""The scale benchmark's parts still run against today's APIs (tiny sizes).

Benchmarks run outside the default suite; without this, a signature change in
the pipeline broke ``--part million`` silently (found when re-measuring the scale figures).
"""

from __future__ import annotations

import json

import pytest

from benchmarks import scale


def test_million_part_runs_at_a_small_size(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--part", "million", "--million", "1500", "--workers", "2"]
    assert scale.main([*args, "--child", "million-direct"]) == 0  # one measured run
    res = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert res["ok"] is True and res["mode"] == "direct"
    assert res["released"] == 1500
    assert res["messages"] == 3 * 1500
    assert len(res["superstep_cpu_s"]) == res["supersteps"]
    assert scale.main([*args, "--repeats", "1", "--json"]) == 0  # both engines, interleaved
    out = capsys.readouterr().out
    (part,) = json.loads(out.strip().splitlines()[-1])
    assert [r["mode"] for r in part["rows"]] == ["tasks", "direct"] and part["same_estimates"] is True
    assert all(r["ok"] for r in part["rows"]) and "ratios: wall" in out


@pytest.mark.slow  # the default tier runs the same part_pipeline for secure-sum (next test)
def test_pipeline_part_compares_runners_on_the_same_estimates(capsys: pytest.CaptureFixture[str]) -> None:
    assert scale.main(["--part", "rr", "--parties", "600", "--repeats", "1", "--workers", "2"]) == 0
    out = capsys.readouterr().out
    assert "same clusters and estimates in every run: True" in out


def test_secure_sum_part_prints_the_crypto_floor(capsys: pytest.CaptureFixture[str]) -> None:
    # its floor helper must import only names the pipeline package has
    assert scale.main(["--part", "secure-sum", "--parties", "60", "--repeats", "1", "--workers", "2"]) == 0
    out = capsys.readouterr().out
    assert "same clusters and estimates in every run: True" in out and "crypto floor:" in out


def test_tls_parties_runs_both_hub_placements(capsys: pytest.CaptureFixture[str]) -> None:
    # a smoke test of the entry point: memory deltas at this size are page-level noise
    from benchmarks import tls_parties

    report = tls_parties.main(["--parties", "8", "--repeats", "1"])
    rows = report["rows"]
    assert rows["one process"]["ok"] and rows["hub process"]["ok"]
    assert rows["hub process"]["kb_per_party_all_in"] > 0
    out = capsys.readouterr().out
    assert "one process" in out and "hub process" in out


def test_make_bench_has_a_quick_size_for_every_module() -> None:
    """`make bench` runs every module at its QUICK size (minutes); a new module must get one."""
    import pkgutil

    import benchmarks
    from benchmarks.__main__ import QUICK

    names = {m.name for m in pkgutil.iter_modules(benchmarks.__path__) if not m.name.startswith("_")}
    assert set(QUICK) == names
def test_rrba_wide_runs_this_checkout_at_a_small_size(capsys: pytest.CaptureFixture[str]) -> None:
    from benchmarks import rrba_wide

    report = rrba_wide.main(
        ["--categories", "6", "--attributes", "4", "--clients", "300", "--block", "100",
         "--repeats", "1", "--baseline", ""]
    )  # fmt: skip
    assert report["same_estimates"] is True and list(report["rows"]) == ["this checkout"]  # type: ignore[call-overload]
    assert "RRBA, 4 attributes x 6 categories, k=2 (widest table 36 cells)" in capsys.readouterr().out


def test_rrba_wide_marginals_add_their_time_and_the_perturb_benchmark_runs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from benchmarks import perturb_estimate, rrba_wide

    report = rrba_wide.main(
        ["--census", "6", "--clients", "300", "--block", "100", "--marginals", "2",
         "--repeats", "1", "--baseline", ""]
    )  # fmt: skip
    row = report["rows"]["this checkout"]  # type: ignore[index]
    assert 0 < row["marginals_s"] < row["wall_s"]
    pe = perturb_estimate.main(["--n", "2000", "--repeat", "3", "--processes", "1", "--baseline", ""])
    assert pe["same_reports"] is True and pe["rows"]["this checkout"]["ratio"] > 0  # type: ignore[index]
    assert "perturb + estimate, n=2,000, k=16" in capsys.readouterr().out


def test_network_prices_a_sum_on_each_profile(capsys: pytest.CaptureFixture[str]) -> None:
    from benchmarks import network

    rows = network.main(["--parties", "6", "--cells", "2", "--network", "lan", "--network", "mobile"])
    assert list(rows) == ["lan", "mobile"] and rows["lan"]["network_s"] < rows["mobile"]["network_s"]
    assert "network s" in capsys.readouterr().out


def test_prio3_units_reports_each_measure_in_x25519_agreements(capsys: pytest.CaptureFixture[str]) -> None:
    from benchmarks import prio3_units

    report = prio3_units.main(["--quick", "--repeats", "1", "--baseline", "", "--only", "Histogram(10) default Field128"])
    (case,) = report["medians"]["this checkout"].values()
    assert set(case) == set(prio3_units.MEASURES) and all(v > 0 for v in case.values())
    out = capsys.readouterr().out
    assert "Histogram(10) chunk 4 Field128/1" in out and out.count("X") >= 4


def test_simulate_counts_schedules_per_second_and_violations() -> None:
    from benchmarks import simulate

    report = simulate.main(["--schedules", "20", "--protocols", "plainsum", "--workers", "1", "--parties", "4"])
    (row,) = report["rows"]  # type: ignore[misc]
    assert row["schedules"] == 20 and row["schedules_per_s"] > 0 and row["violating"] == 0
