"""RRBA's distributed protocol as a registered protocol (import-light descriptor)."""

from __future__ import annotations

from mpc_rr.core import ProtocolSpec
from mpc_rr.core._registry import lazy

__all__ = ["RRBA"]

_DEPLOY = "mpc_rr.rrba._deploy"

RRBA = ProtocolSpec(
    "rrba",
    lazy(f"{_DEPLOY}:make_rrba_role"),
    lazy(f"{_DEPLOY}:outcome_to_json"),
    family="rrba",
    summary="RR block aggregation (Imran & Meo): one round per block, answers in the clear or "
    "summed securely",
    messages=lazy("mpc_rr.rrba._messages:rrba_messages"),
)
