"""The Python API: one call per job, frozen reports, the same results as the command line."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import numpy as np
import pytest

import mpc_rr
from mpc_rr.core import UsageError
from mpc_rr.data import data_file
from scenarios.cli import main

ROOT = Path(__file__).resolve().parents[3]
SURVEY = data_file("survey_10000.csv")


class FrameLike:
    """What pandas and polars share: ``columns`` and ``frame[name]`` with ``tolist()``."""

    def __init__(self, cols: dict[str, list[str]]) -> None:
        self._cols = cols
        self.columns = list(cols)

    def __getitem__(self, name: str) -> np.ndarray:
        return np.asarray(self._cols[name], dtype=object)


def test_as_dataset_takes_a_table_in_memory_a_csv_and_adult() -> None:
    cols = {"a": ["x", "y", "x", "z"], "b": ["1", "1", "2", "2"]}
    from_map = mpc_rr.as_dataset(cols, ordinal=["b"], name="t")
    from_frame = mpc_rr.as_dataset(FrameLike(cols), ordinal=["b"], name="t")
    assert from_map.schema == from_frame.schema and np.array_equal(from_map.codes, from_frame.codes)
    assert from_map.schema.attributes[1].ordinal and from_map.n == 4
    assert mpc_rr.as_dataset(cols, columns=["b"]).schema.names == ("b",)
    assert mpc_rr.as_dataset("adult").n == 32561
    csv = mpc_rr.as_dataset(SURVEY, columns=["A", "S"])
    assert csv.name == "survey_10000" and csv.schema.names == ("A", "S") and csv.n == 10000
    with pytest.raises(UsageError, match=r"columns \['nope'\] are not in the table"):
        mpc_rr.as_dataset(cols, columns=["nope"])
    with pytest.raises(UsageError, match="expected a Dataset, 'adult', a CSV path"):
        mpc_rr.as_dataset(42)


def test_run_pipeline_equals_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seen: list[tuple[int, int]] = []

    def progress(phase: str, done: int, total: int) -> None:
        if phase == "SECURE SUM":
            seen.append((done, total))

    n = 120  # 300 parties took 21 s under load, twice SecAgg+ over n parties
    report = mpc_rr.run_pipeline(SURVEY, parties=n, p=0.7, seed=4, dependence="secure-sum",
                                 progress=progress)  # fmt: skip
    assert isinstance(report, mpc_rr.PipelineReport)
    # the secure-sum progress has a total (SecAgg+: five messages per party reach the coordinator,
    # the draw's reveal among them, and the consistency committee's 55 signatures)
    total = 5 * n + 55
    assert seen and all(t == total for _, t in seen) and seen[-1] == (total, total)
    # results.json records the SecAgg+ parameters the run derived for its n (they set bytes/party)
    ss = report.document["secure_sum"]
    assert ss["protocol"] == "secagg" and ss["parties"] == n and ss["messages_to_coordinator"] == total
    assert 0 < ss["params"]["threshold"] <= ss["params"]["degree"] < n
    assert ss["bytes_sent_per_data_party"] == report.document["cost"]["data_parties"]["mean"]["bytes_sent"]
    assert report.cost.messages == report.document["cost"]["messages"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        report.document = {}  # type: ignore[misc]
    argv = ["run", str(SURVEY), "--infer-schema", "--parties", str(n), "--p", "0.7", "--seed", "4",
            "--dependence", "secure-sum", "--transport", "harness", "--json", "--out", str(tmp_path)]  # fmt: skip
    assert main(argv) == 0
    cli = json.loads(capsys.readouterr().out)
    assert [list(c) for c in report.clusters] == cli["clusters"]
    assert report.relative_error.to_json() == cli["relative_error"]
    assert report.epsilon.to_json() == cli["epsilon"]
    assert report.ledger.to_json()["total"] == cli["privacy"]["total"]
    assert report.document["dependences"] == cli["dependences"]
    assert cli["secure_sum"]["params"] == ss["params"]


def test_run_secure_sum_defaults_to_the_harness_and_is_exact() -> None:
    x = np.eye(6, dtype=np.uint8)[np.random.default_rng(0).integers(0, 6, 25)]
    for protocol in mpc_rr.protocol_names(family="sum"):
        rep = mpc_rr.run_secure_sum(protocol, x, seed=2)
        assert rep.exact and rep.survivors == 25 and rep.costs.transport == "harness", protocol
        np.testing.assert_array_equal(rep.total, x.sum(axis=0))


def test_audit_and_attacks_by_name() -> None:
    audit = mpc_rr.audit_mechanism(
        "krr", trials=20_000, seed=3, curve=False, params=mpc_rr.MechanismParams(k=4, epsilon=1.5)
    )
    assert audit.result.epsilon_lower <= 1.5 and not audit.result.violation
    assert audit.document["epsilon_true"] == pytest.approx(1.5)
    plain = mpc_rr.eavesdrop("plainsum", parties=30, cells=8, permutations=20)
    mesh = mpc_rr.eavesdrop("full-mesh", parties=12, cells=8, permutations=20)
    assert plain.success == 1.0  # a plaintext sum leaks every input
    assert mesh.success is not None and mesh.success < 0.6  # the full mesh: the sum's baseline
    coal = mpc_rr.coalition("secagg", parties=12, size=2, curve=False)
    assert coal.document["threshold"] > 2 and coal.success is not None and coal.success < 0.6


def test_the_readme_example_runs() -> None:
    """The README's "From Python" block, executed as written."""
    text = (ROOT / "README.md").read_text()
    section = text.split("**From Python**", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None
    exec(compile(code.group(1), "README.md", "exec"), {})
