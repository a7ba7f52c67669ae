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

from mpc_rr.core import lazy_exports

__all__ = [
    "ADULT_COLUMNS",
    "ADULT_SCHEMA",
    "DEFAULT_CLIENTS",
    "DEFAULT_MAX_CATEGORIES",
    "MAX_HEADER_BYTES",
    "NETWORKS",
    "Attribute",
    "BayesNet",
    "ConstantColumnWarning",
    "CsvColumns",
    "Dataset",
    "Schema",
    "ShippedFile",
    "category_order",
    "data_dir",
    "data_file",
    "encode_columns",
    "infer_schema",
    "load_adult",
    "load_adult_test",
    "load_csv",
    "load_network",
    "load_records",
    "load_schema",
    "parse_bif",
    "parse_schema",
    "read_csv_columns",
    "schema_of_values",
    "schema_to_toml",
    "shipped",
    "shipped_bytes",
    "shipped_file",
]

_HOME = {
    "ADULT_COLUMNS": "mpc_rr.data._datasets",
    "ADULT_SCHEMA": "mpc_rr.data._datasets",
    "Attribute": "mpc_rr.data._schema",
    "BayesNet": "mpc_rr.data._bif",
    "ConstantColumnWarning": "mpc_rr.data._schema_io",
    "CsvColumns": "mpc_rr.data._csv_reader",
    "DEFAULT_CLIENTS": "mpc_rr.data._records",
    "DEFAULT_MAX_CATEGORIES": "mpc_rr.data._choices",
    "Dataset": "mpc_rr.data._schema",
    "MAX_HEADER_BYTES": "mpc_rr.data._csv_reader",
    "NETWORKS": "mpc_rr.data._bif",
    "Schema": "mpc_rr.data._schema",
    "category_order": "mpc_rr.data._schema_io",
    "ShippedFile": "mpc_rr.data._shipped",
    "data_dir": "mpc_rr.data._shipped",
    "data_file": "mpc_rr.data._shipped",
    "shipped": "mpc_rr.data._shipped",
    "shipped_bytes": "mpc_rr.data._shipped",
    "shipped_file": "mpc_rr.data._shipped",
    "encode_columns": "mpc_rr.data._schema",
    "infer_schema": "mpc_rr.data._schema_io",
    "load_adult": "mpc_rr.data._datasets",
    "load_adult_test": "mpc_rr.data._datasets",
    "load_csv": "mpc_rr.data._schema",
    "load_network": "mpc_rr.data._bif",
    "load_records": "mpc_rr.data._records",
    "load_schema": "mpc_rr.data._schema_io",
    "parse_bif": "mpc_rr.data._bif",
    "parse_schema": "mpc_rr.data._schema_io",
    "read_csv_columns": "mpc_rr.data._csv_reader",
    "schema_of_values": "mpc_rr.data._schema_io",
    "schema_to_toml": "mpc_rr.data._schema_io",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOME, globals())

if TYPE_CHECKING:
    from mpc_rr.data._bif import (
        NETWORKS,
        BayesNet,
        load_network,
        parse_bif,
    )
    from mpc_rr.data._choices import (
        DEFAULT_MAX_CATEGORIES,
    )
    from mpc_rr.data._csv_reader import (
        MAX_HEADER_BYTES,
        CsvColumns,
        read_csv_columns,
    )
    from mpc_rr.data._datasets import (
        ADULT_COLUMNS,
        ADULT_SCHEMA,
        load_adult,
        load_adult_test,
    )
    from mpc_rr.data._records import (
        DEFAULT_CLIENTS,
        load_records,
    )
    from mpc_rr.data._schema import (
        Attribute,
        Dataset,
        Schema,
        encode_columns,
        load_csv,
    )
    from mpc_rr.data._schema_io import (
        ConstantColumnWarning,
        category_order,
        infer_schema,
        load_schema,
        parse_schema,
        schema_of_values,
        schema_to_toml,
    )
    from mpc_rr.data._shipped import (
        ShippedFile,
        data_dir,
        data_file,
        shipped,
        shipped_bytes,
        shipped_file,
    )
