"""The distributed RR-Clusters pipeline (Domingo-Ferrer & Soria-Comas, Sections 4-5).

Data parties ``1..n`` and an untrusted coordinator (party 0) run three phases:
dependences (4.1 RR per attribute, 4.2 exact counts by secure sum, or 4.3
pairwise RR by secure sum), a signed clustering broadcast (Algorithm 1), and
the clustered release with estimation and optional RR-Adjustment.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mpc_rr.core import lazy_exports

__all__ = [
    "DEPENDENCE_SOURCES",
    "MECHANISMS",
    "PIPELINE",
    "PIPELINE_MESSAGES",
    "CoordState",
    "Coordinator",
    "CoordinatorShard",
    "CoordinatorTally",
    "DataParty",
    "PartyOutcome",
    "PartyState",
    "PipelineConfig",
    "PipelinePlan",
    "PipelineResult",
    "Progress",
    "RandomizedRecord",
    "RecordRows",
    "Release",
    "SignedClustering",
    "TallyParts",
    "adult_record",
    "clustering_payload",
    "dependence_input",
    "dependence_public",
    "dependence_role",
    "dependence_sum",
    "dependences_from_aggregate",
    "epsilons",
    "local_clustering",
    "make_pipeline_role",
    "new_coordinator_key",
    "new_signing_key",
    "noisy_counts",
    "pipeline_result_to_json",
    "pipeline_roles",
    "public_bytes",
    "read_codes",
    "read_record",
    "read_tally",
    "sign",
    "signing",
    "verify",
    "wire_record",
]

_HOME = {
    "CoordState": "mpc_rr.pipeline._coordinator",
    "Coordinator": "mpc_rr.pipeline._coordinator",
    "CoordinatorShard": "mpc_rr.pipeline._split",
    "CoordinatorTally": "mpc_rr.pipeline._split",
    "DEPENDENCE_SOURCES": "mpc_rr.pipeline._config",
    "DataParty": "mpc_rr.pipeline._party",
    "MECHANISMS": "mpc_rr.pipeline._config",
    "PIPELINE": "mpc_rr.pipeline._spec",
    "PIPELINE_MESSAGES": "mpc_rr.pipeline._messages",
    "PartyOutcome": "mpc_rr.pipeline._results",
    "PartyState": "mpc_rr.pipeline._party",
    "PipelineConfig": "mpc_rr.pipeline._config",
    "PipelinePlan": "mpc_rr.pipeline._plan",
    "PipelineResult": "mpc_rr.pipeline._results",
    "Progress": "mpc_rr.pipeline._coordinator",
    "RandomizedRecord": "mpc_rr.pipeline._messages",
    "RecordRows": "mpc_rr.pipeline._messages",
    "Release": "mpc_rr.pipeline._messages",
    "SignedClustering": "mpc_rr.pipeline._messages",
    "TallyParts": "mpc_rr.pipeline._split",
    "adult_record": "mpc_rr.pipeline._deploy",
    "clustering_payload": "mpc_rr.pipeline._signing",
    "dependence_input": "mpc_rr.pipeline._dependence",
    "dependence_public": "mpc_rr.pipeline._dependence",
    "dependence_role": "mpc_rr.pipeline._dependence",
    "dependence_sum": "mpc_rr.pipeline._dependence",
    "dependences_from_aggregate": "mpc_rr.pipeline._dependence",
    "epsilons": "mpc_rr.pipeline._results",
    "local_clustering": "mpc_rr.pipeline._dependence",
    "noisy_counts": "mpc_rr.pipeline._dependence",
    "make_pipeline_role": "mpc_rr.pipeline._deploy",
    "new_coordinator_key": "mpc_rr.pipeline._deploy",
    "new_signing_key": "mpc_rr.pipeline._signing",
    "pipeline_result_to_json": "mpc_rr.pipeline._deploy",
    "pipeline_roles": "mpc_rr.pipeline._roles",
    "public_bytes": "mpc_rr.pipeline._signing",
    "read_codes": "mpc_rr.pipeline._messages",
    "read_record": "mpc_rr.pipeline._messages",
    "read_tally": "mpc_rr.pipeline._split",
    "sign": "mpc_rr.pipeline._signing",
    "signing": "mpc_rr.pipeline._signing:module",
    "verify": "mpc_rr.pipeline._signing",
    "wire_record": "mpc_rr.pipeline._messages",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOME, globals())

if TYPE_CHECKING:
    from mpc_rr.pipeline import (
        _signing as signing,
    )
    from mpc_rr.pipeline._config import (
        DEPENDENCE_SOURCES,
        MECHANISMS,
        PipelineConfig,
    )
    from mpc_rr.pipeline._coordinator import (
        Coordinator,
        CoordState,
        Progress,
    )
    from mpc_rr.pipeline._dependence import (
        dependence_input,
        dependence_public,
        dependence_role,
        dependence_sum,
        dependences_from_aggregate,
        local_clustering,
        noisy_counts,
    )
    from mpc_rr.pipeline._deploy import (
        adult_record,
        make_pipeline_role,
        new_coordinator_key,
        pipeline_result_to_json,
    )
    from mpc_rr.pipeline._messages import (
        PIPELINE_MESSAGES,
        RandomizedRecord,
        RecordRows,
        Release,
        SignedClustering,
        read_codes,
        read_record,
        wire_record,
    )
    from mpc_rr.pipeline._party import (
        DataParty,
        PartyState,
    )
    from mpc_rr.pipeline._plan import (
        PipelinePlan,
    )
    from mpc_rr.pipeline._results import (
        PartyOutcome,
        PipelineResult,
        epsilons,
    )
    from mpc_rr.pipeline._roles import (
        pipeline_roles,
    )
    from mpc_rr.pipeline._signing import (
        clustering_payload,
        new_signing_key,
        public_bytes,
        sign,
        verify,
    )
    from mpc_rr.pipeline._spec import (
        PIPELINE,
    )
    from mpc_rr.pipeline._split import (
        CoordinatorShard,
        CoordinatorTally,
        TallyParts,
        read_tally,
    )
