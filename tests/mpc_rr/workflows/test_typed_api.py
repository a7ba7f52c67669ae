"""The typed Python API: run_pipeline's keywords are RunOptions' fields, its report has typed fields,
and the error table answers by method and coverage."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

import mpc_rr
from mpc_rr.core import UsageError
from mpc_rr.workflows import ErrorTable, RunOptions

DOC = {"RR-Independent": {"0.1": 0.2, "0.5": 0.05}, "RR-Clusters": {"0.1": 0.1, "0.5": 0.08}}


def test_run_pipeline_takes_every_run_option_as_a_typed_keyword() -> None:
    sig = inspect.signature(mpc_rr.run_pipeline)
    for f in dataclasses.fields(RunOptions):
        param = sig.parameters.get(f.name)
        assert param is not None, f"run_pipeline has no keyword {f.name!r}"
        assert param.kind is inspect.Parameter.KEYWORD_ONLY and param.default == f.default, f.name
    assert not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in sig.parameters.values())


def test_an_unknown_option_is_a_type_error_not_a_silent_default() -> None:
    with pytest.raises(TypeError, match="unexpected keyword argument 'partie'"):
        mpc_rr.run_pipeline("adult", partie=10)  # type: ignore[call-arg]


def test_options_and_keywords_are_not_mixed() -> None:
    with pytest.raises(UsageError, match=r"give either options= or keywords, not both \(p, seed\)"):
        mpc_rr.run_pipeline("adult", options=RunOptions(parties=50), p=0.5, seed=3)


def test_the_error_table_answers_by_method_and_coverage() -> None:
    table = ErrorTable.from_json(DOC)
    assert table.methods == ("RR-Independent", "RR-Clusters") and table.coverages == (0.1, 0.5)
    assert table.at("RR-Clusters", 0.1) == 0.1 and table["RR-Independent"] == {0.1: 0.2, 0.5: 0.05}
    assert table.best(0.1) == "RR-Clusters" and table.best(0.5) == "RR-Independent"
    assert table.to_json() == DOC and len(table) == 2 and list(table) == list(DOC)
    assert ("RR-Clusters", 0.5, 0.08) in table.rows()
    with pytest.raises(UsageError, match=r"no method 'RR-Joint' \(methods: RR-Independent, RR-Clusters\)"):
        table.at("RR-Joint", 0.1)
    with pytest.raises(UsageError, match=r"no coverage 0.3 \(coverages: 0.1, 0.5\)"):
        table.at("RR-Clusters", 0.3)
    with pytest.raises(UsageError, match="do not match the values' shape"):
        ErrorTable(("a",), (0.1, 0.5), ((0.1,),))


def test_the_error_table_as_a_frame() -> None:
    pytest.importorskip("pandas")
    frame = ErrorTable.from_json(DOC).to_frame()
    assert frame.loc["RR-Clusters", 0.5] == 0.08 and frame.index.name == "method"


def test_a_pipeline_report_has_typed_fields_that_agree_with_its_document() -> None:
    report = mpc_rr.run_pipeline("adult", parties=200, seed=5, queries=40)
    doc = report.document
    assert report.dataset == doc["dataset"] == "adult" and report.parties == 200
    assert report.clusters == tuple(tuple(c) for c in doc["clusters"])
    assert report.epsilon.total == pytest.approx(report.epsilon.dependence + report.epsilon.release)
    assert report.relative_error.to_json() == doc["relative_error"]
    assert report.ledger.to_json()["phases"] == doc["privacy"]["phases"]
    assert report.ledger.total.local_epsilon == pytest.approx(report.epsilon.total)
    assert report.cost.messages == doc["cost"]["messages"] and report.cost.bytes == doc["cost"]["bytes"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        report.parties = 3  # type: ignore[misc]
    same = mpc_rr.run_pipeline("adult", options=RunOptions(parties=200, seed=5, queries=40))
    assert same.relative_error == report.relative_error
