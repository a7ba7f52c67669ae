"""One self-contained HTML page that steps forward and back through a classroom trace.

No external file, font or script: an inline SVG sequence diagram (one row per
trace item; rows after the current step are dimmed, so the diagram unfolds as
the class steps through it), a panel with the current message's decoded
values, the round's notes and every party's state after the step, the
transition tables as small SVG state diagrams, and the mermaid sources to copy.
Keys: right / left arrows (or space / backspace, or PageDown / PageUp as presenter clickers
send), Home, End.
"""

from __future__ import annotations

import html
import json
from collections import defaultdict

from scenarios.classroom.render import mermaid, mermaid_states, size_text
from scenarios.classroom.trace import Trace

__all__ = ["render_html"]

_COL = 120  # px between lifelines
_ROW = 24  # px per trace row
_LEFT = 70
_TOP = 56


def _esc(s: object) -> str:
    return html.escape(str(s), quote=True)


def _name(t: Trace, pid: int) -> str:
    return t.participants.get(pid, f"P{pid}")


def _steps(trace: Trace) -> list[dict[str, object]]:
    """The stepping sequence: every item but round headers and state changes, with context."""
    states = dict(trace.initial_states)
    round_title = ""
    round_notes: dict[str, list[str]] = defaultdict(list)
    for it in trace.items:  # notes belong to the round they close
        if it.kind == "round":
            round_title = it.text
        elif it.kind == "note":
            round_notes[round_title].append(it.text)
    steps: list[dict[str, object]] = []
    round_title = ""
    for row, it in enumerate(trace.items):
        if it.kind == "round":
            round_title = it.text
            continue
        if it.kind == "state":
            states[it.src] = it.text.split(" -> ")[-1]
            continue
        if it.kind == "drop":
            states[it.src] = "CRASHED"
        elif it.kind == "abort":
            states[it.src] = "ABORTED"
        steps.append({
            "row": row,
            "kind": it.kind,
            "number": it.number,
            "head": (
                f"#{it.number} {_name(trace, it.src)} \u2192 {_name(trace, it.dst)}: {it.type} "
                f"({size_text(it)}{'' if it.delivered else ', never delivered'})"
                if it.kind == "message"
                else {"note": "Note", "deadline": "Deadline", "drop": "Dropout", "abort": "Abort",
                      "reject": "Rejected message"}[it.kind]
            ),
            "values": [list(v) for v in it.values],
            "text": it.text,
            "round": round_title,
            "notes": round_notes.get(round_title, []),
            "states": {_name(trace, p): s for p, s in sorted(states.items())},
        })
    return steps


def _heads_svg(trace: Trace) -> str:
    """The participants' names over their lifelines: a strip that stays at the top of the
    scrolling diagram (on a projector the first rows scroll away, the names must not)."""
    ids = sorted(trace.participants)
    x = {p: _LEFT + k * _COL for k, p in enumerate(ids)}
    width = _LEFT + (len(ids) - 1) * _COL + _LEFT + 240
    out = [f'<svg id="heads" xmlns="http://www.w3.org/2000/svg" width="{width}" height="46" '
           f'viewBox="0 0 {width} 46" role="img" aria-label="participants">']  # fmt: skip
    for p in ids:
        out.append(
            f'<line class="life" x1="{x[p]}" y1="38" x2="{x[p]}" y2="46"/>'
            f'<rect class="actor" x="{x[p] - 42}" y="8" width="84" height="30" rx="6"/>'
            f'<text class="actor-t" x="{x[p]}" y="28">{_esc(_name(trace, p))}</text>'
        )
    return "".join(out) + "</svg>"


def _sequence_svg(trace: Trace) -> str:
    ids = sorted(trace.participants)
    x = {p: _LEFT + k * _COL for k, p in enumerate(ids)}
    width = _LEFT + (len(ids) - 1) * _COL + _LEFT + 240
    height = _TOP - 46 + _ROW * (sum(it.kind != "state" for it in trace.items) + 1)
    out = [
        f'<svg id="seq" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="sequence diagram">',
        '<defs><marker id="ah" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
        'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
        'fill="context-stroke"/></marker></defs>',
    ]
    for p in ids:
        out.append(f'<line class="life" x1="{x[p]}" y1="0" x2="{x[p]}" y2="{height}"/>')
    y = _TOP - 46  # the names are in the sticky strip above (_heads_svg)
    for row, it in enumerate(trace.items):
        if it.kind == "state":
            continue
        y += _ROW
        g = f'<g class="row k-{it.kind}" id="r{row}" data-row="{row}">'
        if it.kind == "message":
            x1, x2 = x.get(it.src, _LEFT), x.get(it.dst, _LEFT)
            cls = "msg" if it.delivered else "msg lost"
            label = f"#{it.number} {it.type}"
            if it.values and len(it.values[0][1]) <= 24:
                label += f" {it.values[0][1]}"
            # centred on the arrow, but never starting left of the diagram (the first arrows'
            # labels, bold when current, lost their "#1 Adve" there; ~9.3 px a character at 14 px bold)
            mid = max((x1 + x2) / 2, 6 + 9.3 * len(label) / 2)
            g += (
                f'<line class="{cls}" x1="{x1}" y1="{y}" x2="{x2 + (-4 if x2 > x1 else 4)}" '
                f'y2="{y}" marker-end="url(#ah)"/>'
                f'<text class="lbl" x="{mid}" y="{y - 4}">{_esc(label)}</text>'
            )
        elif it.kind == "round":
            g += (
                f'<rect class="band" x="4" y="{y - 15}" width="{width - 8}" height="20" rx="3"/>'
                f'<text class="band-t" x="10" y="{y}">{_esc(it.text[:110])}</text>'
            )
        else:
            px = x.get(it.src, x[ids[0]]) if it.src >= 0 else x[ids[0]]
            if it.kind == "note" and it.parties:
                px = x.get(min(it.parties), px)
            short = it.text if len(it.text) <= 90 else it.text[:87] + "..."
            tag = {"note": "note", "deadline": "deadline", "drop": "DROPOUT", "abort": "ABORT",
                   "reject": "rejected"}[it.kind]  # fmt: skip
            g += (
                f'<circle class="dot" cx="{px}" cy="{y - 5}" r="5"/>'
                f'<text class="ev" x="{px + 10}" y="{y}">{_esc(tag)}: {_esc(short)}</text>'
            )
        out.append(g + "</g>")
    out.append("</svg>")
    return "".join(out)


def _state_svg(role: str, initial: str, edges: tuple[tuple[str, str, str], ...]) -> str:
    """States left to right; forward edges arc above, backward below, self-loops listed under."""
    order: list[str] = [initial] if initial else []
    for s, _, d in edges:
        for v in (s, d):
            if v not in order:
                order.append(v)
    for end in ("DONE", "ABORTED"):  # ends last
        if end in order:
            order.remove(end)
            order.append(end)
    pos = {s: 70 + k * 190 for k, s in enumerate(order)}
    width = 70 + len(order) * 190
    labels: dict[tuple[str, str], list[str]] = defaultdict(list)
    for s, e, d in edges:
        labels[(s, d)].append(e)
    loops = {s: labels.pop((s, s)) for s in order if (s, s) in labels}
    def span(e: tuple[str, str]) -> tuple[int, int]:
        return (abs(order.index(e[1]) - order.index(e[0])), order.index(e[0]))

    # short arcs low, long arcs high, so labels do not collide
    fwd = sorted(((k, v) for k, v in labels.items() if order.index(k[1]) > order.index(k[0])),
                 key=lambda kv: span(kv[0]))  # fmt: skip
    back = sorted(((k, v) for k, v in labels.items() if order.index(k[1]) < order.index(k[0])),
                  key=lambda kv: span(kv[0]))  # fmt: skip
    top = 40 + 22 * len(fwd)
    loop_lines = max((len(v) for v in loops.values()), default=0)
    height = top + 44 + 16 * loop_lines + 22 * len(back) + 30
    out = [
        f'<svg class="states" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="{_esc(role)} state diagram">'
    ]
    for s in order:
        cls = "st end" if s in ("DONE", "ABORTED") else "st"
        out.append(
            f'<rect class="{cls}" x="{pos[s]}" y="{top}" width="160" height="34" rx="17"/>'
            f'<text class="st-t" x="{pos[s] + 80}" y="{top + 22}">{_esc(s)}</text>'
        )
        if s == initial:
            out.append(f'<text class="st-init" x="{pos[s] - 8}" y="{top + 21}">start \u2192</text>')
        for k, ev in enumerate(loops.get(s, [])):
            out.append(
                f'<text class="loop" x="{pos[s] + 80}" y="{top + 52 + 16 * k}">\u21ba {_esc(ev)}</text>'
            )
    for k, ((s, d), evs) in enumerate(fwd):
        x1, x2 = pos[s] + 120, pos[d] + 40
        h = top - 24 - 22 * k
        apex = top + 0.75 * (h - top)  # of the cubic with both control points at height h
        out.append(
            f'<path class="edge" d="M{x1},{top} C{x1},{h} {x2},{h} {x2},{top - 2}" '
            f'marker-end="url(#sah)"/>'
            f'<text class="edge-t" x="{(x1 + x2) / 2}" y="{apex - 4:.0f}">{_esc(" / ".join(evs))}</text>'
        )
    base = top + 34
    below = base + 20 + 16 * loop_lines
    for k, ((s, d), evs) in enumerate(back):
        x1, x2 = pos[s] + 40, pos[d] + 120
        h = below + 22 * k
        out.append(
            f'<path class="edge back" d="M{x1},{base} C{x1},{h} {x2},{h} {x2},{base + 2}" '
            f'marker-end="url(#sah)"/>'
            f'<text class="edge-t" x="{(x1 + x2) / 2}" y="{h + 12}">{_esc(" / ".join(evs))}</text>'
        )
    out.insert(
        1,
        '<defs><marker id="sah" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
        'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
        'fill="#555"/></marker></defs>',
    )
    out.append("</svg>")
    return "".join(out)


_CSS = """
body{font:14px/1.4 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1d2330;background:#f6f7fb}
header{padding:14px 22px;background:#1f3b63;color:#fff}
header h1{font-size:19px;margin:0 0 4px}
.warn{background:#fff3cd;color:#5c4500;border-left:5px solid #e0a800;padding:8px 12px;margin:10px 22px;font-size:13px}
main{display:grid;grid-template-columns:minmax(0,1fr) 430px;gap:16px;padding:0 22px 22px}
#diagram{overflow:auto;max-height:78vh;background:#fff;border:1px solid #d5d9e4;border-radius:8px}
aside{position:sticky;top:8px;align-self:start;background:#fff;border:1px solid #d5d9e4;border-radius:8px;padding:12px 14px;max-height:92vh;overflow:auto}
@media (max-width:1180px){main{grid-template-columns:minmax(0,1fr)}#diagram{max-height:52vh}aside{position:static;max-height:none}}
@media (max-width:600px){header,.warn{margin-left:0;margin-right:0}main,section.extra{padding-left:8px;padding-right:8px}header h1{font-size:17px}}
.controls{display:flex;gap:6px;align-items:center;flex-wrap:wrap;margin-bottom:8px}
button{font:inherit;padding:4px 10px;border:1px solid #9aa6bf;border-radius:5px;background:#eef2fa;cursor:pointer}
button:hover{background:#dde6f7}
#pos{font-variant-numeric:tabular-nums;color:#44506a}
input[type=range]{width:100%}
h2{font-size:15px;margin:12px 0 6px}
#head{font-weight:600;font-size:15px}
table{border-collapse:collapse;width:100%;font-size:13px}
td,th{border-bottom:1px solid #e4e7ef;padding:3px 6px;text-align:left;vertical-align:top}
td.v{font-family:ui-monospace,Menlo,Consolas,monospace;word-break:break-word}
.note{background:#f1f6ff;border-left:3px solid #4a78c2;padding:5px 8px;margin:5px 0;font-size:13px}
.ok{color:#11672f;font-weight:600}.bad{color:#a1121b;font-weight:600}
section.extra{padding:0 22px 22px}
.wide{overflow-x:auto;max-width:100%}
pre{background:#fff;border:1px solid #d5d9e4;border-radius:6px;padding:8px;overflow:auto;font-size:12px}
svg text{font:12px system-ui,sans-serif}
.life{stroke:#b8c0d2;stroke-dasharray:4 4}
.heads{position:sticky;top:0;z-index:2;background:#fff;border-bottom:1px solid #e4e7ef;width:max-content}
#heads,#seq{display:block}
.actor{fill:#1f3b63}.actor-t{fill:#fff;text-anchor:middle;font-weight:600}
.msg{stroke:#2d5fa8;stroke-width:1.6}.msg.lost{stroke:#a1121b;stroke-dasharray:5 3}
.lbl{text-anchor:middle;fill:#1d2330;font-size:14px;paint-order:stroke;stroke:#fff;stroke-width:5px;stroke-linejoin:round}
svg text.lbl{font-size:14px}
.band{fill:#e7ecf6}.band-t{font-weight:600;fill:#1f3b63}
.dot{fill:#4a78c2}.k-drop .dot,.k-abort .dot{fill:#a1121b}.k-deadline .dot{fill:#e0a800}
.ev{fill:#44506a;paint-order:stroke;stroke:#fff;stroke-width:3px;stroke-linejoin:round}.k-drop .ev,.k-abort .ev{fill:#a1121b;font-weight:600}
.row.future{opacity:.13}
.row.cur .msg{stroke:#e07a00;stroke-width:3}.row.cur text{font-weight:700}
.row.cur .dot{r:7}
.row{cursor:pointer}
.states{background:#fff;border:1px solid #d5d9e4;border-radius:6px;margin:4px 0 14px}
.st{fill:#e7ecf6;stroke:#1f3b63}.st.end{fill:#eaf6ee;stroke:#11672f}
.st-t{text-anchor:middle;font-weight:600}.st-init{text-anchor:end;fill:#44506a;font-size:11px}
.loop{text-anchor:middle;fill:#44506a;font-size:11px}
.edge{fill:none;stroke:#555;stroke-width:1.3}.edge.back{stroke-dasharray:4 3}
.edge-t{text-anchor:middle;fill:#1d2330;font-size:11px;paint-order:stroke;stroke:#fff;stroke-width:3px;stroke-linejoin:round}
"""

_JS = """
const steps = JSON.parse(document.getElementById('steps').textContent);
let cur = 0;
const rows = Array.from(document.querySelectorAll('#seq .row'));
const slider = document.getElementById('slider');
slider.max = steps.length - 1;
function esc(s){const d=document.createElement('div');d.textContent=s;return d.innerHTML;}
function show(i){
  cur = Math.max(0, Math.min(steps.length - 1, i));
  const s = steps[cur];
  rows.forEach(r => {
    const k = +r.dataset.row;
    r.classList.toggle('future', k > s.row);
    r.classList.toggle('cur', k === s.row);
  });
  document.getElementById('pos').textContent = 'step ' + (cur + 1) + ' of ' + steps.length;
  slider.value = cur;
  document.getElementById('round').textContent = s.round;
  document.getElementById('head').textContent = s.head;
  let v = '';
  if (s.values.length) {
    v = '<table>' + s.values.map(p => '<tr><th>' + esc(p[0]) + '</th><td class="v">' + esc(p[1]) + '</td></tr>').join('') + '</table>';
  } else if (s.text) { v = '<div class="note">' + esc(s.text) + '</div>'; }
  document.getElementById('values').innerHTML = v;
  document.getElementById('notes').innerHTML = s.notes.map(n => '<div class="note">' + esc(n) + '</div>').join('') || '<i>none</i>';
  document.getElementById('states').innerHTML = '<table>' + Object.entries(s.states).map(e => '<tr><th>' + esc(e[0]) + '</th><td>' + esc(e[1]) + '</td></tr>').join('') + '</table>';
  const el = document.getElementById('r' + s.row);
  if (el && el.scrollIntoView) { el.scrollIntoView({block: 'nearest'}); }
  // the current label whole in view: a sideways-scrolled diagram cut it at the left edge
  const box = document.getElementById('diagram'), lbl = el && el.querySelector('text');
  if (box && lbl && lbl.getBBox) {
    const b = lbl.getBBox(), pad = 24;
    if (b.x - pad < box.scrollLeft || b.x + b.width + pad > box.scrollLeft + box.clientWidth) {
      box.scrollLeft = Math.max(0, b.width + 2 * pad > box.clientWidth ? b.x - pad : b.x + b.width / 2 - box.clientWidth / 2);
    }
  }
  if (history.replaceState) { history.replaceState(null, '', '#step-' + (cur + 1)); }
}
document.getElementById('first').onclick = () => show(0);
document.getElementById('prev').onclick = () => show(cur - 1);
document.getElementById('next').onclick = () => show(cur + 1);
document.getElementById('last').onclick = () => show(steps.length - 1);
slider.oninput = () => show(+slider.value);
rows.forEach(r => r.addEventListener('click', () => {
  const k = +r.dataset.row; const j = steps.findIndex(s => s.row >= k); if (j >= 0) show(j);
}));
document.addEventListener('keydown', e => {
  // PageDown / PageUp: what presenter clickers send
  if (e.key === 'ArrowRight' || e.key === ' ' || e.key === 'PageDown') { show(cur + 1); e.preventDefault(); }
  else if (e.key === 'ArrowLeft' || e.key === 'Backspace' || e.key === 'PageUp') { show(cur - 1); e.preventDefault(); }
  else if (e.key === 'Home') { show(0); } else if (e.key === 'End') { show(steps.length - 1); }
});
const m = /^#step-(\\d+)$/.exec(location.hash);
show(m ? +m[1] - 1 : 0);
"""


def render_html(trace: Trace) -> str:
    """The page (see module docstring)."""
    steps = _steps(trace)
    data = json.dumps(steps, ensure_ascii=True).replace("</", "<\\/")
    setup = "".join(
        f"<li><code>{_esc(s.strip())}</code></li>" if s.startswith("  ") else f"<li>{_esc(s)}</li>"
        for s in trace.setup
    )
    check = "".join(f"<li>{_esc(c)}</li>" for c in trace.check)
    verdict = (
        '<p class="ok">OK: the protocol\'s result equals the plain computation.</p>'
        if trace.ok
        else '<p class="bad">No result equal to the plain computation (see above).</p>'
    )
    if "verdict" in trace.extra:  # a lesson whose check is not the plain computation (cheat, noise)
        ok = bool(trace.ok)
        verdict = f'<p class="{"ok" if ok else "bad"}">{_esc(str(trace.extra["verdict"][0 if ok else 1]))}</p>'
    states = "".join(
        f'<h3>{_esc(role)}</h3><div class="wide">{_state_svg(role, initial, edges)}</div>'
        for role, initial, edges in trace.diagrams
    )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>mpc-rr classroom {_esc(trace.protocol)}: {_esc(trace.title)}</title>
<style>{_CSS}</style></head>
<body>
<header><h1>mpc-rr classroom {_esc(trace.protocol)}: {_esc(trace.title)}</h1>
<div>seed {trace.seed} &middot; {len(trace.messages)} messages &middot; driver: {_esc(trace.runner)} &middot; keys: &larr; &rarr; (PageDown / PageUp)</div></header>
<div class="warn">{_esc(trace.disclaimer)}</div>
<main>
<div id="diagram"><div class="heads">{_heads_svg(trace)}</div>{_sequence_svg(trace)}</div>
<aside>
<div class="controls"><button id="first" title="first (Home)">&laquo; first</button><button id="prev" title="back (&larr;)">&#x25C0; back</button><button id="next" title="forward (&rarr;)">forward &#x25B6;</button><button id="last" title="last (End)">last &raquo;</button><span id="pos"></span></div>
<input id="slider" type="range" min="0" value="0" aria-label="step">
<h2 id="round"></h2>
<div id="head"></div>
<div id="values"></div>
<h2>Notes of this round</h2><div id="notes"></div>
<h2>State of every party after this step</h2><div id="states"></div>
</aside>
</main>
<section class="extra">
<h2>Set-up</h2><ul>{setup}</ul>
<h2>Check against the plain computation</h2><ul>{check}</ul>{verdict}
<h2>The roles' transition tables (state diagrams)</h2>{states}
<details><summary>mermaid source: sequence diagram</summary><pre>{_esc(mermaid(trace))}</pre></details>
<details><summary>mermaid source: state diagrams</summary><pre>{_esc(mermaid_states(trace))}</pre></details>
</section>
<script type="application/json" id="steps">{data}</script>
<script>{_JS}</script>
</body></html>
"""

