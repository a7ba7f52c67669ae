"""``scenarios.study``: run a scenario into a store from Python, resume it, read it back."""

from __future__ import annotations

from pathlib import Path

import pytest

import scenarios
from mpc_rr.core import UsageError
from scenarios.experiments.spec import parse_scenario

TEXT = """
[scenario]
name = "tiny-sum"
seed = 3
repeats = 2
metrics = ["completed", "exact", "messages"]

[protocol]
kind = "secure-sum"
protocol = "plainsum"
parties = 4
cells = 3

[grid]
dropout = [0.0, 0.5]
"""


def test_a_study_runs_resumes_and_reads_back(tmp_path: Path) -> None:
    path = tmp_path / "tiny.toml"
    path.write_text(TEXT)
    with scenarios.study(tmp_path / "results.db") as study:
        assert study.missing(path) == 4
        first = study.run(path)
        assert (first.planned, first.executed, first.stored_before) == (4, 4, 0)
        again = study.run(parse_scenario(TEXT, source="again"))  # same study: nothing left to run
        assert (again.executed, again.stored_before) == (0, 4)
        assert study.missing(path) == 0
        assert study.names() == ["tiny-sum"]
        assert len(study.runs("tiny-sum")) == 4
        points = study.points("tiny-sum")
        assert [p.point for p in points] == [{"dropout": 0.0}, {"dropout": 0.5}]
        assert all(p.runs == 2 for p in points)
        # without dropouts the plain sum always completes exactly
        assert points[0].metrics["exact"].mean == 1.0
        assert points[0].metrics["messages"].n == 2


def test_a_study_frame_has_one_row_per_run(tmp_path: Path) -> None:
    pytest.importorskip("pandas")
    path = tmp_path / "tiny.toml"
    path.write_text(TEXT)
    with scenarios.study(tmp_path / "results.db") as study:
        study.run(path)
        frame = study.frame("tiny-sum")
    assert len(frame) == 4
    assert {"dropout", "exact", "repeat", "seed"} <= set(frame.columns)


def test_a_study_refuses_what_is_not_a_scenario(tmp_path: Path) -> None:
    with scenarios.study(tmp_path / "results.db") as study:
        with pytest.raises(UsageError, match="expected a scenario file's path or a Scenario, got int"):
            study.run(3)  # type: ignore[arg-type]
        with pytest.raises(UsageError, match="no runs of scenario 'nope'"):
            study.points("nope")


def test_opening_a_missing_store_without_create_is_refused(tmp_path: Path) -> None:
    with pytest.raises(UsageError):
        scenarios.study(tmp_path / "absent.db", create=False)
