"""``mpc-rr secure-sum --protocol prio3 --invalid K --json``: exact over the accepted, culprits named."""

from __future__ import annotations

import json

import pytest

from scenarios import cli


def test_secure_sum_prio3_names_the_invalid_clients(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["secure-sum", "--protocol", "prio3", "--parties", "9", "--cells", "8", "--invalid", "2",
            "--transport", "harness", "--json"]  # fmt: skip
    assert cli.main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["exact"] is True and out["aborted"] is None
    assert out["rejected"] == {"count": 2, "ids": [8, 9]} and out["inputs_in_sum"] == 7
    assert out["survivors"] == 9  # rejected reports are left out of the sum; nobody dropped out
    # the command's inputs are one-hot: auto proves it (Prio3Histogram), never SumVec
    assert out["params"]["circuit"] == "Histogram" and out["params"]["proofs"] == 3
    assert out["validity"].startswith("one-hot (a single 1 among 8 cells), proved")


def test_secure_sum_prio3_refuses_an_invalid_count_that_reaches_the_helper() -> None:
    argv = ["secure-sum", "--protocol", "prio3", "--parties", "3", "--cells", "4", "--invalid", "3",
            "--transport", "harness"]  # fmt: skip
    assert cli.main(argv) == 2


def test_secure_sum_prio3_blocks_circuit(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["secure-sum", "--protocol", "prio3", "--parties", "6", "--cells", "6", "--circuit", "blocks",
            "--blocks", "2,4", "--invalid", "1", "--transport", "harness", "--json"]  # fmt: skip
    assert cli.main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["exact"] and out["rejected"] == {"count": 1, "ids": [6]}
    assert out["params"]["circuit"] == "OneHotBlocks" and out["params"]["helper_key_pinned_by"] == "simulation"
    assert cli.main([*argv[:10], "2,5", "--transport", "harness"]) == 2  # blocks that do not fit: refused
