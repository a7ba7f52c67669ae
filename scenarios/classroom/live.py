"""A live class (``mpc-rr classroom serve``): the students are the parties, from their browsers.

The lesson side of the live room (:class:`parties.room.Room` runs it,
:mod:`transports.websocket` carries it):

* ``full-mesh``: the secure sum of Domingo-Ferrer & Soria-Comas, Sec. 4.2,
  with the board publication -- the server runs the library's
  :class:`~mpc_rr.secure_sum.full_mesh.BulletinBoard` (party 0) and relays the
  encrypted shares; each browser runs the data party (``static/student.js``),
  each ``--bots`` student is the library's
  :class:`~mpc_rr.secure_sum.full_mesh.FullMeshParty`.  Each student's answer is a
  one-hot vector over the options, so the total counts each option (mod
  ``n + 1``: exact).  No dropout tolerance: a student who leaves mid-round
  makes it abort, naming who.
* ``secagg``: SecAgg+ -- the server runs the library's
  :class:`~mpc_rr.secure_sum.secagg.SecAggServer`; each browser the client
  (``static/secagg.js``), each bot :class:`~mpc_rr.secure_sum.secagg.SecAggClient`.
  Up to :data:`SECAGG_DROPOUT` of the class may leave mid-round: the total is
  exact over those who stayed.
* ``rr-survey``: randomized response (keep the answer with probability ``p``,
  else a uniform answer: :func:`~mpc_rr.mechanisms.keep_or_uniform`), the coin
  flipped in the browser; only the randomized answer is sent, through the
  plain sum (:class:`~mpc_rr.secure_sum.plainsum.PlainSumHub`, which sums
  whoever answered by its deadline).  The estimate inverts Eq. 2 (closed form)
  with a normal-approximation 95% interval.

The browser builds its messages from :func:`wire_schema`, read off the
library's message classes (no second definition of the wire).
"""

from __future__ import annotations

import importlib.resources
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import msgspec
import numpy as np

from mpc_rr.core import DropPoint, Message, Role, UsageError, WireArray
from scenarios.classroom import LIVE_LESSONS, LIVE_PROTOCOLS
from scenarios.classroom.fingerprint import roster_fingerprint

__all__ = ["LIVE_PROTOCOLS", "Lesson", "estimate_counts", "make_round", "pages", "wire_schema"]

MESH, SECAGG = LIVE_PROTOCOLS[:2]  # the full mesh (through the board) and SecAgg+

SECAGG_DROPOUT = 0.34
"""SecAgg+'s tolerated dropout fraction in class (a third of the room may leave mid-round)."""

_Z95 = 1.959963984540054


@dataclass(frozen=True)
class Lesson:
    """What the teacher chose: protocol, question, answers, RR's keep probability, bots' seed."""

    protocol: str
    question: str = "Did you sleep more than 7 hours last night?"
    options: tuple[str, ...] = ("Yes", "No")
    p: float = 0.5
    seed: int = 0
    drop_bot: str | None = None
    """The last bot crashes instead of sending its message of this step (``keys``, ``shares``,
    ``masked``, ...: the protocol's steps), to show a dropout without asking a student."""
    epsilon: float = 1.0
    """The noise lesson: the central epsilon of the noisy total (at delta ``1e-6``)."""

    def __post_init__(self) -> None:
        if self.protocol not in LIVE_PROTOCOLS:
            raise UsageError(f"--protocol must be one of {', '.join(LIVE_PROTOCOLS)}, got {self.protocol!r}")
        if not 2 <= len(self.options) <= 8:
            raise UsageError(f"--options: 2 to 8 answers, got {len(self.options)}")
        if len(set(self.options)) != len(self.options):
            raise UsageError(f"--options: answers must differ, got {list(self.options)}")
        if not 0.0 < self.p <= 1.0:
            raise UsageError(f"--p must be in (0, 1], got {self.p}")
        if not 0.0 < self.epsilon < float("inf"):
            raise UsageError(f"--epsilon must be finite and > 0, got {self.epsilon}")
        if self.drop_bot is not None and self.drop_bot not in drop_steps(self.protocol):
            steps = ", ".join(drop_steps(self.protocol)) or "none"
            raise UsageError(f"--drop-bot: {self.protocol} steps are {steps}, got {self.drop_bot!r}")


def drop_steps(protocol: str) -> tuple[str, ...]:
    """Where a bot can drop out: the sum protocol's steps (``rr-survey``: none)."""
    return tuple(_step_messages(protocol))


def _step_messages(protocol: str) -> dict[str, DropPoint]:
    if protocol == "rr-survey":
        return {}
    if protocol in LIVE_LESSONS:
        from scenarios.classroom.live_lessons import live_messages

        protocol = live_messages(protocol)
    from mpc_rr.core import get_protocol

    return dict(get_protocol(protocol).step_messages())  # type: ignore[attr-defined]


def _kind(t: Any) -> str:
    if t is int:
        return "int"
    if t is str:
        return "str"
    if t is bytes:
        return "bytes"
    if t is WireArray:
        return "array"
    import types
    import typing

    args = typing.get_args(t)
    if isinstance(t, types.UnionType) and len(args) == 2 and type(None) in args:  # X | None
        return _kind(next(a for a in args if a is not type(None))) + "?"
    if typing.get_origin(t) is list and len(args) == 1:  # list[bytes]: the signatures
        return "list<" + _kind(args[0]) + ">"
    origin = getattr(t, "__origin__", None)  # Annotated[int, Meta(...)]
    if origin is not None:
        return _kind(origin)
    raise UsageError(f"wire_schema: field type {t!r} has no browser form")


def wire_schema(types: tuple[type[Message], ...]) -> dict[str, Any]:
    """The message classes as the browser's ``wire.js`` needs them: tag, fields in wire order
    with their kind, defaults (read off msgspec's struct info: no second definition)."""
    out: dict[str, Any] = {}
    tag = "type"
    for cls in types:
        info = msgspec.inspect.type_info(cls)
        assert isinstance(info, msgspec.inspect.StructType)
        tag = info.tag_field or tag
        fields, defaults = [], {}
        for f in info.fields:
            fields.append([f.encode_name, _kind(_annotation(cls, f.name))])
            if isinstance(f.default, bytes):  # JSON has no bytes: wire.js makes a Uint8Array
                defaults[f.encode_name] = {"$bytes": f.default.hex()}
            elif f.default is not msgspec.NODEFAULT:
                defaults[f.encode_name] = f.default
            elif f.default_factory is list:
                defaults[f.encode_name] = []
        out[cls.__name__] = {"fields": fields, "defaults": defaults}
    from mpc_rr.core._messages import WIRE_VERSION

    return {"tag": tag, "version": WIRE_VERSION, "types": out}


def _annotation(cls: type, name: str) -> Any:
    import typing

    return typing.get_type_hints(cls, include_extras=False)[name]


def messages(protocol: str) -> tuple[type[Message], ...]:
    """The message types a round of ``protocol`` speaks (a topic lesson: those its pages speak)."""
    if protocol in LIVE_LESSONS:
        from scenarios.classroom.live_lessons import page_messages

        return page_messages(protocol)
    if protocol == MESH:
        from mpc_rr.secure_sum.full_mesh import MESH_MESSAGES

        return tuple(MESH_MESSAGES)
    if protocol == SECAGG:
        from mpc_rr.secure_sum.secagg import SECAGG_MESSAGES

        return tuple(SECAGG_MESSAGES)
    from mpc_rr.secure_sum.plainsum import PlainTotal, PlainValue

    return (PlainValue, PlainTotal)


def estimate_counts(tallies: np.ndarray, p: float) -> tuple[np.ndarray, np.ndarray]:
    """True counts behind keep-or-uniform tallies (Eq. 2 inverted in closed form) and their
    95% normal-approximation intervals clipped to ``[0, N]``, ``(estimate, (k, 2) bounds)``,
    in students.

    With ``N`` answers and observed shares ``lam = tallies / N``, the estimate is
    ``N (lam - (1 - p)/k) / p``; its standard error ``N sqrt(lam (1 - lam) / N) / p``.
    """
    from mpc_rr.mechanisms import keep_or_uniform

    t = np.asarray(tallies, dtype=np.float64)
    n, k = float(t.sum()), t.size
    est = keep_or_uniform(k, p).estimate(t) if n else np.zeros(k)
    lam = t / n if n else np.zeros(k)
    se = n * np.sqrt(lam * (1 - lam) / max(n, 1.0)) / p
    bounds = np.clip(np.stack([est - _Z95 * se, est + _Z95 * se], axis=1), 0.0, n)
    return np.asarray(est, dtype=np.float64), bounds


@dataclass
class _Round:
    lesson: Lesson
    message_types: tuple[type[Message], ...]
    roles: dict[int, Role]
    public: dict[str, Any]
    bot_votes: np.ndarray

    def outcome(self, hub: Role) -> dict[str, Any]:
        lesson = self.lesson
        base: dict[str, Any] = {"protocol": lesson.protocol, "options": list(lesson.options),
                                "bot_votes": self.bot_votes.tolist()}  # fmt: skip
        if hub.error is not None:
            return {**base, "ok": False, "error": str(hub.error), "culprits": list(hub.error.culprits)}
        res = hub.result
        total = [int(v) for v in res.total]
        base.update(ok=True, total=total, count=int(res.n_included))
        n = len(self.roles) - 1 + int(self.public.get("browsers", 0))
        base["not_counted"] = sorted(set(range(1, n + 1)) - {int(i) for i in res.included})
        if lesson.protocol == "rr-survey":
            est, ci = estimate_counts(np.asarray(total), lesson.p)
            base.update(p=lesson.p, estimate=[round(float(v), 3) for v in est],
                        ci=[[round(float(a), 3), round(float(b), 3)] for a, b in ci])  # fmt: skip
        return base


def public_key_hex(key: Any) -> str:
    """A roster key as the browser imports it (raw Ed25519, hex)."""
    from mpc_rr.secure_sum._identity import public_key_bytes

    return str(public_key_bytes(key).hex())


def _identities(browsers: int, n: int, keys: Mapping[int, bytes]) -> dict[int, Any]:
    """The round's roster: each browser's Ed25519 verification key, sent when it joined
    (``keys``: id -> 32 raw bytes), and fresh keys of the server (party 0) and the bots from
    the CSPRNG; the identities of the server's roles (party 0 and the bots) over it."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    from mpc_rr.secure_sum import Identity, Roster, simulated_pki

    public: dict[int, Any] = {}
    for i in range(1, browsers + 1):
        try:
            public[i] = Ed25519PublicKey.from_public_bytes(keys[i])
        except (KeyError, ValueError):
            raise UsageError(f"student {i} sent no Ed25519 verification key when joining") from None
    own = simulated_pki([0, *range(browsers + 1, n + 1)])
    roster = Roster(public | {i: ident.key.public_key() for i, ident in own.items()})
    return {i: Identity(i, ident.key, roster) for i, ident in own.items()}


def make_round(lesson: Lesson, rng: np.random.Generator) -> Any:
    """``make_round(browsers, bots, run, keys)`` for :class:`parties.room.Room`: the server's roles
    (party 0 and the bots, answering at random from ``rng``) for one round (a topic lesson's:
    :mod:`.live_lessons`, which also takes the teacher's ``choice``)."""
    if lesson.protocol in LIVE_LESSONS:
        from scenarios.classroom.live_lessons import lesson_round

        return lesson_round(lesson, rng)

    def build(browsers: int, bots: int, run: str, keys: Mapping[int, bytes] | None = None) -> _Round:
        n, k = browsers + bots, len(lesson.options)
        public: dict[str, Any] = {"protocol": lesson.protocol, "question": lesson.question,
                                  "options": list(lesson.options), "browsers": browsers}  # fmt: skip
        ids: dict[int, Any] = {}
        if lesson.protocol != "rr-survey":
            ids = _identities(browsers, n, keys or {})
            # every party's verification key: the pages check each other's signatures with it
            public["roster"] = {str(i): public_key_hex(ids[0].roster.keys[i]) for i in range(n + 1)}
            public["fingerprint"] = roster_fingerprint(public["roster"])  # on the projector, to compare
        answers = rng.integers(0, k, size=bots)
        votes = np.bincount(answers, minlength=k)
        roles: dict[int, Role] = {}
        if lesson.protocol == MESH:
            from mpc_rr.secure_sum.full_mesh import BulletinBoard, FullMeshParty

            if n < 2:
                raise UsageError(f"the full mesh needs at least 2 students, {n} present")
            roles[0] = BulletinBoard(n, k, run=run, roster=ids[0].roster)
            for b, a in enumerate(answers):
                pid = browsers + 1 + b
                roles[pid] = FullMeshParty(
                    pid, n, np.eye(k, dtype=np.int64)[a], publication="board", run=run, identity=ids[pid]
                )
        elif lesson.protocol == SECAGG:
            from mpc_rr.secure_sum.secagg import SecAggClient, SecAggServer, secagg_public

            if n < 4:
                raise UsageError(f"SecAgg+ in class needs at least 4 students, {n} present")
            pub = secagg_public(n, k, run=run, max_dropout=SECAGG_DROPOUT)
            cfg = pub.config
            if cfg.committee_size < n:  # the page signs as everyone does; it draws no committee
                raise UsageError(f"SecAgg+ in class: {n} students need a consistency committee the page cannot draw")
            public.update(modulus=cfg.modulus, threshold=cfg.threshold, max_dropped=cfg.max_dropped,
                          quorum=cfg.quorum, committee=list(range(1, n + 1)))  # fmt: skip
            roles[0] = SecAggServer(cfg, pub.graph, identity=ids[0], max_retries=0)  # the page knows no retry
            for b, a in enumerate(answers):
                pid = browsers + 1 + b
                roles[pid] = SecAggClient(pid, cfg, pub.graph, np.eye(k, dtype=np.int64)[a], identity=ids[pid])
        else:
            from mpc_rr.mechanisms import keep_or_uniform
            from mpc_rr.secure_sum.plainsum import PlainSumClient, PlainSumHub

            if n < 1:
                raise UsageError("nobody to ask")
            public["p"] = lesson.p
            roles[0] = PlainSumHub(n, k, run=run, proceed_on_timeout=True)
            sent = keep_or_uniform(k, lesson.p).perturb(answers, rng) if bots else answers
            for b, a in enumerate(sent):
                pid = browsers + 1 + b
                roles[pid] = PlainSumClient(pid, np.eye(k, dtype=np.int64)[int(a)], run=run)
        if lesson.drop_bot is not None and bots:
            from mpc_rr.core import DropAt

            last = max(roles)
            roles[last] = DropAt(roles[last], _step_messages(lesson.protocol)[lesson.drop_bot])
            if lesson.drop_bot != "unmask":  # SecAgg+ counts an input sent before its owner left
                votes = np.bincount(answers[:-1], minlength=k)
        return _Round(lesson, messages(lesson.protocol), roles, public, votes)

    return build


_STATIC = ("msgpack.js", "wire.js", "signing.js", "secagg.js", "student.js", "teacher.js", "style.css",
           "detect.js", "noise.js", "lessons-teacher.js")  # fmt: skip


def pages(lesson: Lesson, join_url: str) -> dict[str, tuple[bytes, str]]:
    """Every page the server serves: path -> (bytes, content type)."""
    from mpc_rr.core import require_extra

    segno = require_extra("segno", "classroom", needed_for="the live class's QR code")

    root = importlib.resources.files("scenarios.classroom") / "static"
    qr = segno.make(join_url, error="m")
    info = {"protocol": lesson.protocol, "question": lesson.question, "options": list(lesson.options),
            "p": lesson.p, "join_url": join_url, "qr_svg": qr.svg_inline(scale=4, omitsize=True)}  # fmt: skip
    if lesson.protocol in LIVE_LESSONS:  # what the lesson's own pages need (the cheat lesson: its strategies)
        from scenarios.classroom.live_lessons import lesson_info

        info.update(lesson_info(lesson))
    out = {
        "/": ((root / "student.html").read_bytes(), "text/html; charset=utf-8"),
        "/teacher": ((root / "teacher.html").read_bytes(), "text/html; charset=utf-8"),
        "/schema.json": (json.dumps(wire_schema(messages(lesson.protocol))).encode(), "application/json"),
        "/lesson.json": (json.dumps(info).encode(), "application/json"),
    }
    for name in _STATIC:
        ctype = "text/css" if name.endswith(".css") else "text/javascript; charset=utf-8"
        out[f"/static/{name}"] = ((root / name).read_bytes(), ctype)
    return out


def qr_text(url: str) -> str:
    """The join URL's QR code for a terminal (two modules per character)."""
    import io

    from mpc_rr.core import require_extra

    segno = require_extra("segno", "classroom", needed_for="the live class's QR code")

    buf = io.StringIO()
    segno.make(url, error="m").terminal(out=buf, compact=True)
    return buf.getvalue()

