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

from mpc_rr.core._lazy import lazy_exports

__all__ = [
    "DEPENDENCE_SOURCES",
    "MECHANISMS",
    "Clustering",
    "GroupRelease",
    "PairLayout",
    "adjust",
    "cluster_attributes",
    "composed_epsilons",
    "perturb_pairs",
    "release_groups",
    "rr_clusters",
    "rr_independent",
    "rr_joint",
]

_HOME = {
    "perturb_pairs": "mpc_rr.mdrr._pairwise",
    "DEPENDENCE_SOURCES": "mpc_rr.mdrr._choices",
    "MECHANISMS": "mpc_rr.mdrr._choices",
    "Clustering": "mpc_rr.mdrr._clustering",
    "cluster_attributes": "mpc_rr.mdrr._clustering",
    "PairLayout": "mpc_rr.mdrr._pair_cells",
    "composed_epsilons": "mpc_rr.mdrr._pairwise",
    "GroupRelease": "mpc_rr.mdrr._release",
    "adjust": "mpc_rr.mdrr._release",
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
    )
    from mpc_rr.mdrr._pairwise import (
        composed_epsilons,
        perturb_pairs,
    )
    from mpc_rr.mdrr._release import (
        GroupRelease,
        adjust,
        release_groups,
        rr_clusters,
        rr_independent,
        rr_joint,
    )
