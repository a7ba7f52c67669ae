"""``mpc-rr frontier``: the table, the JSON, the figure, and clean refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scenarios.cli import main


@pytest.fixture
def tiny_csv(tmp_path: Path) -> Path:
    f = tmp_path / "t.csv"
    f.write_text("x,y,z\n" + "".join(f"{i % 3},{(i // 3) % 2},{(i % 3 + i // 7) % 2}\n" for i in range(60)))
    return f


@pytest.mark.slow  # matplotlib's import and drawing: ~3 s
def test_json_table_and_figure(tiny_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from mpc_rr.workflows._frontier import frontier_sums

    out = tmp_path / "f"
    assert main(["frontier", str(tiny_csv), "--infer-schema", "--epsilon", "4", "--parties", "40",
                 "--repeats", "2", "--queries", "6", "--json", "--out", str(out)]) == 0  # fmt: skip
    doc = json.loads(capsys.readouterr().out)
    assert doc["parties"] == 40 and doc["epsilons"] == [4.0]
    assert doc["models"] == ["local RR", "local RR-Clusters", "shuffled RR", *(f"{s} + noise" for s in frontier_sums()), "trusted curator"]
    assert all(p["central_epsilon"] <= 4.0 + 1e-9 and len(p["errors"]) == 2 for p in doc["points"])
    assert json.loads((out / "frontier.json").read_text())["best"] == doc["best"]
    assert (out / "frontier.png").stat().st_size > 10_000


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--epsilon", "1,0"], "every epsilon must be finite and > 0, got 0.0"),
        (["--epsilon", "a"], "must be comma-separated numbers"),
        (["--parties", "100"], "--parties 100 is more than the 60 records"),
    ],
)
def test_bad_input_is_a_clean_error(
    argv: list[str], message: str, tiny_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        code = main(["frontier", str(tiny_csv), "--infer-schema", "--out", str(tmp_path), *argv])
    except SystemExit as done:  # a flag's own type refuses it while parsing
        code = done.code  # type: ignore[assignment]
    assert code == 2
    assert message in capsys.readouterr().err
