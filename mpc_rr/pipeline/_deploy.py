"""The pipeline as one OS process per party (``mpc-rr party --protocol pipeline``).

A deployment differs from a simulation in two ways:

* each data party holds **only its own record**: party ``i`` reads line
  ``row_offset + i - 1`` of an Adult-format file and keeps nothing else;
* each data party draws its randomized-response noise from a **CSPRNG**
  (:func:`mpc_rr.core.csprng_generator`); the scenario seed plays no
  part in it, so two deployments with the same seed release different noise.

Parameters (``--params`` JSON, the same for every party):

``coordinator_key``  hex of the coordinator's raw Ed25519 public key (required)
``signing_key``      party 0 only: path of the coordinator's raw 32-byte private key
``data``             Adult-format file (default: the shipped ``adult.data``)
``row_offset``       first record used (default 0)
``run``, ``p``, ``tv``, ``td``, ``dependence``, ``mechanism``, ``estimator``,
``adjust_iterations``, ``min_parties``, ``sum_protocol``  as in
:class:`~mpc_rr.pipeline.PipelineConfig`
``sum_options``      the dependence sum's options (a JSON object, e.g. ``{"degree": 40}``)
``dp_epsilon``, ``dp_delta``  Skellam noise in the secure-sum dependence (deployed parties draw
                     it from their ChaCha20 generator keyed by the OS)
"""

from __future__ import annotations

import csv
import itertools
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from mpc_rr.core import COORDINATOR, Role, UsageError, csprng_generator
from mpc_rr.data import ADULT_SCHEMA, data_file
from mpc_rr.data._datasets import ADULT_COLUMNS
from mpc_rr.pipeline import _signing as signing
from mpc_rr.pipeline._config import PipelineConfig
from mpc_rr.pipeline._coordinator import Coordinator
from mpc_rr.pipeline._party import DataParty
from mpc_rr.pipeline._results import PartyOutcome, PipelineResult

__all__ = ["adult_record", "make_pipeline_role", "new_coordinator_key", "pipeline_result_to_json"]

_CONFIG_KEYS = {
    "p": float, "tv": int, "td": float, "dependence": str, "mechanism": str, "estimator": str,
    "adjust_iterations": int, "min_parties": int, "sum_protocol": str,
    "dp_epsilon": float, "dp_delta": float,
}  # fmt: skip
_KNOWN = set(_CONFIG_KEYS) | {"coordinator_key", "signing_key", "data", "row_offset", "run", "sum_options"}


def adult_record(path: Path, row: int) -> np.ndarray:
    """Record ``row`` (0-based, blank lines skipped) of an Adult-format file, encoded.

    Streams the file and keeps only that line: the party never holds the others.
    """
    if row < 0:
        raise UsageError(f"row must be >= 0, got {row}")
    try:
        with path.open(newline="", encoding="utf-8") as fh:
            lines = (r for r in csv.reader(fh, skipinitialspace=True) if any(f.strip() for f in r))
            fields = next(itertools.islice(lines, row, None), None)
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {path}: {exc}") from None
    if fields is None:
        raise UsageError(f"{path} has no record {row}")
    if len(fields) != len(ADULT_COLUMNS):
        raise UsageError(f"{path} record {row}: {len(fields)} fields, Adult has {len(ADULT_COLUMNS)}")
    by_name = dict(zip(ADULT_COLUMNS, (f.strip().rstrip(".") for f in fields), strict=True))
    codes = []
    for attr in ADULT_SCHEMA.attributes:
        try:
            codes.append(attr.categories.index(by_name[attr.name]))
        except ValueError:
            raise UsageError(
                f"{path} record {row}: {attr.name} = {by_name[attr.name]!r} is not a known category"
            ) from None
    return np.asarray(codes, np.int64)


def _config(n: int, seed: int, params: Mapping[str, Any]) -> PipelineConfig:
    unknown = sorted(set(params) - _KNOWN)
    if unknown:
        raise UsageError(f"pipeline params: unknown keys {unknown}; known: {sorted(_KNOWN)}")
    key_hex = params.get("coordinator_key")
    if not isinstance(key_hex, str):
        raise UsageError("pipeline params: coordinator_key (hex of the raw Ed25519 public key) is required")
    try:
        key = bytes.fromhex(key_hex)
    except ValueError:
        raise UsageError("pipeline params: coordinator_key is not hex") from None
    opts: dict[str, Any] = {}
    for k, kind in _CONFIG_KEYS.items():
        if k in params:
            v = params[k]
            if kind is float and isinstance(v, int) and not isinstance(v, bool):
                v = float(v)
            if not isinstance(v, kind) or isinstance(v, bool):
                raise UsageError(f"pipeline params: {k} must be a {kind.__name__}, got {v!r}")
            opts[k] = v
    sum_opts = params.get("sum_options", {})
    if not isinstance(sum_opts, Mapping):
        raise UsageError(f"pipeline params: sum_options must be a JSON object, got {sum_opts!r}")
    return PipelineConfig(
        schema=ADULT_SCHEMA, n=n, coordinator_key=key,
        run=str(params.get("run", f"pipeline-{seed}")), sum_options=dict(sum_opts), **opts,
    )  # fmt: skip


def make_pipeline_role(party_id: int, n_parties: int, seed: int, params: Mapping[str, Any]) -> Role:
    """Party ``party_id``'s pipeline role in a deployment of ``n_parties`` (party 0 included)."""
    cfg = _config(n_parties - 1, seed, params)
    if party_id == COORDINATOR:
        path = params.get("signing_key")
        if not isinstance(path, str):
            raise UsageError("pipeline params: signing_key (path of the coordinator's key) is required for party 0")
        try:
            raw = Path(path).read_bytes()
        except OSError as exc:
            raise UsageError(f"cannot read signing key {path}: {exc.strerror or exc}") from None
        if len(raw) != 32:
            raise UsageError(f"signing key {path}: expected 32 raw bytes, got {len(raw)}")
        return Coordinator(cfg, signing.new_signing_key(raw))
    data = Path(params["data"]) if "data" in params else data_file("adult.data")
    offset = params.get("row_offset", 0)
    if not isinstance(offset, int) or offset < 0:
        raise UsageError(f"pipeline params: row_offset must be an integer >= 0, got {offset!r}")
    record = adult_record(data, offset + party_id - 1)
    return DataParty(party_id, cfg, record, csprng_generator())


def pipeline_result_to_json(result: Any) -> Any:
    """The JSON form of a coordinator's or a data party's outcome."""
    if isinstance(result, PartyOutcome):
        return {
            "clusters": [list(c) for c in result.clusters],
            "epsilon_dependence": _finite(result.epsilon_dependence),
            "epsilon_release": result.epsilon_release,
        }
    if isinstance(result, PipelineResult):
        names = result.config.schema.names
        return {
            "clusters": result.clustering.names(names),
            "parties_dependence": len(result.parties_dependence),
            "parties_release": list(result.parties_release),
            "randomized": None if result.randomized is None else result.randomized.tolist(),
            "epsilon": {k: _finite(v) for k, v in result.epsilon.items()},
            "estimates": [np.asarray(e.distribution).tolist() for e in result.estimates],
        }
    return result


def _finite(v: float) -> float | None:
    return None if math.isinf(v) else v


def new_coordinator_key(path: Path) -> str:
    """Write a fresh raw Ed25519 private key to ``path`` (mode 0600); return the public hex."""
    key = Ed25519PrivateKey.generate()
    raw = key.private_bytes_raw()
    path.write_bytes(raw)
    path.chmod(0o600)
    return signing.public_bytes(key).hex()

