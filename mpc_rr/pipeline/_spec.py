"""The distributed pipeline as a registered protocol (import-light descriptor)."""

from __future__ import annotations

from mpc_rr.core import ProtocolSpec
from mpc_rr.core._registry import lazy

__all__ = ["PIPELINE"]

_DEPLOY = "mpc_rr.pipeline._deploy"

PIPELINE = ProtocolSpec(
    "pipeline",
    lazy(f"{_DEPLOY}:make_pipeline_role"),
    lazy(f"{_DEPLOY}:pipeline_result_to_json"),
    family="pipeline",
    summary="the distributed RR-Clusters pipeline (Domingo-Ferrer & Soria-Comas, Sec. 4-5): "
    "dependences, signed clustering broadcast, clustered release",
    steps=("record", "release"),
    messages=lazy("mpc_rr.pipeline._messages:pipeline_messages"),
)
