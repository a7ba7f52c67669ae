"""RRBA: Randomized Response Block Aggregation (Imran & Meo), pure and vectorized.

Modules, one job each:

* :mod:`~mpc_rr.rrba.views` -- covers of the attribute subsets by views (Sec. 4);
* :mod:`~mpc_rr.rrba.tables` -- packed per-subset tables, records -> cells;
* :mod:`~mpc_rr.rrba.client` -- a client's answers (Algorithm 1, Eq. 3);
* :mod:`~mpc_rr.rrba.update` -- Eq. 4, the pooled estimator, repairs, floor;
* :mod:`~mpc_rr.rrba.stopping` -- the block stopping rule (Sec. 5);
* :mod:`~mpc_rr.rrba.aggregator` -- the aggregator's state: block counts in,
  tables and stopping status out;
* :mod:`~mpc_rr.rrba.privacy` -- true epsilon vs the paper's ln(1/(1-p));
* :mod:`~mpc_rr.rrba.consistency` -- consistent 3-/4-way marginals (Sec. 4.3 QP);
* :mod:`~mpc_rr.rrba.independence` -- the two-step MLE test (Sec. 6, 7.3);
* :mod:`~mpc_rr.rrba.marginals` -- empirical tables, l2 and Jensen-Shannon;
* :mod:`~mpc_rr.rrba.collection` -- the aggregator's bookkeeping of a run, block
  by block (shared by the centralized engine and the Aggregator role);
* :mod:`~mpc_rr.rrba.simulate` -- centralized engines built from the above;
* :mod:`~mpc_rr.rrba.protocol` -- the distributed protocol: public parameters
  (:mod:`~mpc_rr.rrba.config`), messages (:mod:`~mpc_rr.rrba.messages`), the
  Aggregator (:mod:`~mpc_rr.rrba.aggregator_role`) and Client
  (:mod:`~mpc_rr.rrba.client_role`) roles, optionally with SecAgg+ block
  tallies; one OS process per party: :mod:`~mpc_rr.rrba.deploy`.

What the roles call: the Client role :func:`answer_packed` (the arithmetic
of :func:`client_answer`); the Aggregator role a :class:`Collection`
(:func:`assign_views` and :class:`BlockAggregator` underneath) and
:func:`tally` -- or a secure sum of one-hot answers.
"""

from mpc_rr.rrba.aggregator import ESTIMATORS, STOPS, BlockAggregator, BlockReport, tally
from mpc_rr.rrba.aggregator_role import AggState, RRBAAggregator
from mpc_rr.rrba.client import answer_packed, answers_from_uniforms, cdf_table, client_answer
from mpc_rr.rrba.client_role import ClientOutcome, ClientState, RRBAClient
from mpc_rr.rrba.collection import BlockPlan, BlockRecord, Collection, RRBAOutcome
from mpc_rr.rrba.config import RRBAConfig
from mpc_rr.rrba.consistency import SOLVERS, Marginal, reconstruct
from mpc_rr.rrba.independence import (
    IndependenceTest,
    chi2_independence,
    elastic_fit,
    independence_test,
)
from mpc_rr.rrba.marginals import empirical_table, js_divergence, l2_counts
from mpc_rr.rrba.messages import RRBA_MESSAGES, Answer, AskBlock, Dismiss
from mpc_rr.rrba.privacy import (
    epsilon_cap,
    implied_matrix,
    paper_epsilon,
    table_epsilon,
    view_epsilon,
)
from mpc_rr.rrba.protocol import (
    DistributedRun,
    client_step_timeouts,
    config_for,
    rrba_roles,
    run_distributed,
)
from mpc_rr.rrba.simulate import (
    RRBARun,
    TableRuns,
    assemble,
    rrba_simulator,
    run_rrba,
    run_tables,
)
from mpc_rr.rrba.stopping import holds, stable_from, tolerance
from mpc_rr.rrba.tables import Layout, SubsetIndex
from mpc_rr.rrba.update import REPAIRS, apply_floor, eq4, pooled, repair
from mpc_rr.rrba.views import Cover, assign_views, cover, pair_cover

__all__ = [
    "ESTIMATORS",
    "REPAIRS",
    "RRBA_MESSAGES",
    "SOLVERS",
    "STOPS",
    "AggState",
    "Answer",
    "AskBlock",
    "BlockAggregator",
    "BlockPlan",
    "BlockRecord",
    "BlockReport",
    "ClientOutcome",
    "ClientState",
    "Collection",
    "Cover",
    "Dismiss",
    "DistributedRun",
    "IndependenceTest",
    "Layout",
    "Marginal",
    "RRBAAggregator",
    "RRBAClient",
    "RRBAConfig",
    "RRBAOutcome",
    "RRBARun",
    "SubsetIndex",
    "TableRuns",
    "answer_packed",
    "answers_from_uniforms",
    "apply_floor",
    "assemble",
    "assign_views",
    "cdf_table",
    "chi2_independence",
    "client_answer",
    "client_step_timeouts",
    "config_for",
    "cover",
    "elastic_fit",
    "empirical_table",
    "epsilon_cap",
    "eq4",
    "holds",
    "implied_matrix",
    "independence_test",
    "js_divergence",
    "l2_counts",
    "pair_cover",
    "paper_epsilon",
    "pooled",
    "reconstruct",
    "repair",
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
