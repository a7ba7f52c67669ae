"""``--sum prio3`` inside the pipeline's secure-sum dependence and RRBA's secure tally: the same
released counts as SecAgg+ (both exact), so the same dependences and estimates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mpc_rr.data import load_adult
from mpc_rr.workflows import RunOptions
from mpc_rr.workflows._pipeline import run_and_report
from parties.runners import runner_for
from scenarios.cli import main


@pytest.mark.slow
def test_pipeline_secure_sum_dependence_over_prio3_equals_secagg() -> None:
    data = load_adult()
    runs = {
        s: run_and_report(RunOptions(parties=24, seed=2, queries=20, dependence="secure-sum", sum=s),
                            runner_for("harness"), data)[0]
        for s in ("secagg", "prio3")
    }  # fmt: skip
    assert runs["prio3"].dependences == runs["secagg"].dependences
    assert runs["prio3"].clusters == runs["secagg"].clusters


def _rrba(capsys: pytest.CaptureFixture[str], out: Path, sum_protocol: str) -> dict:  # type: ignore[type-arg]
    argv = ["rrba", "--clients", "40", "--block", "20", "--seed", "5", "--marginals", "1", "--json",
            "--out", str(out), "--transport", "harness", "--secure-tally", "--sum", sum_protocol]  # fmt: skip
    assert main(argv) == 0
    doc: dict = json.loads(capsys.readouterr().out)  # type: ignore[type-arg]
    return doc


@pytest.mark.slow
def test_rrba_secure_tally_over_prio3_equals_secagg(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secagg = _rrba(capsys, tmp_path / "s", "secagg")
    prio3 = _rrba(capsys, tmp_path / "p", "prio3")
    assert prio3["cost"]["dropouts"]["answered"] == 40
    assert [r["estimate"] for r in prio3["subsets"]] == [r["estimate"] for r in secagg["subsets"]]


def test_the_pipeline_shows_prio3s_verification_jobs_as_progress(monkeypatch: pytest.MonkeyPatch) -> None:
    """One message per party, then the aggregators' steps: the helper's key is one of the first
    n, so the last report and the answer to each aggregation job follow (jobs of 16 here)."""
    import mpc_rr
    from mpc_rr.secure_sum.prio3 import _params

    monkeypatch.setattr(_params, "JOB_REPORTS", 16)
    seen: dict[str, list[tuple[int, int]]] = {}

    def progress(phase: str, done: int, total: int) -> None:
        seen.setdefault(phase, []).append((done, total))

    report = mpc_rr.run_pipeline("adult", parties=40, seed=2, dependence="secure-sum", sum="prio3",
                                 progress=progress)  # fmt: skip
    assert report.document["secure_sum"]["params"]["jobs"] == 3
    assert seen["SECURE SUM"][-1] == (40, 40)
    assert seen["SECURE SUM SERVERS"] == [(1, 4), (2, 4), (3, 4), (4, 4)]
