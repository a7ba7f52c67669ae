"""`mpc-rr report`: a self-contained, well-formed page whose plots show exactly the stored numbers."""

from __future__ import annotations

import base64
import json
import math
import re
import sqlite3
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

from scenarios.cli import main
from scenarios.experiments.spec import parse_scenario
from scenarios.experiments.sweep import sweep
from scenarios.figures.report_figures import Figure, wilson
from scenarios.results.report import build, render
from scenarios.results.store import Store

# one worker builds the module's store once (pytest-xdist, --dist loadgroup)
pytestmark = pytest.mark.xdist_group("report")

STUDIES = {
    "pipe": """
[scenario]
name = "pipe"
seed = 4
repeats = 2
metrics = ["error_clusters_0.1", "messages", "bytes", "wall_s"]
[data]
source = "adult"
[protocol]
kind = "pipeline"
transport = "harness"
queries = 5
audit_trials = 300
[grid]
p = [0.5, 0.9]
parties = [30, 60]
""",
    "sums": """
[scenario]
name = "sums"
seed = 2
repeats = 3
[protocol]
kind = "secure-sum"
parties = 9
cells = 4
transport = "harness"
[grid]
dropout = [0.0, 0.2, 0.5]
drop_step = ["shares", "masked"]
""",
    "audit": """
[scenario]
name = "aud"
seed = 1
[protocol]
kind = "audit"
mechanism = "krr"
k = 3
epsilon = 1.0
[grid]
trials = [300, 3000]
""",
    "rrba": """
[scenario]
name = "blocks"
seed = 1
repeats = 2
[data]
source = "survey"
[protocol]
kind = "rrba"
clients = 600
block = 100
marginals = 2
[grid]
p = [0.4, 0.8]
""",
    "link": """
[scenario]
name = "links"
seed = 1
[data]
source = "adult"
[protocol]
kind = "linkability"
[grid]
parties = [20, 40]
channel = ["direct", "anonymous"]
""",
}


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, list]:
    d = tmp_path_factory.mktemp("report")
    db = d / "results.db"
    with Store(db) as store:
        for name, text in STUDIES.items():
            sweep(parse_scenario(text, source=f"{name}.toml"), store, progress=False)
        sections = build(store)
    page = render(str(db), sections)
    return db, page, sections


class Checker(HTMLParser):
    """Well-formedness: every non-void element closed in order; collects images, links, scripts."""

    VOID: ClassVar[set[str]] = {
        "meta",
        "img",
        "br",
        "hr",
        "link",
        "input",
        "wbr",
        "source",
        "col",
        "area",
        "base",
        "embed",
        "param",
        "track",
    }

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.images: list[dict[str, str | None]] = []
        self.refs: list[str] = []
        self.tags: list[str] = []
        self.ids: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.tags.append(tag)
        if a.get("id"):
            self.ids.append(str(a["id"]))
        if tag == "img":
            self.images.append(a)
        for k in ("src", "href"):
            if a.get(k) and not str(a[k]).startswith(("data:", "#")):
                self.refs.append(str(a[k]))
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1] if self.stack else 'nothing'}")
            return
        self.stack.pop()


def test_page_is_well_formed_self_contained_and_every_image_decodes(report) -> None:
    _, page, sections = report
    c = Checker()
    c.feed(page)
    c.close()
    assert not c.errors and not c.stack, (c.errors, c.stack)
    assert page.startswith("<!DOCTYPE html>") and "script" not in c.tags and "link" not in c.tags
    assert c.refs == []  # no file, no network: every src is a data URI, every href an anchor
    assert len(c.ids) == len(set(c.ids))
    figures = [f for s in sections for f in s.figures]
    assert len(c.images) == len(figures) >= 10
    for img, fig in zip(c.images, figures, strict=True):
        src = str(img["src"])
        assert src.startswith("data:image/svg+xml;base64,")
        svg = ET.fromstring(base64.b64decode(src.split(",", 1)[1]))
        assert svg.tag.endswith("svg") and float(svg.get("width", "0pt").rstrip("pt")) > 300
        texts = " ".join(t.text or "" for t in svg.iter() if t.tag.endswith("text"))
        assert fig.title in texts  # text stays text: titles and axis labels are in the SVG
        for label in {**fig.xlabel, **fig.ylabel}.values():
            if label:
                assert label in texts, (fig.key, label)
        assert img["alt"] == fig.title


def test_titles_name_the_data_and_the_run_count(report) -> None:
    _, _, sections = report
    by = {s.name: s for s in sections}
    titles = [f.title for f in by["pipe"].figures]
    assert titles == [
        "pipe: accuracy against cost on adult (8 runs)", "pipe: error against p on adult (8 runs)",
        "pipe: error against n on adult (8 runs)", "pipe: time per phase on adult (8 runs)",
        "pipe: central epsilon against n on adult (8 runs)",
    ]  # fmt: skip
    assert [f.title for f in by["sums"].figures] == [
        "sums: completion against the dropout rate (18 runs)",
        "sums: cost against the dropout rate (18 runs)",
    ]
    assert by["blocks"].figures[0].title == "blocks: convergence on survey (4 runs)"
    # the accuracy-vs-cost panels share their y axis, units are in the labels; 30 and 60 parties
    # cost within a factor of a few: linear axes (from zero), not log
    acc = by["pipe"].figures[0]
    assert acc.xlabel == {"messages": "messages sent", "payload bytes": "payload bytes sent (MB)",
                          "wall time": "protocol wall time (s)"}  # fmt: skip


def _sql_runs(db: Path, scenario: str) -> list[tuple[dict, dict]]:
    with sqlite3.connect(db) as c:
        return [
            (json.loads(p), json.loads(m))
            for p, m in c.execute("SELECT point, metrics FROM runs WHERE scenario = ?", (scenario,))
        ]


def _series(fig: Figure, panel: str, label: str):
    (s,) = [s for s in fig.series if s.panel == panel and s.label == label]
    return s


def test_accuracy_cost_and_error_plots_show_the_stored_means(report) -> None:
    db, _, sections = report
    runs = _sql_runs(db, "pipe")
    fig = next(s for s in sections if s.name == "pipe").figures
    acc, err_p, err_n, phases = fig[:4]  # then the ledger's plot (test_ledger_*)

    def mean(metric: str, **point: float) -> float:
        vals = [m[metric] for p, m in runs if all(p[k] == v for k, v in point.items())]
        assert len(vals) == 2  # repeats
        return float(np.mean(vals))

    for n in (30, 60):
        s = _series(acc, "messages", f"parties = {n}")
        assert s.x == (3 * n, 3 * n) == tuple(mean("messages", p=p, parties=n) for p in (0.5, 0.9))
        assert s.y == pytest.approx(
            [mean("error_clusters_0.1", p=p, parties=n) for p in (0.5, 0.9)]
        )
        b = _series(acc, "payload bytes", f"parties = {n}")
        assert sorted(b.x) == pytest.approx(
            sorted(mean("bytes", p=p, parties=n) / 1e6 for p in (0.5, 0.9))
        )
        line = _series(err_p, "", f"parties = {n}")
        assert line.x == (0.5, 0.9)
        assert line.y == pytest.approx(
            [mean("error_clusters_0.1", p=p, parties=n) for p in (0.5, 0.9)]
        )
        sd = np.std(
            [m["error_clusters_0.1"] for p, m in runs if p == {"p": 0.5, "parties": n}], ddof=1
        )
        assert line.yerr[0] == pytest.approx(sd) and line.n == (2, 2)
    assert _series(err_n, "", "p = 0.9").x == (30, 60)
    total = {lab: sum(s.y[i] for s in phases.series) for i, lab in enumerate(phases.series[0].x)}
    assert total["p = 0.5, parties = 30"] == pytest.approx(
        sum(mean(k, p=0.5, parties=30) for k in ("setup_s", "phase_network_s", "phase_dependence_s",
                                                   "phase_release_s", "phase_estimation_s", "evaluation_s")))  # fmt: skip


def test_completion_plot_shows_the_share_of_completed_runs(report) -> None:
    db, _, sections = report
    runs = _sql_runs(db, "sums")
    comp = next(s for s in sections if s.name == "sums").figures[0]
    for step in ("shares", "masked"):
        s = _series(comp, "completed", f"drop_step = {step}")
        assert s.x == (0.0, 0.2, 0.5)
        for i, d in enumerate(s.x):
            mine = [m["completed"] for p, m in runs if p == {"dropout": d, "drop_step": step}]
            k = sum(mine)
            assert (
                s.y[i] == k / len(mine)
                and (s.lo[i], s.hi[i]) == wilson(k, len(mine))
                and s.n[i] == 3
            )
        assert (
            s.y[0] == 1.0 and s.y[-1] == 0.0
        )  # 9 parties tolerate 3 dropouts: 1 and 2 complete, 4 abort
    assert wilson(3, 3)[0] == pytest.approx(0.4385, abs=1e-4) and wilson(0, 3)[1] == pytest.approx(
        0.5615, abs=1e-4
    )
    assert "max_dropout" not in "".join(s.label for s in comp.series)


def test_audit_and_rrba_plots_show_the_stored_numbers(report) -> None:
    db, _, sections = report
    aud = next(s for s in sections if s.name == "aud").figures[0]
    runs = _sql_runs(db, "aud")
    s = _series(aud, "", "lower bound")
    assert s.x == (300, 3000)
    assert s.y == tuple(
        next(m["epsilon_lower"] for p, m in runs if p["trials"] == t) for t in (300, 3000)
    )
    blocks = next(s for s in sections if s.name == "blocks")
    conv = blocks.figures[0]
    with sqlite3.connect(db) as c:
        curves = [
            (json.loads(p), json.loads(r)["curve"])
            for p, r in c.execute("SELECT point, result FROM runs WHERE scenario='blocks'")
        ]
    for p in (0.4, 0.8):
        line = _series(conv, "", f"p = {p}")
        mine = [cv for pt, cv in curves if pt["p"] == p]
        assert len(line.x) == len(mine[0]["block"]) == 6  # 600 clients / blocks of 100
        assert line.y[-1] == pytest.approx(np.mean([cv["error_median"][-1] for cv in mine]))
        assert line.x[-1] == pytest.approx(np.mean([cv["answers_median"][-1] for cv in mine]))
    links = next(s for s in sections if s.name == "links").figures[0]
    assert _series(links, "p = 0.5", "channel = direct").y == (1.0, 1.0)  # the sender is the link
    base = _series(links, "p = 0.5", "random grouping (baseline)")
    assert base.style == "dotted" and all(0 < v < 0.5 for v in base.y)


def test_sections_hold_the_scenario_text_seeds_sessions_versions_and_machine(report) -> None:
    db, page, sections = report
    import numpy

    assert "[grid]\ndropout = [0.0, 0.2, 0.5]" in page  # the text as run
    with sqlite3.connect(db) as c:
        seeds = {s for (s,) in c.execute("SELECT seed FROM runs")}
        keys = [k for (k,) in c.execute("SELECT key FROM runs")]
    assert all(str(s) in page for s in seeds) and all(k[:12] in page for k in keys)
    assert (
        f"<dd>{numpy.__version__}</dd>" in page
        and "usable cores" in page
        and "load average" in page
    )
    assert re.search(
        r"code versions of the runs shown: <code>0\.1\.0\+src\.[0-9a-f]{12}</code>", page, re.I
    )
    for s in sections:
        assert s.sessions and s.sessions[-1]["finished"] is not None
    table = page[page.index('id="s1"') :]
    assert "<th>dropout</th><th>drop_step</th><th>runs</th><th>completed</th>" in re.sub(
        r' class="l"|<wbr>', "", table
    )
    assert ">0/3<" in table  # dropout 0.5: no run completed


def test_report_command(report, tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    import scenarios.results.report as report_module

    db, _, sections = report
    out = tmp_path / "r.html"
    assert main(["report", str(db), "--out", str(out), "--scenario", "sums"]) == 0
    text = out.read_text()
    assert "sums" in text and 'id="s1"' not in text and math.isclose(text.count("<img"), 2)
    assert "wrote" in capsys.readouterr().err
    # the whole store: its sections are the fixture's (drawn by build once per module, checked
    # above); drawing every figure again took ~20 s under load, so here only what the command
    # asks for is checked
    asked: list[object] = []
    build_them = report_module.build

    def built(store: Store, scenarios: list[str] | None = None) -> list:
        asked.append(scenarios)
        return sections if scenarios is None else build_them(store, scenarios)

    monkeypatch.setattr(report_module, "build", built)
    assert main(["report", str(db), "--out", str(out), "--json"]) == 0
    assert asked == [None]  # no --scenario: every scenario of the store
    summary = json.loads(capsys.readouterr().out)
    assert [s["name"] for s in summary["scenarios"]] == ["pipe", "sums", "aud", "blocks", "links"]
    assert (
        summary["scenarios"][1]["figures"][0]
        == "sums: completion against the dropout rate (18 runs)"
    )
    assert main(["report", str(tmp_path / "none.db"), "--out", str(out)]) == 2
    assert main(["report", str(db), "--out", str(out), "--scenario", "nope"]) == 2
    assert "no runs of ['nope']" in capsys.readouterr().err


def test_error_plots_show_every_method_listed_not_only_the_first(report) -> None:
    """Listing RR-Independent first hid the RR-Clusters comparison (only the first error_* was drawn)."""
    from scenarios.figures.report_protocol_figures import pipeline_figures

    db, _, _ = report
    with Store(db, create=False) as store:
        runs = store.runs(scenario="pipe")
    metrics = ["error_independent_0.1", "error_clusters_0.1"]
    figs = pipeline_figures("pipe", runs, metrics, {"p": [0.5, 0.9], "parties": [30, 60]})
    err_p = next(f for f in figs if f.key == "error-p")
    labels = {s.label for s in err_p.series}
    for method in ("RR-Independent", "RR-Clusters"):
        for n in (30, 60):
            assert f"{method} (σ = 0.1): parties = {n}" in labels, labels
    acc = next(f for f in figs if f.key == "accuracy-cost")
    for panel in ("messages", "payload bytes", "wall time"):
        mine = {s.label for s in acc.series if s.panel == panel}
        assert {f"{m} (σ = 0.1): parties = {n}" for m in ("RR-Independent", "RR-Clusters")
                for n in (30, 60)} == mine, mine  # fmt: skip
    assert "every method listed" in acc.ylabel["messages"]


class _Ledger(HTMLParser):
    """The rows of every ``table.ledger`` of the page, as text cells."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.inside, self.rows, self.cell = False, [], None  # type: ignore[var-annotated]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table" and dict(attrs).get("class") == "ledger":
            self.inside = True
        elif self.inside and tag == "tr":
            self.rows.append([])
        elif self.inside and tag == "td":
            self.cell = ""

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self.inside = False
        elif tag == "td" and self.cell is not None:
            self.rows[-1].append(self.cell)
            self.cell = None


def test_ledger_round_trip_scenario_store_report(report) -> None:
    """Scenario run -> store -> report: every ledger field on the page is the stored one."""
    _, page, sections = report
    parser = _Ledger()
    parser.feed(page)
    rows = [r for r in parser.rows if r]
    by = {s.name: s for s in sections}
    expected = []
    for name in ("pipe", "blocks"):  # section order on the page
        firsts: dict[str, object] = {}
        for r in sorted(by[name].runs, key=lambda r: r.repeat):
            firsts.setdefault(json.dumps(r.point, sort_keys=True), r)
        for run in firsts.values():
            led = run.result["privacy"]  # type: ignore[attr-defined]
            expected += [(e, led) for e in [*led["phases"], led["total"]]]
    assert len(rows) == len(expected) >= 8
    for row, (e, _) in zip(rows, expected, strict=True):
        _, phase, channel, parties, local, paper, central, delta, why, audit = row
        assert (phase, channel, parties) == (e["phase"], e["channel"], f"{e['parties']:,}")
        if e["local_epsilon"] is None:  # infinite (JSON null): an RRBA table with an empty cell
            assert local == "∞"
        else:
            assert float(local) == pytest.approx(e["local_epsilon"], rel=1e-3)
        if e["central_epsilon"] is None:
            assert central == "none" and delta == "—" and e["reason"] in why
        else:
            assert float(central) == pytest.approx(e["central_epsilon"], rel=1e-3) and e["bound"] == why
            assert float(delta) == pytest.approx(e["delta"], rel=0.05)
        assert paper == "" or float(paper) == pytest.approx(e["paper_epsilon"], rel=1e-3)
        assert audit == "—" if e["audit_lower"] is None else float(audit) == pytest.approx(e["audit_lower"], rel=1e-3)
    # the pipeline study audited (audit_trials): its phases carry audit_lower; RRBA's table answers do not
    pipe_rows = [e for e, led in expected if e["phase"] != "rrba answers" and e["phase"] != "total"]
    assert any(e["audit_lower"] is not None for e in pipe_rows)
    # rrba's paper figure differs from the true one and is shown; pipeline's direct phases amplify nothing
    assert any(r[1] == "rrba answers" and r[5] != "" for r in rows)
    direct = [r for r in rows if r[2] == "direct" and r[1] != "total"]
    assert direct and all(r[6] == r[4] or (r[4], r[6]) == ("∞", "none") for r in direct)
    # and the stored metric is the ledger's total
    for run in by["pipe"].runs:
        assert run.metrics["audit_lower_total"] == run.result["privacy"]["total"]["audit_lower"]


def test_ledger_plot_marks_each_run_on_the_stored_curve(report) -> None:
    _, _, sections = report
    sec = {s.name: s for s in sections}["pipe"]
    fig = next(f for f in sec.figures if f.key == "privacy-ledger")
    curves = [s for s in fig.series if s.style == "line"]
    marks = [s for s in fig.series if s.style == "markers"]
    assert len(curves) == len(marks) == 4  # one per grid point
    firsts: dict[str, object] = {}
    for r in sorted(sec.runs, key=lambda r: r.repeat):
        firsts.setdefault(json.dumps(r.point, sort_keys=True), r)
    for (curve, mark), run in zip(zip(curves, marks, strict=True), firsts.values(), strict=True):
        data = run.result["privacy"]["plot_data"]  # type: ignore[attr-defined]
        assert list(curve.y) == [c["central_epsilon"] for c in data["curve"]]
        assert mark.x == (data["parties"],) and mark.y == (data["mark"],)
