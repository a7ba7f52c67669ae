"""``mpc-rr classroom``: reproducible teaching traces, checked notes, valid mermaid and HTML.

Golden files live in ``golden/`` next to this file; regenerate them after an
intended change with ``MPC_RR_UPDATE_GOLDEN=1 pytest tests/scenarios/classroom``
and read the diff.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from mpc_rr.core import state_diagram
from mpc_rr.secure_sum.full_mesh import FullMeshParty
from mpc_rr.secure_sum.secagg import SecAggClient, SecAggServer
from scenarios.classroom import make_trace
from scenarios.classroom.lesson import build_trace
from scenarios.classroom.render import mermaid, mermaid_states, text
from scenarios.classroom.secure_sums import full_mesh_lesson
from scenarios.cli import main

GOLDEN = Path(__file__).parent / "golden"

CASES = {
    "full-mesh-3": ["full-mesh", "--parties", "3", "--seed", "7"],
    "full-mesh-4-drop": ["full-mesh", "--parties", "4", "--drop", "2@publish"],
    "secagg-5-drop": ["secagg", "--parties", "5", "--seed", "3", "--drop", "4@masked"],
    "pipeline-4-drop": ["pipeline", "--parties", "4", "--drop", "3@release"],
    "rrba-5": ["rrba", "--parties", "5"],
}


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["classroom", *args])
    return code, capsys.readouterr().out


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("fmt", ["text", "mermaid"])
def test_same_seed_same_trace_golden(name: str, fmt: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _cli([*CASES[name], "--format", fmt], capsys)
    path = GOLDEN / f"{name}.{'txt' if fmt == 'text' else 'mmd'}"
    if os.environ.get("MPC_RR_UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(out)
    assert out == path.read_text(), f"{path.name} changed (MPC_RR_UPDATE_GOLDEN=1 to accept)"
    assert code == (1 if name == "full-mesh-4-drop" else 0)


def test_another_seed_gives_other_shares_and_the_same_count() -> None:
    a, b = make_trace("full-mesh", 4, seed=1), make_trace("full-mesh", 4, seed=2)
    assert [i.values for i in a.messages] != [i.values for i in b.messages]
    assert a.ok and b.ok
    again = make_trace("full-mesh", 4, seed=1)
    assert text(again) == text(a) and mermaid(again) == mermaid(a)


def test_full_mesh_trace_numbers_every_message_and_checks_each_round() -> None:
    n = 5
    t = make_trace("full-mesh", n, seed=4)
    msgs = t.messages
    assert [m.number for m in msgs] == list(range(1, 3 * n * (n - 1) + 1))
    assert [m.type for m in msgs[: n * (n - 1)]] == ["MeshKey"] * (n * (n - 1))  # the key step first
    assert {m.type for m in msgs} == {"MeshKey", "MeshShare", "MeshPublish"}
    shares = [m for m in msgs if m.type == "MeshShare"]
    assert all(dict(m.values)["ciphertext"].startswith("20 B AES-256-GCM") for m in shares)
    assert all(f"P{m.dst} decrypts r_{m.src},{m.dst}" in dict(m.values) for m in shares)
    notes = [i.text for i in t.items if i.kind == "note"]
    assert sum("shares sum to [0 0 0 0] mod 6 (OK)" in x for x in notes) == n
    assert sum("(OK, equal to what it published)" in x for x in notes) == n
    assert not any("MISMATCH" in x or "NOT ZERO" in x for x in notes)
    inputs = np.asarray(t.extra["inputs"])
    assert f"plain count of the votes (computed directly, no protocol): [{' '.join(map(str, inputs.sum(0)))}]" in t.check[0]


def test_a_party_that_lies_about_its_vote_is_caught_by_the_notes_and_the_check() -> None:
    lesson = full_mesh_lesson(4, seed=5)
    liar = lesson.roles[2]
    assert isinstance(liar, FullMeshParty)
    liar.x = (liar.x + np.uint64(1)) % np.uint64(5)  # publishes r_2 with a vote it does not hold
    t = build_trace(lesson)
    notes = [i.text for i in t.items if i.kind == "note"]
    assert any(x.startswith("P2: r_2 =") and "MISMATCH" in x for x in notes)
    assert not t.ok and "WRONG" in " ".join(t.check)


def test_full_mesh_dropout_aborts_naming_the_silent_party(capsys: pytest.CaptureFixture[str]) -> None:
    t = make_trace("full-mesh", 4, seed=1, drops=["3@publish"])
    kinds = [i.kind for i in t.items]
    assert "drop" in kinds and "deadline" in kinds
    aborts = [i for i in t.items if i.kind == "abort"]
    assert {i.src for i in aborts} == {1, 2, 4}
    assert all("timed out waiting for parties [3]" in i.text for i in aborts)
    assert not t.ok and "no dropout tolerance" in t.check[-1]
    assert not any(m.src == 3 and m.type == "MeshPublish" for m in t.messages)


def test_secagg_within_the_bound_excludes_the_dropout_and_beyond_it_aborts() -> None:
    t = make_trace("secagg", 6, seed=2, drops=["5@masked"])
    assert t.ok
    assert "inputs included: P1, P2, P3, P4, P6; dropped: P5" in t.check[0]
    notes = " ".join(i.text for i in t.items if i.kind == "note")
    assert "not zero" in notes and "shares of its mask key" in notes
    # the survivor set leaves P5 out, and every survivor reveals only after the others signed it
    sets = [m for m in t.messages if m.type == "SurvivorSet"]
    assert sets and all(m.values == (("survivors", "P1, P2, P3, P4, P6"),) for m in sets)
    req = [m for m in t.messages if m.type == "UnmaskRequest"]
    assert req and all(m.values == (("survivors", "P1, P2, P3, P4, P6"), ("set signed by", "P1, P2, P3, P4"))
                       for m in req)  # a quorum: 4 of 6 (a class this small: everyone is on the committee)
    clean = make_trace("secagg", 6, seed=2)
    assert "so they cancel in the sum" in " ".join(i.text for i in clean.items if i.kind == "note")
    over = make_trace("secagg", 4, seed=2, drops=["1@masked", "2@masked"])
    assert not over.ok and over.check[0].startswith("no result:")
    assert [m for m in over.messages if m.type == "SecAggAbort"]


def test_pipeline_check_recomputes_centrally_and_shows_private_values_apart() -> None:
    t = make_trace("pipeline", 5, seed=3, drops=["2@record"])
    assert t.ok and "identical dependences, clusters, releases and estimates: OK" in t.check[1]
    assert "answers used: dependence phase P1, P3, P4, P5; release P1, P3, P4, P5" == t.check[0]
    rec = [m for m in t.messages if m.type == "RandomizedRecord"]
    assert len(rec) == 4 and all(m.values[1][0] == "true (private, not sent)" for m in rec)
    # the mermaid diagram shows only what the wire carries
    assert "private" not in mermaid(t)


def test_rrba_trace_equals_the_centralized_engine() -> None:
    t = make_trace("rrba", 6, seed=4, p=0.6)
    assert t.ok and "identical tables: OK" in t.check[0]
    assert [m.type for m in t.messages] == ["Tables", "Answer"] * 6
    assert "not on main" not in " ".join(t.setup) and "runs the roles themselves" in " ".join(t.setup)


@pytest.mark.parametrize(
    "args,error",
    [
        (["full-mesh", "--drop", "9@shares"], "party id must be a data party in 1..4"),
        (["full-mesh", "--drop", "1@masked"], "step must be one of keys, shares, publish"),
        (["secagg", "--drop", "1"], "--drop must be ID@STEP"),
        (["pipeline", "--options", "3"], "--options do not apply to pipeline"),
        (["rrba", "--drop", "1@record"], "--drop does not apply to rrba"),
        (["full-mesh", "--drop", "2@shares", "--drop", "2@publish"], "party 2 is dropped twice"),
    ],
)
def test_usage_errors(args: list[str], error: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["classroom", *args]) == 2
    assert error in capsys.readouterr().err


# -- mermaid grammar ------------------------------------------------------------------------

_TEXT = r"(?:[^;#<>\n\"`{}]|#lt;|#gt;|#quot;|<br/>)+"
_SEQ = [
    re.compile(r"sequenceDiagram"),
    re.compile(r"    participant (P\d+) as [\w .-]+"),
    re.compile(rf"    (P\d+)(?:->>|-x)(P\d+): {_TEXT}"),
    re.compile(rf"    Note over (P\d+)(?:,(P\d+))?: {_TEXT}"),
    re.compile(rf"    Note right of (P\d+): {_TEXT}"),
]
_STATE = [
    re.compile(r"stateDiagram-v2"),
    re.compile(r"    %% .*"),
    re.compile(r"    \[\*\] --> (\w+)"),
    re.compile(rf"    (\w+) --> (\w+): {_TEXT}"),
    re.compile(r"    (\w+) --> \[\*\]"),
]


def check_sequence(src: str) -> None:
    """The sequenceDiagram subset we emit: every line parses, every id is declared first."""
    lines = src.rstrip("\n").split("\n")
    assert lines[0] == "sequenceDiagram"
    declared: set[str] = set()
    for n, line in enumerate(lines[1:], 2):
        m = next((p.fullmatch(line) for p in _SEQ[1:] if p.fullmatch(line)), None)
        assert m is not None, f"line {n} is not valid mermaid: {line!r}"
        ids = [g for g in m.groups() if g]
        if line.startswith("    participant"):
            declared.add(ids[0])
        else:
            assert set(ids) <= declared, f"line {n} uses an undeclared participant: {line!r}"


def check_states(src: str) -> int:
    blocks = [b for b in src.split("\n\n") if b.strip()]
    for b in blocks:
        lines = b.rstrip("\n").split("\n")
        assert lines[0] == "stateDiagram-v2"
        for line in lines[1:]:
            assert any(p.fullmatch(line) for p in _STATE[1:]), f"invalid state line {line!r}"
    return len(blocks)


@pytest.mark.parametrize(
    "protocol,drops",
    [("full-mesh", []), ("full-mesh", ["1@shares"]), ("secagg", ["2@keys"]), ("secagg", ["3@unmask"]),
     ("pipeline", ["1@record"]), ("rrba", [])],
)  # fmt: skip
def test_mermaid_is_a_valid_sequence_diagram(protocol: str, drops: list[str]) -> None:
    t = make_trace(protocol, 5, seed=9, drops=drops)
    src = mermaid(t)
    check_sequence(src)
    arrows = [ln for ln in src.split("\n") if "->>" in ln or "-x" in ln]
    assert len(arrows) == len(t.messages)


def test_the_grammar_check_rejects_what_mermaid_rejects() -> None:
    with pytest.raises(AssertionError, match="not valid mermaid"):
        check_sequence("sequenceDiagram\n    participant P1 as P1\n    P1->>P1: a; b\n")
    with pytest.raises(AssertionError, match="undeclared"):
        check_sequence("sequenceDiagram\n    participant P1 as P1\n    P1->>P2: hello\n")
    with pytest.raises(AssertionError, match="invalid state line"):
        check_states("stateDiagram-v2\n    A -> B\n")


def test_state_diagrams_come_from_the_transition_tables() -> None:
    t = make_trace("secagg", 4, seed=1)
    src = mermaid_states(t)
    assert check_states(src) == 2
    blocks = src.split("\n\n")
    for cls, block in zip((SecAggClient, SecAggServer), blocks, strict=True):
        assert f"%% {cls.__name__}:" in block
        for s, event, d in state_diagram(cls):
            line = next(ln for ln in block.split("\n") if ln.startswith(f"    {s} --> {d}: "))
            assert event in line.split(": ", 1)[1].split(" / ")
    assert "    [*] --> KEYS" in src
    fm = mermaid_states(make_trace("full-mesh", 3, seed=1))
    assert "    SHARING --> PUBLISHING: all in" in fm and "[*] --> KEYS" in fm
    assert "    KEYS --> SHARING: all in" in fm
    assert check_states(fm) == 1


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("mmdc") is None, reason="mermaid-cli (mmdc) not installed")
def test_mermaid_cli_renders_it(tmp_path: Path) -> None:
    src = tmp_path / "t.mmd"
    src.write_text(mermaid(make_trace("secagg", 4, seed=1, drops=["2@masked"])))
    subprocess.run(["mmdc", "-i", str(src), "-o", str(tmp_path / "t.svg")], check=True, timeout=300)
    assert "<svg" in (tmp_path / "t.svg").read_text()


# -- HTML -----------------------------------------------------------------------------------

_VOID = {"meta", "br", "input", "img", "link", "hr"}


class _Checker(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.errors: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag not in _VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()


def test_html_is_one_self_contained_well_formed_page(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "trace.html"
    assert main(["classroom", "secagg", "--parties", "4", "--drop", "2@masked", "--format", "html",
                 "--out", str(out)]) == 0  # fmt: skip
    assert "wrote" in capsys.readouterr().err
    page = out.read_text()
    chk = _Checker()
    chk.feed(page)
    chk.close()
    assert not chk.errors and chk.stack == [], (chk.errors, chk.stack)
    for tag, attrs in chk.tags:  # nothing loaded from elsewhere
        assert tag not in ("link", "img", "iframe")
        assert not (tag == "script" and attrs.get("src"))
        for k, v in attrs.items():  # (xmlns names a namespace; it loads nothing)
            assert k == "xmlns" or not (v or "").startswith(("http:", "https:", "//"))
    steps = json.loads(re.search(r'<script type="application/json" id="steps">(.*?)</script>', page, re.S)[1])
    t = make_trace("secagg", 4, seed=1, drops=["2@masked"])
    stepped = [i for i in t.items if i.kind not in ("round", "state")]
    assert len(steps) == len(stepped)
    rows = set(map(int, re.findall(r'data-row="(\d+)"', page)))
    assert {s["row"] for s in steps} <= rows
    assert steps[-1]["states"]["P2"] == "CRASHED" and steps[-1]["states"]["Agg"] == "DONE"
    assert page.count('class="states"') == 2  # SecAggClient and SecAggServer diagrams
    assert "TEACHING TRACE, NOT A DEPLOYMENT" in page


def test_json_format_round_trips(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _cli(["pipeline", "--parties", "3", "--json"], capsys)
    d = json.loads(out)
    assert code == 0 and d["ok"] and d["protocol"] == "pipeline"
    assert [i["number"] for i in d["items"] if i["kind"] == "message"] == list(range(1, 10))
    assert d["diagrams"][0]["role"] == "DataParty"


@pytest.mark.parametrize(
    "lesson,drop",
    [("full_mesh_lesson", "publish"), ("secagg_lesson", "masked"), ("pipeline_lesson", "release")],
)
def test_the_memory_transport_carries_the_same_bytes_as_the_trace(lesson: str, drop: str) -> None:
    """The trace runs in the harness (reproducible order); over the memory transport the same
    roles send byte-identical messages, dropouts included."""
    from collections import Counter

    from parties.runner import MemoryRunner
    from scenarios.classroom import pipeline, secagg_lesson, secure_sums
    from scenarios.classroom.record import record

    make = next(getattr(m, lesson) for m in (secure_sums, secagg_lesson, pipeline) if hasattr(m, lesson))
    harness = record(make(5, seed=3, drops={2: drop}).roles).run.transcript
    memory = MemoryRunner(transcript=True)(make(5, seed=3, drops={2: drop}).roles).transcript
    assert harness is not None and memory is not None
    want = Counter((e.src, e.dst, e.data) for e in harness if e.delivered)
    assert Counter((e.src, e.dst, e.data) for e in memory) == want and len(want) > 10


def test_a_cheating_aggregator_is_caught_in_class() -> None:
    """`mpc-rr classroom secagg --cheat equivocate`: the trace shows who caught it and how."""
    t = make_trace("secagg", 6, seed=1, cheat="equivocate")
    assert t.ok and t.check[0] == "The aggregator cheated (equivocate)."
    assert any(line.startswith("P") and "caught it" in line and "survivor set" in line for line in t.check)
    assert t.check[-1] == "inputs the aggregator recovered: 0"
