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

from mpc_rr.core import lazy_exports

__all__ = [
    "AUTO_CELLS",
    "CELL_DTYPE",
    "CLIENT_RNG",
    "ESTIMATORS",
    "MAX_ASK_CELLS",
    "MAX_ATTRIBUTES",
    "MAX_ROWS",
    "MAX_SUBSET",
    "MAX_SUBSETS",
    "MAX_VIEW",
    "REPAIRS",
    "RRBA",
    "RRBA_MESSAGES",
    "SOLVERS",
    "STOPS",
    "WORKING_TABLES",
    "AggState",
    "Answer",
    "AskBlock",
    "BlockAggregator",
    "BlockPlan",
    "BlockProgress",
    "BlockRecord",
    "BlockReport",
    "CheckedAsk",
    "ClientOutcome",
    "ClientState",
    "Collection",
    "Cover",
    "Dismiss",
    "DistributedRun",
    "FitReport",
    "IndependenceTest",
    "Layout",
    "Marginal",
    "MarginalBlocks",
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
    "check_alpha",
    "check_ask",
    "check_exact",
    "check_floor",
    "check_p",
    "chi2_independence",
    "client_answer",
    "client_seeds",
    "client_step_timeouts",
    "collection_bytes",
    "config_for",
    "cover",
    "csv_record",
    "distinct_marginals",
    "dropout_totals",
    "elastic_fit",
    "empirical_table",
    "empirical_tables",
    "epsilon_cap",
    "eq4",
    "fit_consistent",
    "holds",
    "implied_matrix",
    "independence_test",
    "js_divergence",
    "l2_counts",
    "make_rrba_role",
    "marginal_constraints",
    "marginal_operator",
    "marginal_rows",
    "outcome_to_json",
    "pair_cover",
    "paper_epsilon",
    "pooled",
    "rank_threshold",
    "read_cells",
    "reconstruct",
    "repair",
    "rrba_roles",
    "rrba_simulator",
    "run_distributed",
    "run_rrba",
    "run_tables",
    "seed_parts",
    "solve_simplex_qp",
    "stable_from",
    "table_epsilon",
    "tally",
    "tolerance",
    "view_epsilon",
    "wire_cells",
]

_HOME = {
    "AUTO_CELLS": "mpc_rr.rrba._consistency",
    "AggState": "mpc_rr.rrba._aggregator_role",
    "Answer": "mpc_rr.rrba._messages",
    "AskBlock": "mpc_rr.rrba._messages",
    "BlockAggregator": "mpc_rr.rrba._aggregator",
    "BlockPlan": "mpc_rr.rrba._collection",
    "BlockProgress": "mpc_rr.rrba._aggregator_role",
    "BlockRecord": "mpc_rr.rrba._collection",
    "BlockReport": "mpc_rr.rrba._aggregator",
    "CELL_DTYPE": "mpc_rr.rrba._messages",
    "CLIENT_RNG": "mpc_rr.rrba._choices",
    "CheckedAsk": "mpc_rr.rrba._client_role",
    "ClientOutcome": "mpc_rr.rrba._client_role",
    "ClientState": "mpc_rr.rrba._client_role",
    "Collection": "mpc_rr.rrba._collection",
    "Cover": "mpc_rr.rrba._views",
    "Dismiss": "mpc_rr.rrba._messages",
    "DistributedRun": "mpc_rr.rrba._protocol",
    "ESTIMATORS": "mpc_rr.rrba._choices",
    "FitReport": "mpc_rr.rrba._marginal_ipm",
    "IndependenceTest": "mpc_rr.rrba._independence",
    "Layout": "mpc_rr.rrba._tables",
    "MAX_ASK_CELLS": "mpc_rr.rrba._messages",
    "MAX_ATTRIBUTES": "mpc_rr.rrba._messages",
    "MAX_SUBSET": "mpc_rr.rrba._messages",
    "MAX_ROWS": "mpc_rr.rrba._consistency",
    "MAX_SUBSETS": "mpc_rr.rrba._views",
    "MAX_VIEW": "mpc_rr.rrba._messages",
    "Marginal": "mpc_rr.rrba._consistency",
    "MarginalBlocks": "mpc_rr.rrba._marginal_ipm",
    "REPAIRS": "mpc_rr.rrba._choices",
    "RRBA": "mpc_rr.rrba._spec",
    "RRBAAggregator": "mpc_rr.rrba._aggregator_role",
    "RRBAClient": "mpc_rr.rrba._client_role",
    "RRBAConfig": "mpc_rr.rrba._config",
    "RRBAOutcome": "mpc_rr.rrba._collection",
    "RRBARun": "mpc_rr.rrba._simulate",
    "RRBA_MESSAGES": "mpc_rr.rrba._messages",
    "SOLVERS": "mpc_rr.rrba._consistency",
    "STOPS": "mpc_rr.rrba._choices",
    "SubsetIndex": "mpc_rr.rrba._tables",
    "TableRuns": "mpc_rr.rrba._simulate",
    "WORKING_TABLES": "mpc_rr.rrba._tables",
    "answer_packed": "mpc_rr.rrba._client",
    "answers_from_uniforms": "mpc_rr.rrba._client",
    "apply_floor": "mpc_rr.rrba._update",
    "assemble": "mpc_rr.rrba._simulate",
    "assign_views": "mpc_rr.rrba._views",
    "cdf_table": "mpc_rr.rrba._client",
    "check_alpha": "mpc_rr.rrba._stopping",
    "check_ask": "mpc_rr.rrba._client_role",
    "check_exact": "mpc_rr.rrba._views",
    "check_floor": "mpc_rr.rrba._update",
    "check_p": "mpc_rr.rrba._client",
    "chi2_independence": "mpc_rr.rrba._independence",
    "client_answer": "mpc_rr.rrba._client",
    "client_seeds": "mpc_rr.rrba._simulate",
    "client_step_timeouts": "mpc_rr.rrba._protocol",
    "collection_bytes": "mpc_rr.rrba._tables",
    "config_for": "mpc_rr.rrba._protocol",
    "cover": "mpc_rr.rrba._views",
    "csv_record": "mpc_rr.rrba._deploy",
    "distinct_marginals": "mpc_rr.rrba._marginal_ipm",
    "dropout_totals": "mpc_rr.rrba._collection",
    "elastic_fit": "mpc_rr.rrba._independence",
    "empirical_table": "mpc_rr.rrba._marginals",
    "empirical_tables": "mpc_rr.rrba._marginals",
    "epsilon_cap": "mpc_rr.rrba._privacy",
    "eq4": "mpc_rr.rrba._update",
    "fit_consistent": "mpc_rr.rrba._marginal_ipm",
    "holds": "mpc_rr.rrba._stopping",
    "implied_matrix": "mpc_rr.rrba._privacy",
    "independence_test": "mpc_rr.rrba._independence",
    "js_divergence": "mpc_rr.rrba._marginals",
    "l2_counts": "mpc_rr.rrba._marginals",
    "make_rrba_role": "mpc_rr.rrba._deploy",
    "marginal_constraints": "mpc_rr.rrba._consistency",
    "marginal_operator": "mpc_rr.rrba._consistency",
    "marginal_rows": "mpc_rr.rrba._consistency",
    "outcome_to_json": "mpc_rr.rrba._deploy",
    "pair_cover": "mpc_rr.rrba._views",
    "paper_epsilon": "mpc_rr.rrba._privacy",
    "pooled": "mpc_rr.rrba._update",
    "rank_threshold": "mpc_rr.rrba._independence",
    "read_cells": "mpc_rr.rrba._messages",
    "reconstruct": "mpc_rr.rrba._consistency",
    "repair": "mpc_rr.rrba._update",
    "rrba_roles": "mpc_rr.rrba._protocol",
    "rrba_simulator": "mpc_rr.rrba._simulate",
    "run_distributed": "mpc_rr.rrba._protocol",
    "run_rrba": "mpc_rr.rrba._simulate",
    "run_tables": "mpc_rr.rrba._simulate",
    "seed_parts": "mpc_rr.rrba._simulate",
    "solve_simplex_qp": "mpc_rr.rrba._consistency",
    "stable_from": "mpc_rr.rrba._stopping",
    "table_epsilon": "mpc_rr.rrba._privacy",
    "tally": "mpc_rr.rrba._aggregator",
    "tolerance": "mpc_rr.rrba._stopping",
    "view_epsilon": "mpc_rr.rrba._privacy",
    "wire_cells": "mpc_rr.rrba._messages",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOME, globals())

if TYPE_CHECKING:
    from mpc_rr.rrba._aggregator import (
        BlockAggregator,
        BlockReport,
        tally,
    )
    from mpc_rr.rrba._aggregator_role import (
        AggState,
        BlockProgress,
        RRBAAggregator,
    )
    from mpc_rr.rrba._choices import (
        CLIENT_RNG,
        ESTIMATORS,
        REPAIRS,
        STOPS,
    )
    from mpc_rr.rrba._client import (
        answer_packed,
        answers_from_uniforms,
        cdf_table,
        check_p,
        client_answer,
    )
    from mpc_rr.rrba._client_role import (
        CheckedAsk,
        ClientOutcome,
        ClientState,
        RRBAClient,
        check_ask,
    )
    from mpc_rr.rrba._collection import (
        BlockPlan,
        BlockRecord,
        Collection,
        RRBAOutcome,
        dropout_totals,
    )
    from mpc_rr.rrba._config import (
        RRBAConfig,
    )
    from mpc_rr.rrba._consistency import (
        AUTO_CELLS,
        MAX_ROWS,
        SOLVERS,
        Marginal,
        marginal_constraints,
        marginal_operator,
        marginal_rows,
        reconstruct,
        solve_simplex_qp,
    )
    from mpc_rr.rrba._deploy import (
        csv_record,
        make_rrba_role,
        outcome_to_json,
    )
    from mpc_rr.rrba._independence import (
        IndependenceTest,
        chi2_independence,
        elastic_fit,
        independence_test,
        rank_threshold,
    )
    from mpc_rr.rrba._marginal_ipm import (
        FitReport,
        MarginalBlocks,
        distinct_marginals,
        fit_consistent,
    )
    from mpc_rr.rrba._marginals import (
        empirical_table,
        empirical_tables,
        js_divergence,
        l2_counts,
    )
    from mpc_rr.rrba._messages import (
        CELL_DTYPE,
        MAX_ASK_CELLS,
        MAX_ATTRIBUTES,
        MAX_SUBSET,
        MAX_VIEW,
        RRBA_MESSAGES,
        Answer,
        AskBlock,
        Dismiss,
        read_cells,
        wire_cells,
    )
    from mpc_rr.rrba._privacy import (
        epsilon_cap,
        implied_matrix,
        paper_epsilon,
        table_epsilon,
        view_epsilon,
    )
    from mpc_rr.rrba._protocol import (
        DistributedRun,
        client_step_timeouts,
        config_for,
        rrba_roles,
        run_distributed,
    )
    from mpc_rr.rrba._simulate import (
        RRBARun,
        TableRuns,
        assemble,
        client_seeds,
        rrba_simulator,
        run_rrba,
        run_tables,
        seed_parts,
    )
    from mpc_rr.rrba._spec import (
        RRBA,
    )
    from mpc_rr.rrba._stopping import (
        check_alpha,
        holds,
        stable_from,
        tolerance,
    )
    from mpc_rr.rrba._tables import (
        WORKING_TABLES,
        Layout,
        SubsetIndex,
        collection_bytes,
    )
    from mpc_rr.rrba._update import (
        apply_floor,
        check_floor,
        eq4,
        pooled,
        repair,
    )
    from mpc_rr.rrba._views import (
        MAX_SUBSETS,
        Cover,
        assign_views,
        check_exact,
        cover,
        pair_cover,
    )
