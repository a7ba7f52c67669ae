"""RR-Adjustment never makes an estimate worse silently: an unconverged run
and an adjusted estimate worse than the unadjusted one are both reported."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mpc_rr.data import data_file, infer_schema, load_csv, read_csv_columns
from mpc_rr.estimation import AdjustmentResult, answer, make_queries, relative_error, true_count
from mpc_rr.mdrr import adjust, rr_independent
from mpc_rr.mechanisms import keep_or_uniform
from mpc_rr.workflows._adjustment_checks import adjustment_checks


def _run(converged: bool, iterations: int = 50) -> AdjustmentResult:
    return AdjustmentResult(np.full(4, 0.25), iterations, converged, 3e-3 if not converged else 1e-10, 0.0)


def test_the_reported_case_is_flagged() -> None:
    """The issue's figures: RR-Independent+Adjustment 0.178 against 0.079 without it."""
    errors = {"RR-Independent": {"0.1": 0.079, "0.5": 0.012},
              "RR-Independent+Adjustment": {"0.1": 0.178, "0.5": 0.030}}  # fmt: skip
    (msg,) = adjustment_checks(errors, {"RR-Independent+Adjustment": _run(True, 16)})
    assert msg.startswith("RR-Independent+Adjustment is worse than RR-Independent without it at 2 of 2")
    assert "0.178 vs 0.079" in msg and "use the unadjusted estimate" in msg


def test_non_convergence_is_flagged_and_a_better_adjustment_is_not() -> None:
    errors = {"RR-Clusters": {"0.1": 0.15, "0.5": 0.008},
              "RR-Clusters+Adjustment": {"0.1": 0.08, "0.5": 0.0083}}  # fmt: skip
    assert adjustment_checks(errors, {"RR-Clusters+Adjustment": _run(True)}) == []
    (msg,) = adjustment_checks(errors, {"RR-Clusters+Adjustment": _run(False)})
    assert "stopped at its limit of 50 passes without converging" in msg
    # noise-level differences (within 10%) are not "worse"; one coverage well above is
    close = {"RR-Independent": {"0.1": 0.10, "0.5": 0.010},
             "RR-Independent+Adjustment": {"0.1": 0.105, "0.5": 0.0109}}  # fmt: skip
    assert adjustment_checks(close, {}) == []
    close["RR-Independent+Adjustment"]["0.5"] = 0.02
    (msg,) = adjustment_checks(close, {})
    assert "at 1 of 2 query coverages (median relative error 0.02 vs 0.01, measured against the true" in msg


def test_weights_on_few_records_are_flagged_without_the_true_records() -> None:
    """The record-free check: the weights' effective sample size (Kish, 1/sum w^2)."""
    n = 1000
    spread = np.full(n, 1.0 / n)
    few = np.zeros(n)
    few[:50] = 1.0 / 50  # 50 records carry the estimate: 5 % of them
    ok = AdjustmentResult(spread, 12, True, 1e-10, 0.0)
    bad = AdjustmentResult(few, 12, True, 1e-10, 0.0)
    assert adjustment_checks({}, {"RR-Clusters+Adjustment": ok}) == []
    (msg,) = adjustment_checks({}, {"RR-Clusters+Adjustment": bad})
    assert "rest on 50 effective records of 1,000" in msg and "use RR-Clusters (the unadjusted" in msg
    # unconverged on few records: the targets conflict, and the message does not ask for passes
    (msg,) = adjustment_checks({}, {"RR-Clusters+Adjustment": AdjustmentResult(few, 300, False, 0.49, 0.0)})
    assert "more passes do not change that" in msg and "--adjust-iterations" not in msg
    # unconverged on many records: more passes may help, through a flag that exists
    (msg,) = adjustment_checks({}, {"RR-Clusters+Adjustment": AdjustmentResult(spread, 50, False, 0.01, 0.0)})
    assert "allow more passes (--adjust-iterations;" in msg


def test_the_advised_flag_exists() -> None:
    from scenarios.cli import build_parser

    run = build_parser(("run",))._subparsers._group_actions[0].choices["run"]  # type: ignore[union-attr]
    assert "--adjust-iterations" in {s for a in run._actions for s in a.option_strings}


def test_a_real_case_that_worsens_is_caught() -> None:
    """35 attributes of alarm, per-attribute RR at p = 0.7: the adjustment converges (Anderson,
    well under 50 passes) and still makes the estimate worse; the check says so."""
    path = data_file("alarm_10000.csv")
    schema = infer_schema(read_csv_columns(path))
    data = load_csv(path, schema)
    codes, sizes = data.codes[:, :35], schema.sizes[:35]
    rel = rr_independent(codes, sizes, [keep_or_uniform(s, 0.7) for s in sizes], np.random.default_rng(0))
    model, run = adjust(rel, max_iter=50)
    assert run.converged and run.iterations < 50
    errors: dict[str, dict[str, float]] = {"RR-Independent": {}, "RR-Independent+Adjustment": {}}
    for sigma in (0.1, 0.5):
        qs = make_queries(codes, sizes, 100, sigma, np.random.default_rng(1))
        truth = [true_count(codes, q) for q in qs]
        for name, m in (("RR-Independent", rel.model), ("RR-Independent+Adjustment", model)):
            errs = [relative_error(answer(m, q, codes.shape[0]), t) for q, t in zip(qs, truth, strict=True)]
            errors[name][str(sigma)] = float(np.median(errs))
    assert errors["RR-Independent+Adjustment"]["0.1"] > 1.2 * errors["RR-Independent"]["0.1"]
    msgs = adjustment_checks(errors, {"RR-Independent+Adjustment": run})
    assert len(msgs) == 2 and "is worse than RR-Independent" in msgs[1]
    # and the check a deployment can make (no true record) says it first, with its cause
    assert "effective records of 10,000" in msgs[0] and "use RR-Independent" in msgs[0]


@pytest.mark.slow
def test_run_warns_and_records_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """mpc-rr run on the same 35+ attributes: the warning is printed and kept in results.json."""
    from scenarios.cli import main

    argv = ["run", str(data_file("alarm_10000.csv")), "--infer-schema", "--parties", "2000",
            "--queries", "100", "--workers", "1", "--out", str(tmp_path)]  # fmt: skip
    assert main(argv) == 0
    err = capsys.readouterr().err
    doc = json.loads((tmp_path / "results.json").read_text())
    assert doc["adjustments"]["RR-Independent+Adjustment"]["worse_than_unadjusted"] is True
    assert any("RR-Independent+Adjustment is worse than RR-Independent" in w for w in doc["warnings"])
    assert "RR-Independent+Adjustment is worse than" in err
