"""BIF parser and ancestral sampling: exact on small cases, statistical against the CSVs."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import chi2, chi2_contingency

from mpc_rr.core import UsageError
from mpc_rr.data import data_file, load_csv, load_network
from mpc_rr.data._bif import parse_bif

TINY = """
network tiny { }
variable R { type discrete [ 2 ] { lo, hi }; }
variable C { type discrete [ 3 ] { a, b, c }; property note x ; }
// a comment
probability ( R ) { table 0.25, 0.75; }
probability ( C | R ) {
  (lo) 1.0, 0.0, 0.0;
  (hi) 0.0, 0.5, 0.5;
}
"""


def test_survey_cpts_equal_the_file() -> None:
    net = load_network("survey")
    assert net.schema.names == ("A", "S", "E", "O", "R", "T")
    assert net.schema.attributes[0].categories == ("young", "adult", "old")
    e = net.schema.index("E")
    assert [net.schema.names[i] for i in net.parents[e]] == ["A", "S"]
    # "(old, F) 0.9, 0.1;" and "(emp, big) 0.58, 0.24, 0.18;"
    assert net.cpts[e][2, 1].tolist() == [0.9, 0.1]
    t = net.schema.index("T")
    assert net.cpts[t][0, 1].tolist() == [0.58, 0.24, 0.18]
    joint = net.joint()
    assert joint.shape == (3, 2, 2, 2, 2, 3) and joint.sum() == pytest.approx(1.0, abs=1e-12)
    # P(A=young, S=M, E=high) = 0.3 * 0.6 * 0.75
    assert net.marginal([0, 1, 2])[0, 0, 0] == pytest.approx(0.3 * 0.6 * 0.75, abs=1e-15)


def test_tiny_network_exact() -> None:
    net = parse_bif(TINY, "tiny")
    assert net.order == (0, 1)
    np.testing.assert_allclose(net.joint(), [[0.25, 0, 0], [0, 0.375, 0.375]])
    rng = np.random.default_rng(5)
    data = net.sample(20_000, rng)
    r, c = data.codes[:, 0], data.codes[:, 1]
    assert ((r == 0) == (c == 0)).all()  # deterministic rows are honoured exactly
    # the root node is inverse-CDF sampling of the first uniform of the generator
    u = np.random.default_rng(5).random(20_000)
    np.testing.assert_array_equal(r, (u >= 0.25).astype(int))


def test_survey_sampler_matches_exact_joint() -> None:
    net = load_network("survey")
    n = 200_000
    data = net.sample(n, np.random.default_rng(11))
    flat = np.ravel_multi_index(tuple(data.codes.T), net.schema.sizes)
    obs = np.bincount(flat, minlength=net.schema.domain_size)
    exp = n * net.joint().reshape(-1)
    keep = exp > 0
    assert obs[~keep].sum() == 0
    stat = float(((obs[keep] - exp[keep]) ** 2 / exp[keep]).sum())
    assert stat < chi2.ppf(0.999, keep.sum() - 1)


@pytest.mark.parametrize("name", ["survey", "child", "alarm"])
def test_sampler_agrees_with_the_shipped_csv(name: str) -> None:
    net = load_network(name)
    csv_data = load_csv(data_file(f"{name}_10000.csv"), net.schema)
    ours = net.sample(10_000, np.random.default_rng(2))
    # one homogeneity test per attribute; Bonferroni over all attributes at 0.001
    d = len(net.schema)
    for j in range(d):
        k = net.schema.sizes[j]
        table = np.stack(
            [
                np.bincount(ours.codes[:, j], minlength=k),
                np.bincount(csv_data.codes[:, j], minlength=k),
            ]
        )
        table = table[:, table.sum(axis=0) > 0]
        if table.shape[1] < 2:
            continue
        assert chi2_contingency(table)[1] > 0.001 / d, net.schema.names[j]


def test_unknown_category_in_csv_is_a_usage_error(tmp_path) -> None:  # type: ignore[no-untyped-def]
    f = tmp_path / "s.csv"
    f.write_text("A,S,E,O,R,T\nadult,M,uni,emp,big,plane\n")
    with pytest.raises(UsageError, match=r"s.csv line 2: column 'T' has value 'plane', not a category"):
        load_csv(f, load_network("survey").schema)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        (TINY.replace("(hi) 0.0, 0.5, 0.5;", ""), r"no row for parent configuration \('hi',\)"),
        (TINY.replace("(hi)", "(mid)"), "unknown state 'mid' of parent 'R'"),
        (TINY.replace("0.25, 0.75", "0.25, 0.7"), "a row sums to 0.95"),
        (TINY.replace("[ 3 ]", "[ 4 ]"), r"declares 4 states but lists \['a', 'b', 'c'\]"),
        (
            TINY.replace("probability ( R ) { table 0.25, 0.75; }", ""),
            "'R' has no probability block",
        ),
        (
            TINY.replace(
                "probability ( R ) { table 0.25, 0.75; }",
                "probability ( R | C ) { (a) 1, 0; (b) 1, 0; (c) 1, 0; }",
            ),
            "cycle",
        ),
    ],
)
def test_bad_bif(text: str, match: str) -> None:
    with pytest.raises(UsageError, match=match):
        parse_bif(text, "tiny")


def test_bad_sample_size_and_missing_file() -> None:
    net = parse_bif(TINY)
    with pytest.raises(UsageError, match="n must be a positive int, got 0"):
        net.sample(0, np.random.default_rng(0))
    with pytest.raises(UsageError, match=r"nope\.bif not found"):
        load_network("nope.bif")
