"""``mpc-rr attack poison``: the JSON names the rejected clients, the shift and the bound."""

from __future__ import annotations

import json

import pytest

from scenarios import cli


def test_attack_poison_command_json(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["attack", "poison", "--protocol", "prio3", "--parties", "8", "--cells", "4",
            "--malicious", "1", "--strategy", "out-of-range", "--json"]  # fmt: skip
    assert cli.main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert (
        out["rejected"] == {"count": 1, "ids": [8]} and "target_shift" in out and out["bound"] == 1
    )


def test_attack_poison_on_the_pipeline_reports_dependences_and_clusters(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["attack", "poison", "--on", "pipeline", "--protocol", "prio3", "--parties", "10",
            "--malicious", "2", "--strategy", "out-of-range", "--json"]  # fmt: skip
    assert cli.main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    [trial] = doc["trials"]
    assert trial["rejected"] == {"count": 2, "ids": [9, 10]} and trial["exact_over_valid"]
    assert {"dependence_honest", "dependence_attacked", "clusters_honest", "clusters_attacked"} <= set(trial)
    assert doc["summary"]["rejected"] == 2
