"""Dependence sources against the exact dependences (issue: pipeline faithfulness)."""

from __future__ import annotations

from mpc_rr.data import load_adult
from scenarios.reproduce.dependence_ranking import dependence_ranking


def test_exact_source_is_exact_and_noisy_sources_improve_with_p() -> None:
    data = load_adult()
    rows = dependence_ranking(data, 2, seed=3, p_values=(0.1, 0.7))
    by = {(r["p"], r["source"]): r for r in rows}
    for p in (0.1, 0.7):
        assert by[(p, "secure-sum")]["spearman_min"] > 0.999999
        assert by[(p, "secure-sum")]["same_clusters"] == 1.0
    for s in ("rr", "pairwise-rr"):
        assert by[(0.7, s)]["spearman_mean"] > by[(0.1, s)]["spearman_mean"] + 0.3
    assert by[(0.7, "rr")]["spearman_mean"] > 0.9
