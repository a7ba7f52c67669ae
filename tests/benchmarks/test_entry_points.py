"""The scale benchmark's parts still run against today's APIs (tiny sizes).

Benchmarks run outside the default suite; without this, a signature change in
the pipeline broke ``--part million`` silently (found when re-measuring the scale figures).
"""

from __future__ import annotations

import json

import pytest

from benchmarks import scale


def test_million_part_runs_at_a_small_size(capsys: pytest.CaptureFixture[str]) -> None:
    assert scale.main(["--part", "million", "--million", "1500", "--workers", "2"]) == 0
    res = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert res["ok"] is True
    assert res["released"] == 1500
    assert res["messages"] == 3 * 1500
    assert len(res["superstep_cpu_s"]) == res["supersteps"]


def test_pipeline_part_compares_runners_on_the_same_estimates(capsys: pytest.CaptureFixture[str]) -> None:
    assert scale.main(["--part", "rr", "--parties", "600", "--repeats", "1", "--workers", "2"]) == 0
    out = capsys.readouterr().out
    assert "same clusters and estimates in every run: True" in out


def test_tls_parties_runs_both_hub_placements(capsys: pytest.CaptureFixture[str]) -> None:
    # a smoke test of the entry point: memory deltas at this size are page-level noise
    from benchmarks import tls_parties

    report = tls_parties.main(["--parties", "50", "--repeats", "1"])
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
