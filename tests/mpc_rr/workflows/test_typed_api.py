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


def test_results_json_is_derived_from_the_typed_record() -> None:
    """The report's document is its record's to_json(): typed fields first, the JSON after them."""
    from mpc_rr.workflows._run_results import RunResults

    report = mpc_rr.run_pipeline("adult", parties=150, seed=6, queries=20, p=0.5)
    r = report.results
    assert isinstance(r, RunResults) and report.document == r.to_json()
    doc = report.document
    assert r.options == RunOptions(parties=150, seed=6, queries=20, p=0.5) and doc["options"]["p"] == 0.5
    assert [a.name for a in r.attributes] == [a["name"] for a in doc["attributes"]]
    assert r.timing.protocol_s == doc["timing"]["protocol_s"] and r.cost.messages == doc["cost"]["messages"]
    assert doc["adjustments"]["RR-Clusters+Adjustment"]["iterations"] == r.adjustments["RR-Clusters+Adjustment"].iterations
    assert tuple(doc["warnings"]) == r.warnings == report.warnings and r.network is None
    # 150 parties over Adult's clusters: too few records per value combination, and said so
    assert any(w.startswith("tiny sample:") for w in r.warnings), r.warnings
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.parties = 3  # type: ignore[misc]
    priced = r.with_network({"profile": "lan"})
    assert priced.to_json()["network"] == {"profile": "lan"} and "network" not in doc
    assert list(priced.to_json())[-2:] == ["network", "warnings"]


def test_an_rrba_report_is_typed_and_its_json_is_the_summary() -> None:
    import numpy as np

    from mpc_rr.data import Attribute, Dataset, Schema
    from mpc_rr.rrba import run_rrba
    from mpc_rr.workflows._rrba import marginal_errors, summarize
    from mpc_rr.workflows._rrba_results import RRBAResults, RRBASeconds, rrba_results

    schema = Schema((Attribute("a", ("x", "y")), Attribute("b", ("x", "y", "z")), Attribute("c", ("x", "y"))))
    rng = np.random.default_rng(5)
    data = Dataset(schema, rng.integers(0, [2, 3, 2], size=(60, 3)))
    run = run_rrba(data, p=0.6, block=20, k=2, seed=3)
    marg = marginal_errors(run, data, np.random.default_rng(1), max_tables=2)
    r = rrba_results(run, data, "test", marg)
    assert isinstance(r, RRBAResults) and r.to_json() == summarize(run, data, "test", marg)
    doc = r.to_json()
    assert doc["l2"] == {m: v.l2_mean for m, v in r.marginals.items()} and doc["cost"]["messages"] is None
    assert [s["attributes"] for s in doc["subsets"]] == [list(s.attributes) for s in r.subsets]
    # 60 answers for tables of 4-6 cells: fewer than 5 per cell, and said so
    assert any(w.startswith("tiny sample:") for w in r.warnings) and doc["warnings"] == list(r.warnings)
    timed = r.timed(RRBASeconds(1.5, 0.25)).to_json()
    assert timed["seconds"] == {"collection": 1.5, "marginals": 0.25} and "seconds" not in doc
