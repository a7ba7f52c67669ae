"""Multi-dimensional RR (Domingo-Ferrer & Soria-Comas): the releases and what they need.

* :func:`rr_independent`, :func:`rr_clusters`, :func:`adjust`, :func:`perturb_record`
  -- RR-Independent, RR-Joint, RR-Clusters and RR-Adjustment on records;
* :func:`cluster_attributes` -- Algorithm 1;
* pairwise RR (Sec. 4.3): :func:`perturb_pairs`, :func:`estimate_pair_tables`,
  :func:`composed_epsilons`; :class:`PairLayout` lays every attribute pair's
  cells out in one vector (1,582 cells on Adult);
* :data:`DEPENDENCE_SOURCES` and :data:`MECHANISMS` -- the names users choose from.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mpc_rr.core import lazy_exports

__all__ = [
    "DEPENDENCE_SOURCES",
    "MECHANISMS",
    "Clustering",
    "GroupRelease",
    "PairLayout",
    "PairTables",
    "adjust",
    "cluster_attributes",
    "composed_epsilons",
    "crosstabs",
    "estimate_pair_tables",
    "joint_counts",
    "pair_cells",
    "pair_dependences",
    "pair_layout",
    "pair_mechanisms",
    "perturb_pairs",
    "perturb_record",
    "release_groups",
    "rr_clusters",
    "rr_independent",
    "rr_joint",
]

_HOME = {
    "Clustering": "mpc_rr.mdrr._clustering",
    "DEPENDENCE_SOURCES": "mpc_rr.mdrr._choices",
    "GroupRelease": "mpc_rr.mdrr._release",
    "MECHANISMS": "mpc_rr.mdrr._choices",
    "PairLayout": "mpc_rr.mdrr._pair_cells",
    "PairTables": "mpc_rr.mdrr._pairwise",
    "adjust": "mpc_rr.mdrr._release",
    "cluster_attributes": "mpc_rr.mdrr._clustering",
    "composed_epsilons": "mpc_rr.mdrr._pairwise",
    "crosstabs": "mpc_rr.mdrr._pair_cells",
    "estimate_pair_tables": "mpc_rr.mdrr._pairwise",
    "joint_counts": "mpc_rr.mdrr._release",
    "pair_cells": "mpc_rr.mdrr._pairwise",
    "pair_dependences": "mpc_rr.mdrr._pairwise",
    "pair_layout": "mpc_rr.mdrr._pair_cells",
    "pair_mechanisms": "mpc_rr.mdrr._pairwise",
    "perturb_pairs": "mpc_rr.mdrr._pairwise",
    "perturb_record": "mpc_rr.mdrr._release",
    "release_groups": "mpc_rr.mdrr._release",
    "rr_clusters": "mpc_rr.mdrr._release",
    "rr_independent": "mpc_rr.mdrr._release",
    "rr_joint": "mpc_rr.mdrr._release",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOME, globals())

if TYPE_CHECKING:
    from mpc_rr.mdrr._choices import (
        DEPENDENCE_SOURCES,
        MECHANISMS,
    )
    from mpc_rr.mdrr._clustering import (
        Clustering,
        cluster_attributes,
    )
    from mpc_rr.mdrr._pair_cells import (
        PairLayout,
        crosstabs,
        pair_layout,
    )
    from mpc_rr.mdrr._pairwise import (
        PairTables,
        composed_epsilons,
        estimate_pair_tables,
        pair_cells,
        pair_dependences,
        pair_mechanisms,
        perturb_pairs,
    )
    from mpc_rr.mdrr._release import (
        GroupRelease,
        adjust,
        joint_counts,
        perturb_record,
        release_groups,
        rr_clusters,
        rr_independent,
        rr_joint,
    )
