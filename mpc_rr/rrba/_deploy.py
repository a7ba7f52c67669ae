"""RRBA as one OS process per party (``mpc-rr party --protocol rrba``).

A deployed client differs from a simulated one in two ways, as in :mod:`mpc_rr.pipeline._deploy`:

* it holds **only its own record**: client ``i`` reads record
  ``row_offset + i - 1`` of a CSV file and keeps nothing else;
* it draws its randomized-response noise from a **CSPRNG**
  (:func:`mpc_rr.core.csprng_generator`); the scenario seed plays no
  part in it.  ``noise = "seeded"`` instead makes a *simulation* in
  processes: client ``i`` draws from child ``i - 1`` of the seed's client
  generator, exactly as :func:`~mpc_rr.rrba.run_rrba` does, and
  every result says so.

The aggregator draws the view assignment from the scenario seed (the
assignment is public and not secret); it never reads the data.

Parameters (``--params`` JSON, the same for every party):

``schema``      a network name (``survey``, ``alarm``, ``child``, ...: attributes
                and categories of its ``.bif``) or a TOML schema file (required)
``data``        clients: a CSV file with a header naming the schema's attributes
                (default for a network: the shipped ``<name>_10000.csv``)
``row_offset``  first record used (default 0)
``block``, ``p`` (required); ``k``, ``estimator``, ``repair``, ``alpha``,
``t_floor``, ``stop``, ``min_blocks``, ``run``, ``secure_tally``,
``sum_protocol``  as in :class:`~mpc_rr.rrba.RRBAConfig`
``sum_options`` the secure tally's sum options (a JSON object, e.g. ``{"max_dropout": 0.2}``)
``dp_epsilon``, ``dp_delta``  distributed noise in the secure tally (each client draws its
                share from its generator: the OS CSPRNG by default)
``noise``       ``"csprng"`` (default) or ``"seeded"`` (see above)
"""

from __future__ import annotations

import csv
import itertools
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from mpc_rr.core import COORDINATOR, Role, UsageError, csprng_generator
from mpc_rr.core._randomness import noise_source
from mpc_rr.data import Schema
from mpc_rr.rrba._aggregator_role import RRBAAggregator
from mpc_rr.rrba._client_role import ClientOutcome, RRBAClient
from mpc_rr.rrba._collection import RRBAOutcome
from mpc_rr.rrba._config import RRBAConfig
from mpc_rr.rrba._simulate import client_seeds, seed_parts

__all__ = ["csv_record", "make_rrba_role", "outcome_to_json"]

NOISES = ("csprng", "seeded")

_TYPES: dict[str, type | tuple[type, ...]] = {
    "block": int, "p": (int, float), "k": int, "estimator": str, "repair": str,
    "alpha": (int, float), "t_floor": (int, float), "stop": str, "min_blocks": int, "run": str,
    "secure_tally": bool, "sum_protocol": str, "sum_options": dict,
    "dp_epsilon": (int, float), "dp_delta": (int, float),
}  # fmt: skip
_KNOWN = set(_TYPES) | {"schema", "data", "row_offset", "noise"}


def _schema(spec: object) -> Schema:
    from mpc_rr.data import NETWORKS, load_network

    if not isinstance(spec, str) or not spec:
        raise UsageError("rrba params: schema (a network name or a TOML schema file) is required")
    if spec in NETWORKS:
        return load_network(spec).schema
    from mpc_rr.data import load_schema

    return load_schema(spec)


def csv_record(path: Path, schema: Schema, row: int) -> np.ndarray:
    """Record ``row`` (0-based after the header, blank lines skipped) of a CSV file, encoded.

    Streams the file and keeps only that line: the party never holds the others.
    """
    if row < 0:
        raise UsageError(f"row must be >= 0, got {row}")
    try:
        with path.open(newline="", encoding="utf-8-sig") as fh:
            lines = (r for r in csv.reader(fh) if any(f.strip() for f in r))
            header = [h.strip() for h in next(lines, [])]
            fields = next(itertools.islice(lines, row, None), None)
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise UsageError(f"cannot read {path}: {exc}") from None
    missing = [n for n in schema.names if n not in header]
    if missing:
        raise UsageError(f"{path}: header {header[:10]} lacks the schema's attributes {missing}")
    if fields is None:
        raise UsageError(f"{path} has no record {row}")
    if len(fields) != len(header):
        raise UsageError(f"{path} record {row}: {len(fields)} fields, the header has {len(header)}")
    codes = []
    for attr in schema.attributes:
        value = fields[header.index(attr.name)].strip()
        try:
            codes.append(attr.categories.index(value))
        except ValueError:
            raise UsageError(
                f"{path} record {row}: {attr.name} = {value!r} is not one of its categories "
                f"{list(attr.categories)[:10]}"
            ) from None
    return np.asarray(codes, np.int64)


def _config(n_clients: int, seed: int, params: Mapping[str, Any], schema: Schema) -> RRBAConfig:
    unknown = sorted(set(params) - _KNOWN)
    if unknown:
        raise UsageError(f"rrba params: unknown keys {unknown}; known: {sorted(_KNOWN)}")
    opts: dict[str, Any] = {}
    for k, kind in _TYPES.items():
        if k in params:
            v = params[k]
            if isinstance(v, bool) != (kind is bool) or not isinstance(v, kind):
                raise UsageError(f"rrba params: {k} has the wrong type, got {v!r}")
            opts[k] = v
    for k in ("block", "p"):
        if k not in opts:
            raise UsageError(f"rrba params: {k} is required")
    opts.setdefault("run", f"rrba-{seed}")
    return RRBAConfig(tuple(schema.sizes), n_clients, **opts)


def make_rrba_role(party_id: int, n_parties: int, seed: int, params: Mapping[str, Any]) -> Role:
    """Party ``party_id``'s RRBA role in a deployment of ``n_parties`` (party 0 included)."""
    schema = _schema(params.get("schema"))
    cfg = _config(n_parties - 1, seed, params, schema)
    noise = params.get("noise", "csprng")
    if noise not in NOISES:
        raise UsageError(f"rrba params: noise must be one of {NOISES}, got {noise!r}")
    agg_ss, client_ss = seed_parts(seed)
    if party_id == COORDINATOR:
        return RRBAAggregator(cfg, np.random.default_rng(agg_ss))
    spec = params.get("schema")
    if "data" in params:
        data = Path(str(params["data"]))
    else:
        from mpc_rr.data import NETWORKS, data_file

        if spec not in NETWORKS:
            raise UsageError("rrba params: data (the clients' CSV file) is required with a schema file")
        data = data_file(f"{spec}_10000.csv")
    offset = params.get("row_offset", 0)
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise UsageError(f"rrba params: row_offset must be an integer >= 0, got {offset!r}")
    record = csv_record(data, schema, offset + party_id - 1)
    if noise == "seeded":
        rng = np.random.default_rng(client_seeds(client_ss, np.array([party_id - 1]))[0])
    else:
        rng = csprng_generator()
    return RRBAClient(
        party_id, cfg, record, rng, noise=noise_source(seed if noise == "seeded" else None)
    )


def _finite(v: float) -> float | None:
    return None if math.isinf(v) or math.isnan(v) else float(v)


def outcome_to_json(result: Any) -> Any:
    """The JSON form of the aggregator's or a client's outcome."""
    if isinstance(result, ClientOutcome):
        return {
            "block": result.block, "asked": result.asked, "view": result.view,
            "subsets": [list(s) for s in result.subsets], "epsilon": _finite(result.epsilon),
            "tally": result.tally, "noise": result.noise,
        }  # fmt: skip
    if isinstance(result, RRBAOutcome):
        lay = result.index.layout
        return {
            "clients": result.clients,
            "blocks": result.blocks,
            "subsets": [list(s) for s in result.cover.subsets],
            "estimates": [t.tolist() for t in lay.unpack(result.output)],
            "answers": result.answers.tolist(),
            "converged": result.converged.tolist(),
            "first_held": result.first_held.tolist(),
            "epsilon_true": _finite(float(result.epsilon_block.max(initial=0.0))),
            "dropouts": result.dropouts(),
            "late": result.late,
            "records": [r.to_json() for r in result.records],
        }
    return result

