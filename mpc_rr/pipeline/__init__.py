"""The distributed RR-Clusters pipeline (Domingo-Ferrer & Soria-Comas, Sections 4-5).

Data parties ``1..n`` and an untrusted coordinator (party 0) run three phases:
dependences (4.1 RR per attribute, 4.2 exact counts by secure sum, or 4.3
pairwise RR by secure sum), a signed clustering broadcast (Algorithm 1), and
the clustered release with estimation and optional RR-Adjustment.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mpc_rr.core._lazy import lazy_exports

__all__ = [
    "PIPELINE",
    "Coordinator",
    "DataParty",
    "PipelineConfig",
    "PipelinePlan",
    "PipelineResult",
    "RandomizedRecord",
    "Release",
    "SignedClustering",
    "new_coordinator_key",
    "pipeline_roles",
]

_HOME = {
    "PipelineConfig": "mpc_rr.pipeline._config",
    "Coordinator": "mpc_rr.pipeline._coordinator",
    "new_coordinator_key": "mpc_rr.pipeline._deploy",
    "RandomizedRecord": "mpc_rr.pipeline._messages",
    "Release": "mpc_rr.pipeline._messages",
    "SignedClustering": "mpc_rr.pipeline._messages",
    "DataParty": "mpc_rr.pipeline._party",
    "PipelinePlan": "mpc_rr.pipeline._plan",
    "PipelineResult": "mpc_rr.pipeline._results",
    "pipeline_roles": "mpc_rr.pipeline._roles",
    "PIPELINE": "mpc_rr.pipeline._spec",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOME, globals())

if TYPE_CHECKING:
    from mpc_rr.pipeline._config import (
        PipelineConfig,
    )
    from mpc_rr.pipeline._coordinator import (
        Coordinator,
    )
    from mpc_rr.pipeline._deploy import (
        new_coordinator_key,
    )
    from mpc_rr.pipeline._messages import (
        RandomizedRecord,
        Release,
        SignedClustering,
    )
    from mpc_rr.pipeline._party import (
        DataParty,
    )
    from mpc_rr.pipeline._plan import (
        PipelinePlan,
    )
    from mpc_rr.pipeline._results import (
        PipelineResult,
    )
    from mpc_rr.pipeline._roles import (
        pipeline_roles,
    )
    from mpc_rr.pipeline._spec import (
        PIPELINE,
    )
