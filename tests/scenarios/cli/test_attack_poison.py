"""``mpc-rr attack poison``: the JSON names the rejected clients, the shift and the bound."""

from __future__ import annotations

import json
from pathlib import Path

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


def test_a_sum_without_validity_says_so_and_prio3_says_what_it_proves(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["attack", "poison", "--on", "pipeline", "--parties", "12", "--malicious", "1",
            "--strategy", "out-of-range"]  # fmt: skip
    assert cli.main([*base, "--protocol", "secagg"]) == 0
    text = capsys.readouterr().out
    assert ("input validity of the dependence sum: none: one client can set any count (the sum has no "
            "validity check)") in text and "rejected 0 []" in text  # fmt: skip
    assert cli.main([*base, "--protocol", "prio3", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["summary"]["validity"].startswith("one-hot in each of its 28 blocks, proved")
    assert doc["trials"][0]["rejected"] == {"count": 1, "ids": [12]}


def test_attack_poison_on_own_data(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    csv = tmp_path / "people.csv"
    rows = [("young", "F", "north"), ("old", "M", "south"), ("adult", "F", "east"), ("old", "F", "north")]
    csv.write_text("age,sex,region\n" + "".join(f"{','.join(rows[i % 4])}\n" for i in range(30)))
    argv = ["attack", "poison", "--on", "pipeline", "--protocol", "prio3", "--data", str(csv),
            "--infer-schema", "--parties", "20", "--malicious", "1", "--strategy", "out-of-range", "--json"]  # fmt: skip
    assert cli.main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    [trial] = doc["trials"]
    assert doc["summary"]["data"] == "people" and trial["data"] == "people"
    assert set(trial["target_pair"]) <= {"age", "sex", "region"} and trial["rejected"]["ids"] == [20]
    # more parties than records: refused, naming the data
    assert cli.main([*argv[:-7], "--parties", "31", "--malicious", "1", "--strategy", "chosen"]) == 2
    # --on count sums no records: --data is refused there
    assert cli.main(["attack", "poison", "--data", str(csv), "--malicious", "1", "--strategy", "chosen"]) == 2
