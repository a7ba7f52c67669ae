"""Results as pandas DataFrames: a store's runs (one column per parameter and metric) and one
run's results.json; pandas missing is a clear usage error."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from mpc_rr.core import UsageError
from scenarios.results.frames import RUN_COLUMNS, run_frame, runs_frame
from scenarios.results.store import Store


def test_runs_frame_has_a_column_per_parameter_and_metric(tmp_path: Path) -> None:
    pytest.importorskip("pandas", reason="pandas is the optional extra mpc-rr[pandas]")
    with Store(tmp_path / "r.db") as s:
        sid = s.begin(scenario="t", kind="audit", path="t.toml", text="x", text_id="x", code_version="v",
                      data_identity=None, data_description=None, planned=["a", "b"], stored_before=0,
                      jobs=1, argv=[], versions={}, machine={})  # fmt: skip
        for key, trials, eps in (("a" * 8, 300, 0.5), ("b" * 8, 3000, 0.9)):
            s.put(session=sid, key=key, scenario="t", kind="audit", point={"trials": trials},
                  params={"trials": trials}, repeat=0, seed=1, code_version="v", data_identity=None,
                  dataset=None, status="ok", metrics={"epsilon_lower": eps, "trials": trials},
                  result={}, wall_s=0.1)  # fmt: skip
        df = runs_frame(s, scenario="t")
    assert list(df.columns[: len(RUN_COLUMNS)]) == list(RUN_COLUMNS)
    assert sorted(df["trials"]) == [300, 3000] and sorted(df["epsilon_lower"]) == [0.5, 0.9]
    assert "metric.trials" in df.columns  # a metric named like a parameter keeps both


def test_run_frame_reads_results_json(tmp_path: Path) -> None:
    pytest.importorskip("pandas", reason="pandas is the optional extra mpc-rr[pandas]")
    doc = {"dataset": "adult", "parties": 60, "seed": 1, "epsilon": {"total": 2.0},
           "relative_error": {"RR-Clusters": {"0.1": 0.2, "0.3": 0.1}, "RR-Independent": {"0.1": 0.3, "0.3": 0.2}}}  # fmt: skip
    f = tmp_path / "results.json"
    f.write_text(json.dumps(doc))
    df = run_frame(f)
    assert len(df) == 4 and set(df["method"]) == {"RR-Clusters", "RR-Independent"}
    assert df.loc[(df.method == "RR-Clusters") & (df.sigma == 0.1), "median_relative_error"].item() == 0.2
    with pytest.raises(UsageError, match="no relative_error"):
        run_frame({"x": 1})


def test_without_pandas_the_error_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(UsageError, match=r"pip install 'mpc-rr\[pandas\]'"):
        run_frame({"relative_error": {}})


def test_the_library_ships_its_type_hints() -> None:
    import mpc_rr

    assert (Path(mpc_rr.__file__).parent / "py.typed").exists()
