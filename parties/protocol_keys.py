"""A deployment's protocol keys: what ``mpc-rr keys init`` writes beside the roster for the
protocols that need more than the parties' certificates, and what each party process reads.

A protocol that needs deployment secrets is a
:class:`~mpc_rr.secure_sum.DeploymentKeys` (``deployment_keys(folder) -> {"params", "files", "note"}``: it writes its key files in the
deployment's folder and returns the parameters every party runs with, the
names among them that are file paths relative to that folder, and a note on
where to copy which file).  :func:`write_protocol_keys` asks every such protocol
and records the answers in ``protocols.json``; :func:`protocol_params` gives a
party process its protocol's recorded parameters (paths resolved against the
roster's folder), which its own ``--params`` override.  Prio3's helper key
pair is the one user: a deployment of one process per party cannot draw it
per process (the clients must seal to the key party 1 holds).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mpc_rr.core import UsageError, protocols
from mpc_rr.secure_sum import DeploymentKeys

__all__ = ["PROTOCOLS_FILE", "protocol_params", "write_protocol_keys"]

PROTOCOLS_FILE = "protocols.json"
_VERSION = 1


def write_protocol_keys(folder: Path) -> list[str]:
    """Ask every protocol that needs deployment keys (:class:`~mpc_rr.secure_sum.DeploymentKeys`)
    to write them in ``folder``; record the parameters in ``folder/protocols.json``; return the
    protocols' notes (where to copy which file)."""
    entries: dict[str, Any] = {}
    for spec in protocols():
        if not isinstance(spec, DeploymentKeys):
            continue
        entry = spec.deployment_keys(Path(folder))
        entries[spec.name] = {"params": dict(entry["params"]), "files": list(entry.get("files", ()))}
        if entry.get("note"):
            entries[spec.name]["note"] = str(entry["note"])
    (Path(folder) / PROTOCOLS_FILE).write_text(json.dumps({"version": _VERSION, "protocols": entries}, indent=1))
    return [e["note"] for e in entries.values() if "note" in e]


def protocol_params(folder: Path, protocol: str) -> dict[str, Any]:
    """``protocol``'s recorded deployment parameters (``{}`` without a ``protocols.json`` or an
    entry), file parameters as paths in ``folder``."""
    path = Path(folder) / PROTOCOLS_FILE
    if not path.exists():
        return {}
    try:
        doc = json.loads(path.read_text())
        entry = doc["protocols"].get(protocol)
    except (OSError, ValueError, KeyError, AttributeError, TypeError) as exc:
        raise UsageError(f"{path}: not a deployment's protocol keys ({type(exc).__name__}: {exc})") from None
    if entry is None:
        return {}
    params = dict(entry.get("params", {}))
    for name in entry.get("files", []):
        if isinstance(params.get(name), str):
            params[name] = str(Path(folder) / params[name])
    return params
