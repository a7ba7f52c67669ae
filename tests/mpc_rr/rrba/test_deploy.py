"""RRBA roles for deployments (one OS process per party): the registered factory, a client's own
record, its noise, the parameters (tests/integration runs the processes)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mpc_rr.core import COORDINATOR, UsageError, run_roles
from mpc_rr.core._registry import get_protocol
from mpc_rr.data import Dataset, data_file, load_network
from mpc_rr.rrba import RRBAAggregator, RRBAClient, run_rrba
from mpc_rr.rrba._deploy import csv_record

SURVEY_CSV = data_file("survey_10000.csv")


def test_a_deployed_client_reads_only_its_record_and_draws_noise_from_chacha(survey: Dataset) -> None:
    schema = survey.schema
    for row in (0, 9, 9_999):
        np.testing.assert_array_equal(csv_record(SURVEY_CSV, schema, row), survey.codes[row])
    make = get_protocol("rrba").make_role
    params = {"schema": "survey", "block": 5, "p": 0.5, "row_offset": 100}
    role = make(3, 11, 1, params)
    assert isinstance(role, RRBAClient)
    np.testing.assert_array_equal(role.record, survey.codes[102])
    assert type(role.rng.bit_generator).__name__ == "ChaCha" and "deployment" in role.noise
    other = make(3, 11, 1, params)  # same public parameters, different noise
    assert role.rng.random(4).tolist() != other.rng.random(4).tolist()
    assert isinstance(make(COORDINATOR, 11, 1, params), RRBAAggregator)


def test_the_factory_with_seeded_noise_equals_the_centralized_engine(survey: Dataset) -> None:
    """Every party built from public parameters alone, as separate processes would."""
    n, seed = 40, 4
    params = {"schema": "survey", "block": 15, "p": 0.4, "t_floor": 0.01, "noise": "seeded"}
    make = get_protocol("rrba").make_role
    roles = {i: make(i, n + 1, seed, params) for i in range(n + 1)}
    res = run_roles(roles)
    assert res.ok
    ref = run_rrba(Dataset(survey.schema, survey.codes[:n]), p=0.4, block=15, t_floor=0.01, seed=seed)
    got = get_protocol("rrba").result_to_json(res.roles[COORDINATOR].result)
    for est, want in zip(got["estimates"], ref.estimates, strict=True):
        assert est == want.reshape(-1).tolist()
    assert got["clients"] == n and got["blocks"] == 3 and got["dropouts"]["answered"] == n
    client = get_protocol("rrba").result_to_json(res.roles[1].result)
    assert client["asked"] and client["tally"] == "plain" and "simulation" in client["noise"]


def test_a_schema_file_and_its_csv(tmp_path: Path) -> None:
    from mpc_rr.data import schema_to_toml

    schema = load_network("survey").schema
    (tmp_path / "s.toml").write_text(schema_to_toml(schema))
    rows = ["A,S,E,O,R,T", "young,M,high,emp,big,car", "old,F,uni,self,small,train"]
    (tmp_path / "d.csv").write_text("\n".join(rows) + "\n")
    params = {"schema": str(tmp_path / "s.toml"), "data": str(tmp_path / "d.csv"), "block": 2, "p": 0.5}
    role = get_protocol("rrba").make_role(2, 3, 0, params)
    assert isinstance(role, RRBAClient)
    assert [schema.attributes[j].categories[c] for j, c in enumerate(role.record)] == rows[2].split(",")


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"block": 5, "p": 0.5}, "schema (a network name or a TOML schema file) is required"),
        ({"schema": "survey", "p": 0.5}, "block is required"),
        ({"schema": "survey", "block": 5, "p": 0.5, "colour": 1}, "unknown keys ['colour']"),
        ({"schema": "survey", "block": "5", "p": 0.5}, "block has the wrong type, got '5'"),
        ({"schema": "survey", "block": 5, "p": 0.5, "secure_tally": 1}, "secure_tally has the wrong type"),
        ({"schema": "survey", "block": 5, "p": 0.5, "noise": "seed"}, "noise must be one of"),
        ({"schema": "survey", "block": 5, "p": 0.5, "row_offset": 99_999}, "has no record 100000"),
    ],
)
def test_bad_parameters_are_named(params: dict[str, object], message: str) -> None:
    with pytest.raises(UsageError, match=None) as exc:
        get_protocol("rrba").make_role(2, 6, 0, params)
    assert message in str(exc.value)


