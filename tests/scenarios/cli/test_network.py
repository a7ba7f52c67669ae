"""``--network lan|wan|mobile|FILE.toml`` on ``secure-sum``, ``rrba``, ``run`` and scenarios: the
projected wall time of the deployment next to the CPU figure, stored with the results; what
cannot be priced is refused with exit 2 before any work."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from scenarios.cli import main


def test_secure_sum_priced_on_each_profile(capsys: pytest.CaptureFixture[str]) -> None:
    nets = {}
    for name in ("lan", "mobile"):
        assert main(["secure-sum", "--parties", "8", "--cells", "8", "--network", name, "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["exact"]
        net = out["network"]
        assert net["profile"]["name"] == name and net["runs"] and net["cpu_s"] > 0
        assert net["projected_wall_s"] == pytest.approx(net["network_s"] + net["cpu_s"])
        nets[name] = net["network_s"]
    assert 0 < nets["lan"] < nets["mobile"]
    assert main(["secure-sum", "--parties", "8", "--cells", "8", "--network", "wan"]) == 0
    assert "deployment on network 'wan': projected wall" in capsys.readouterr().out


@pytest.mark.slow  # the rrba command draws its plots (seconds); the refusals below stay fast
def test_rrba_priced_stores_it_in_results_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["rrba", "--clients", "60", "--block", "30", "--marginals", "0", "--out", str(tmp_path)]
    assert main([*args, "--network", "wan"]) == 0
    assert "deployment on network 'wan': projected wall" in capsys.readouterr().out
    doc = json.loads((tmp_path / "results.json").read_text())
    assert doc["network"]["network_s"] > 0 and doc["network"]["runs"][0]["parties"] == 61  # clients + aggregator
    assert doc["cost"]["transport"] == "memory"


@pytest.mark.slow  # the whole pipeline and its plot; the secure sum above prices the same runner
def test_run_priced_stores_it_in_results_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["run", "adult", "--parties", "60", "--queries", "5", "--out", str(tmp_path)]
    assert main([*args, "--network", "lan"]) == 0
    assert "deployment on network 'lan': projected wall" in capsys.readouterr().out
    doc = json.loads((tmp_path / "results.json").read_text())
    assert doc["network"]["projected_wall_s"] >= doc["network"]["network_s"] > 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["secure-sum", "--parties", "4", "--transport", "tcp", "--network", "wan"],
         "--network prices the run over the simulated network"),
        (["secure-sum", "--parties", "4", "--network", "wan", "--workers", "2"], "drop --workers"),
        (["secure-sum", "--parties", "4", "--network", "dialup"], "neither a profile"),
        (["rrba", "--clients", "100", "--transport", "harness", "--network", "lan"],
         "--network prices the run over the simulated network"),
        (["run", "adult", "--parties", "40", "--transport", "tcp", "--network", "lan"],
         "--network prices the run over the simulated network"),
    ],
)  # fmt: skip
def test_refused_before_any_work(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    assert message in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_scenario_network_field(tmp_path: Path) -> None:
    (tmp_path / "n.toml").write_text(
        '[scenario]\nname = "net"\nseed = 1\nrepeats = 1\nmetrics = ["exact", "network_s", "projected_wall_s"]\n'
        '[protocol]\nkind = "secure-sum"\nparties = 6\ncells = 4\n[grid]\nnetwork = ["lan", "mobile"]\n'
    )
    assert main(["scenario", "run", str(tmp_path / "n.toml"), "--store", str(tmp_path / "n.db"), "--quiet"]) == 0
    with sqlite3.connect(tmp_path / "n.db") as c:
        rows = {json.loads(p)["network"]: json.loads(m) for p, m in c.execute("SELECT params, metrics FROM runs")}
    assert rows["lan"]["exact"] and 0 < rows["lan"]["network_s"] < rows["mobile"]["network_s"]
    assert rows["mobile"]["projected_wall_s"] > rows["mobile"]["network_s"]
    (tmp_path / "bad.toml").write_text(
        '[scenario]\nname = "bad"\n[protocol]\nkind = "secure-sum"\ntransport = "tcp"\nnetwork = "wan"\n'
    )
    assert main(["scenario", "check", str(tmp_path / "bad.toml")]) == 2


def test_rrba_scenario_network_field(tmp_path: Path) -> None:
    """The rrba kind priced on a profile: the distributed collection over the simulated network,
    its projected wall time stored; the same seed, the same estimates as unpriced; a shared client
    generator (centralized only) refused before any run."""
    head = '[scenario]\nname = "rrba-net"\nseed = 3\nrepeats = 1\n'
    proto = '[protocol]\nkind = "rrba"\nclients = 60\nblock = 30\nmarginals = 1\nclient_rng = "per-client"\n'
    (tmp_path / "r.toml").write_text(
        head + 'metrics = ["max_abs_error", "messages", "network_s", "projected_wall_s"]\n' + proto
        + '[grid]\nnetwork = ["wan"]\n'
    )
    assert main(["scenario", "run", str(tmp_path / "r.toml"), "--store", str(tmp_path / "r.db"), "--quiet"]) == 0
    with sqlite3.connect(tmp_path / "r.db") as c:
        (params, metrics, doc), = c.execute("SELECT params, metrics, result FROM runs").fetchall()
    assert json.loads(params)["network"] == "wan"
    m, doc = json.loads(metrics), json.loads(doc)
    assert m["messages"] > 60 and 0 < m["network_s"] < m["projected_wall_s"]
    assert doc["network"]["profile"]["name"] == "wan" and doc["network"]["runs"][0]["parties"] == 61
    assert m["projected_wall_s"] == pytest.approx(doc["network"]["projected_wall_s"])
    # unpriced, the centralized engine with per-client generators: the same estimates
    (tmp_path / "c.toml").write_text(head + 'metrics = ["max_abs_error", "network_s"]\n' + proto)
    assert main(["scenario", "run", str(tmp_path / "c.toml"), "--store", str(tmp_path / "c.db"), "--quiet"]) == 0
    with sqlite3.connect(tmp_path / "c.db") as c:
        (plain,) = c.execute("SELECT metrics FROM runs").fetchone()
    assert json.loads(plain)["max_abs_error"] == m["max_abs_error"] and json.loads(plain)["network_s"] is None
    (tmp_path / "bad.toml").write_text(head + proto.replace("per-client", "shared") + 'network = "lan"\n')
    assert main(["scenario", "check", str(tmp_path / "bad.toml")]) == 2
