"""RRBA: Randomized Response Block Aggregation (Imran & Meo), pure and vectorized.

Modules, one job each:

* :mod:`~mpc_rr.rrba._views` -- covers of the attribute subsets by views (Sec. 4);
* :mod:`~mpc_rr.rrba._tables` -- packed per-subset tables, records -> cells;
* :mod:`~mpc_rr.rrba._client` -- a client's answers (Algorithm 1, Eq. 3);
* :mod:`~mpc_rr.rrba._update` -- Eq. 4, the pooled estimator, repairs, floor;
* :mod:`~mpc_rr.rrba._stopping` -- the block stopping rule (Sec. 5);
* :mod:`~mpc_rr.rrba._aggregator` -- the aggregator's state: block counts in,
  tables and stopping status out;
* :mod:`~mpc_rr.rrba._privacy` -- true epsilon vs the paper's ln(1/(1-p));
* :mod:`~mpc_rr.rrba._consistency` -- consistent 3-/4-way marginals (Sec. 4.3 QP);
* :mod:`~mpc_rr.rrba._independence` -- the two-step MLE test (Sec. 6, 7.3);
* :mod:`~mpc_rr.rrba._marginals` -- empirical tables, l2 and Jensen-Shannon;
* :mod:`~mpc_rr.rrba._collection` -- the aggregator's bookkeeping of a run, block
  by block (shared by the centralized engine and the Aggregator role);
* :mod:`~mpc_rr.rrba._simulate` -- centralized engines built from the above;
* :mod:`~mpc_rr.rrba._protocol` -- the distributed protocol: public parameters
  (:mod:`~mpc_rr.rrba._config`), messages (:mod:`~mpc_rr.rrba._messages`), the
  Aggregator (:mod:`~mpc_rr.rrba._aggregator_role`) and Client
  (:mod:`~mpc_rr.rrba._client_role`) roles, optionally with SecAgg+ block
  tallies; one OS process per party: :mod:`~mpc_rr.rrba._deploy`.

What the roles call: the Client role :func:`answer_packed` (the arithmetic
of :func:`client_answer`); the Aggregator role a :class:`Collection`
(:func:`assign_views` and :class:`BlockAggregator` underneath) and
:func:`tally` -- or a secure sum of one-hot answers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mpc_rr.core._lazy import lazy_exports

__all__ = [
    "CLIENT_RNG",
    "ESTIMATORS",
    "MAX_ROWS",
    "REPAIRS",
    "RRBA",
    "STOPS",
    "WORKING_TABLES",
    "BlockAggregator",
    "Cover",
    "IndependenceTest",
    "RRBAAggregator",
    "RRBAClient",
    "RRBAConfig",
    "RRBARun",
    "SubsetIndex",
    "answers_from_uniforms",
    "assign_views",
    "chi2_independence",
    "client_answer",
    "client_seeds",
    "collection_bytes",
    "cover",
    "elastic_fit",
    "empirical_table",
    "epsilon_cap",
    "independence_test",
    "js_divergence",
    "l2_counts",
    "pair_cover",
    "paper_epsilon",
    "reconstruct",
    "rrba_roles",
    "rrba_simulator",
    "run_distributed",
    "run_rrba",
    "run_tables",
    "stable_from",
    "table_epsilon",
    "tally",
    "tolerance",
    "view_epsilon",
]

_HOME = {
    "BlockAggregator": "mpc_rr.rrba._aggregator",
    "tally": "mpc_rr.rrba._aggregator",
    "RRBAAggregator": "mpc_rr.rrba._aggregator_role",
    "CLIENT_RNG": "mpc_rr.rrba._choices",
    "ESTIMATORS": "mpc_rr.rrba._choices",
    "REPAIRS": "mpc_rr.rrba._choices",
    "STOPS": "mpc_rr.rrba._choices",
    "answers_from_uniforms": "mpc_rr.rrba._client",
    "client_answer": "mpc_rr.rrba._client",
    "RRBAClient": "mpc_rr.rrba._client_role",
    "RRBAConfig": "mpc_rr.rrba._config",
    "MAX_ROWS": "mpc_rr.rrba._consistency",
    "reconstruct": "mpc_rr.rrba._consistency",
    "IndependenceTest": "mpc_rr.rrba._independence",
    "chi2_independence": "mpc_rr.rrba._independence",
    "elastic_fit": "mpc_rr.rrba._independence",
    "independence_test": "mpc_rr.rrba._independence",
    "empirical_table": "mpc_rr.rrba._marginals",
    "js_divergence": "mpc_rr.rrba._marginals",
    "l2_counts": "mpc_rr.rrba._marginals",
    "epsilon_cap": "mpc_rr.rrba._privacy",
    "paper_epsilon": "mpc_rr.rrba._privacy",
    "table_epsilon": "mpc_rr.rrba._privacy",
    "view_epsilon": "mpc_rr.rrba._privacy",
    "rrba_roles": "mpc_rr.rrba._protocol",
    "run_distributed": "mpc_rr.rrba._protocol",
    "RRBARun": "mpc_rr.rrba._simulate",
    "client_seeds": "mpc_rr.rrba._simulate",
    "rrba_simulator": "mpc_rr.rrba._simulate",
    "run_rrba": "mpc_rr.rrba._simulate",
    "run_tables": "mpc_rr.rrba._simulate",
    "RRBA": "mpc_rr.rrba._spec",
    "stable_from": "mpc_rr.rrba._stopping",
    "tolerance": "mpc_rr.rrba._stopping",
    "SubsetIndex": "mpc_rr.rrba._tables",
    "WORKING_TABLES": "mpc_rr.rrba._tables",
    "collection_bytes": "mpc_rr.rrba._tables",
    "Cover": "mpc_rr.rrba._views",
    "assign_views": "mpc_rr.rrba._views",
    "cover": "mpc_rr.rrba._views",
    "pair_cover": "mpc_rr.rrba._views",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOME, globals())

if TYPE_CHECKING:
    from mpc_rr.rrba._aggregator import (
        BlockAggregator,
        tally,
    )
    from mpc_rr.rrba._aggregator_role import (
        RRBAAggregator,
    )
    from mpc_rr.rrba._choices import (
        CLIENT_RNG,
        ESTIMATORS,
        REPAIRS,
        STOPS,
    )
    from mpc_rr.rrba._client import (
        answers_from_uniforms,
        client_answer,
    )
    from mpc_rr.rrba._client_role import (
        RRBAClient,
    )
    from mpc_rr.rrba._config import (
        RRBAConfig,
    )
    from mpc_rr.rrba._consistency import (
        MAX_ROWS,
        reconstruct,
    )
    from mpc_rr.rrba._independence import (
        IndependenceTest,
        chi2_independence,
        elastic_fit,
        independence_test,
    )
    from mpc_rr.rrba._marginals import (
        empirical_table,
        js_divergence,
        l2_counts,
    )
    from mpc_rr.rrba._privacy import (
        epsilon_cap,
        paper_epsilon,
        table_epsilon,
        view_epsilon,
    )
    from mpc_rr.rrba._protocol import (
        rrba_roles,
        run_distributed,
    )
    from mpc_rr.rrba._simulate import (
        RRBARun,
        client_seeds,
        rrba_simulator,
        run_rrba,
        run_tables,
    )
    from mpc_rr.rrba._spec import (
        RRBA,
    )
    from mpc_rr.rrba._stopping import (
        stable_from,
        tolerance,
    )
    from mpc_rr.rrba._tables import (
        WORKING_TABLES,
        SubsetIndex,
        collection_bytes,
    )
    from mpc_rr.rrba._views import (
        Cover,
        assign_views,
        cover,
        pair_cover,
    )
