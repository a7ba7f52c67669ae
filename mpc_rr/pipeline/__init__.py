"""The distributed RR-Clusters pipeline (Domingo-Ferrer & Soria-Comas, Sections 4-5).

Data parties ``1..n`` and an untrusted coordinator (party 0) run three phases:
dependences (4.1 RR per attribute, 4.2 exact counts by secure sum, or 4.3
pairwise RR by secure sum), a signed clustering broadcast (Algorithm 1), and
the clustered release with estimation and optional RR-Adjustment.
"""

from mpc_rr.pipeline.config import DEPENDENCE_SOURCES, MECHANISMS, PipelineConfig
from mpc_rr.pipeline.coordinator import Coordinator
from mpc_rr.pipeline.messages import PIPELINE_MESSAGES
from mpc_rr.pipeline.party import DataParty
from mpc_rr.pipeline.plan import PipelinePlan
from mpc_rr.pipeline.results import PartyOutcome, PipelineResult
from mpc_rr.pipeline.roles import pipeline_roles

__all__ = [
    "DEPENDENCE_SOURCES",
    "MECHANISMS",
    "PIPELINE_MESSAGES",
    "Coordinator",
    "DataParty",
    "PartyOutcome",
    "PipelineConfig",
    "PipelinePlan",
    "PipelineResult",
    "pipeline_roles",
]
