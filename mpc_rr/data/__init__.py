"""Data sets: schemas, CSV files read strictly, the shipped Adult data, Bayesian networks.

* :class:`Schema` / :class:`Attribute` / :class:`Dataset` -- categorical
  attributes (ordered or not), records as integer codes;
* :func:`load_csv`, :func:`read_csv_columns`, :func:`infer_schema`,
  :func:`load_schema` / :func:`schema_to_toml` -- your own data (docs/data.md);
* :func:`load_adult`, :func:`load_adult_test` -- UCI Adult, shipped in the package;
* :func:`shipped` / :func:`shipped_file`, :func:`data_file`, :func:`data_dir` -- the
  shipped data sets (provenance, licence, checksum) and their paths (``$MPC_RR_DATA``
  overrides them);
* :func:`load_network` -- ``.bif`` Bayesian networks with seeded forward sampling
  (RRBA's Survey, Alarm, Child).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mpc_rr.core._lazy import lazy_exports

__all__ = [
    "ADULT_SCHEMA",
    "DEFAULT_MAX_CATEGORIES",
    "NETWORKS",
    "Attribute",
    "BayesNet",
    "ConstantColumnWarning",
    "Dataset",
    "Schema",
    "ShippedFile",
    "data_dir",
    "data_file",
    "infer_schema",
    "load_adult",
    "load_adult_test",
    "load_csv",
    "load_network",
    "load_schema",
    "parse_schema",
    "read_csv_columns",
    "schema_to_toml",
    "shipped",
    "shipped_file",
]

_HOME = {
    "BayesNet": "mpc_rr.data._bif",
    "NETWORKS": "mpc_rr.data._bif",
    "load_network": "mpc_rr.data._bif",
    "DEFAULT_MAX_CATEGORIES": "mpc_rr.data._choices",
    "read_csv_columns": "mpc_rr.data._csv_reader",
    "ADULT_SCHEMA": "mpc_rr.data._datasets",
    "load_adult": "mpc_rr.data._datasets",
    "load_adult_test": "mpc_rr.data._datasets",
    "Attribute": "mpc_rr.data._schema",
    "Dataset": "mpc_rr.data._schema",
    "Schema": "mpc_rr.data._schema",
    "load_csv": "mpc_rr.data._schema",
    "ConstantColumnWarning": "mpc_rr.data._schema_io",
    "infer_schema": "mpc_rr.data._schema_io",
    "load_schema": "mpc_rr.data._schema_io",
    "parse_schema": "mpc_rr.data._schema_io",
    "schema_to_toml": "mpc_rr.data._schema_io",
    "ShippedFile": "mpc_rr.data._shipped",
    "data_dir": "mpc_rr.data._shipped",
    "data_file": "mpc_rr.data._shipped",
    "shipped": "mpc_rr.data._shipped",
    "shipped_file": "mpc_rr.data._shipped",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOME, globals())

if TYPE_CHECKING:
    from mpc_rr.data._bif import (
        NETWORKS,
        BayesNet,
        load_network,
    )
    from mpc_rr.data._choices import (
        DEFAULT_MAX_CATEGORIES,
    )
    from mpc_rr.data._csv_reader import (
        read_csv_columns,
    )
    from mpc_rr.data._datasets import (
        ADULT_SCHEMA,
        load_adult,
        load_adult_test,
    )
    from mpc_rr.data._schema import (
        Attribute,
        Dataset,
        Schema,
        load_csv,
    )
    from mpc_rr.data._schema_io import (
        ConstantColumnWarning,
        infer_schema,
        load_schema,
        parse_schema,
        schema_to_toml,
    )
    from mpc_rr.data._shipped import (
        ShippedFile,
        data_dir,
        data_file,
        shipped,
        shipped_file,
    )
