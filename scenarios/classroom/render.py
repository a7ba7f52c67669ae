"""Render a :class:`~.trace.Trace` as text, a mermaid ``sequenceDiagram`` or mermaid state diagrams.

HTML lives in :mod:`.html`.  Every renderer is a pure function of the trace.
"""

from __future__ import annotations

import re
import textwrap

from scenarios.classroom.trace import Item, Trace

__all__ = ["mermaid", "mermaid_markdown", "mermaid_states", "size_text", "text", "values_text"]

_WIDTH = 100


def values_text(item: Item) -> str:
    return "; ".join(f"{k} = {v}" for k, v in item.values)


def _wrap(text: str, first: str, rest: str) -> list[str]:
    return textwrap.wrap(
        text, _WIDTH, initial_indent=first, subsequent_indent=rest, break_on_hyphens=False
    ) or [first.rstrip()]


def size_text(it: Item) -> str:
    """``"87 B"``, or ``"-"`` for a logical message without a wire format (RRBA before its roles)."""
    return f"{it.size} B" if it.size else "-"


def _name(trace: Trace, pid: int) -> str:
    return trace.participants.get(pid, f"P{pid}")


def text(trace: Trace) -> str:
    """The numbered trace for a terminal (or a handout)."""
    out = [f"mpc-rr classroom {trace.protocol}: {trace.title} (seed {trace.seed})"]
    out += _wrap(trace.disclaimer, "", "")
    out.append("")
    for line in trace.setup:
        out += _wrap(line, "", "    ") if not line.startswith("  ") else [line]
    width = max((len(i.type) for i in trace.messages), default=10)
    for it in trace.items:
        if it.kind == "round":
            out += ["", *_wrap(it.text, "", "    ")]
        elif it.kind == "message":
            head = (
                f"  #{it.number:<3d} {_name(trace, it.src):>4} -> {_name(trace, it.dst):<4} "
                f"{it.type:<{width}} {size_text(it):>7}  "
            )
            out += _wrap(values_text(it), head, " " * len(head))
        elif it.kind == "state":
            frm = f" from {_name(trace, it.dst)}" if it.dst >= 0 else ""
            out.append(f"{'':8}[{_name(trace, it.src)}: {it.text} after {it.type}{frm}]")
        elif it.kind == "note":
            out += _wrap(it.text, "  note: ", "        ")
        else:  # deadline, drop, abort, reject
            label = {"deadline": "DEADLINE", "drop": "DROPOUT", "abort": "ABORT", "reject": "REJECTED"}[it.kind]
            out += _wrap(it.text, f"  {label}: ", "        ")
    out += ["", "Check against the plain computation:"]
    out += [ln for c in trace.check for ln in _wrap(c, "  ", "    ")]
    verdict = (
        "OK: the protocol's result equals the plain computation."
        if trace.ok
        else "NO RESULT EQUAL TO THE PLAIN COMPUTATION (see above)."
    )
    if "verdict" in trace.extra:  # a lesson whose check is not the plain computation (cheat, noise)
        verdict = str(trace.extra["verdict"][0 if trace.ok else 1])
    out += ["", verdict, ""]
    return "\n".join(out)


# -- mermaid ---------------------------------------------------------------------------------

_ENTITIES = {"#": "", "<": "#lt;", ">": "#gt;", '"': "#quot;", "{": "(", "}": ")", "`": "'", ";": ","}


def _mtext(s: str, limit: int = 160) -> str:
    """Text safe inside a mermaid message or note (no statement separators, entities or HTML)."""
    s = re.sub(r"\s+", " ", s).strip()
    s = s if len(s) <= limit else s[: limit - 3] + "..."
    return "".join(_ENTITIES.get(c, c) for c in s)


def _mnote(s: str, limit: int = 320, width: int = 70) -> str:
    """Note text, wrapped with ``<br/>`` (the only markup emitted; the text itself has none)."""
    s = re.sub(r"\s+", " ", s).strip()
    s = s if len(s) <= limit else s[: limit - 3] + "..."
    return "<br/>".join(_mtext(ln) for ln in textwrap.wrap(s, width, break_on_hyphens=False))


def _mid(trace: Trace, pid: int) -> str:
    return "P0" if pid == 0 else f"P{pid}"


def mermaid(trace: Trace) -> str:
    """A mermaid ``sequenceDiagram``: one arrow per message, notes per round, dropouts as crosses."""
    lines = ["sequenceDiagram"]
    for pid, name in sorted(trace.participants.items()):
        lines.append(f"    participant {_mid(trace, pid)} as {_mtext(name)}")
    everyone = sorted(trace.participants)
    first, last = _mid(trace, everyone[0]), _mid(trace, everyone[-1])
    span = first if first == last else f"{first},{last}"
    for it in trace.items:
        if it.kind == "round":
            lines.append(f"    Note over {span}: {_mnote(it.text, width=110)}")
        elif it.kind == "message":
            arrow = "->>" if it.delivered else "-x"
            wire = [(k, v) for k, v in it.values if "private" not in k]  # what the wire carries
            shown = "; ".join(f"{k} = {v}" for k, v in wire)
            label = _mtext(f"{it.number}. {it.type} ({size_text(it)}) {shown}", 120)
            lines.append(f"    {_mid(trace, it.src)}{arrow}{_mid(trace, it.dst)}: {label}")
        elif it.kind == "note":
            who = [p for p in it.parties if p in trace.participants] or everyone
            lo, hi = _mid(trace, min(who)), _mid(trace, max(who))
            lines.append(f"    Note over {lo if lo == hi else f'{lo},{hi}'}: {_mnote(it.text)}")
        elif it.kind in ("deadline", "drop", "abort", "reject"):
            label = {"deadline": "", "drop": "DROPOUT: ", "abort": "ABORT: ", "reject": "rejected: "}[it.kind]
            lines.append(f"    Note right of {_mid(trace, it.src)}: {_mnote(label + it.text)}")
    verdict = "result equals the plain computation" if trace.ok else "no result equal to the plain computation"
    if "verdict" in trace.extra:
        verdict = str(trace.extra["verdict"][0 if trace.ok else 1])
    lines.append(f"    Note over {span}: {_mtext('check - ' + verdict)}")
    return "\n".join(lines) + "\n"


def _state_id(name: str) -> str:
    return re.sub(r"\W", "_", name)


def mermaid_markdown(trace: Trace) -> str:
    """The sequence diagram and each role's state diagram as a Markdown document, one
    fenced ``mermaid`` block per diagram: what mermaid-cli renders as several diagrams
    (``mmdc -i FILE.md -o OUT.md``; one ``.mmd`` file holds only one diagram)."""
    parts = [f"# {trace.title}\n", "## Messages\n", "```mermaid\n" + mermaid(trace).rstrip("\n") + "\n```\n"]
    for (role, _, _), block in zip(trace.diagrams, mermaid_states(trace).split("\n\n"), strict=True):
        parts += [f"## {role}: states\n", "```mermaid\n" + block.rstrip("\n") + "\n```\n"]
    return "\n".join(parts)


def mermaid_states(trace: Trace) -> str:
    """Each role's transition table as a mermaid ``stateDiagram-v2`` (one diagram per role class)."""
    blocks = []
    for role, initial, edges in trace.diagrams:
        lines = ["stateDiagram-v2", f"    %% {role}: its TRANSITIONS table (mpc_rr.core.state_diagram)"]
        if initial:
            lines.append(f"    [*] --> {_state_id(initial)}")
        merged: dict[tuple[str, str], list[str]] = {}
        for src, event, dst in edges:  # mermaid draws one label per pair of states
            merged.setdefault((src, dst), []).append(event)
        for (src, dst), events in merged.items():
            lines.append(f"    {_state_id(src)} --> {_state_id(dst)}: {_mtext(' / '.join(events))}")
        targets = {d for _, _, d in edges}
        for end in ("DONE", "ABORTED"):
            if end in targets:
                lines.append(f"    {end} --> [*]")
        blocks.append("\n".join(lines) + "\n")
    return "\n".join(blocks)
