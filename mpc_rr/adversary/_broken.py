"""Protocols broken on purpose: the planted leaks that prove each attack can see one.

Never used by the product's runs.  Each is a subclass of the real role that
overrides one step (handlers are looked up by name, so the transition table
is inherited unchanged), and each still computes the correct result, so
nothing but the leak distinguishes it from the real protocol:

* :class:`UnmaskedSecAggClient` -- SecAgg+ without the pairwise masks of some
  edges (``isolated``: the parties of degree 0 in the masking graph) or of all
  of them (``isolated=ALL``: masks disabled).  Seeds are still shared, so the
  server removes the self masks as designed -- and finds the inputs of the
  isolated parties under them.
* :class:`ZeroShareMeshParty` -- the Sec. 4.2 full mesh where the shares on
  edges touching ``isolated`` parties are zero (``ALL``: no shares at all):
  an isolated party publishes its input in the clear.
* :class:`PlaintextShareMeshParty` -- the full mesh as the paper writes it,
  for private channels: its shares travel in the clear (no key step would
  help: the "ciphertext" is the residues followed by a zero tag), so whoever
  relays them reads them.
* :class:`FixedDrawSecAggClient` / :class:`FixedDrawSecAggServer` -- SecAgg+ whose
  graph and consistency committee come from the run label alone
  (:func:`~mpc_rr.secure_sum.secagg.fixed_graph`), whatever the parties' joint
  draw: an adversary that knows the label before the run places its colluders
  on each target's neighbours (``mpc-rr attack coalition --variant fixed-draw``).
* :class:`NoConsistencyClient` -- SecAgg+ without its consistency round: a client reveals
  its shares for whatever survivor set the aggregator names, without a committee quorum's
  signatures on it, so an aggregator that tells some neighbours of a party that it dropped
  and the others that it survived collects both shares of that party's masks.
* :class:`UnsignedKeyMeshParty` -- a full-mesh party that takes any key the board or relay
  lists as its owner's, unsigned: whoever relays the keys can swap them, and a share sealed
  under a swapped key does not open at its recipient, who blames the honest sender.
* :class:`SparsePlainSumClient` / :class:`LenientPlainSumHub` -- a plaintext
  sum whose client drops trailing zeros (a variable-length encoding: the size
  tells where the one is); the hub pads them back.
* :class:`RawRecordParty` -- the pipeline's data party that forgets to
  randomize its dependence-phase record (declares epsilon, releases the truth).
"""

from __future__ import annotations

from collections.abc import Callable, Container, Mapping
from typing import Any

import numpy as np

from mpc_rr.core import COORDINATOR, PeerError, Role, Send, WireArray
from mpc_rr.pipeline import DataParty, RandomizedRecord
from mpc_rr.pipeline._messages import wire_record
from mpc_rr.secure_sum import _crypto as crypto
from mpc_rr.secure_sum._graph import Graph
from mpc_rr.secure_sum.full_mesh import FullMeshParty
from mpc_rr.secure_sum.full_mesh._messages import TAG_LEN
from mpc_rr.secure_sum.plainsum import PlainSumClient, PlainSumHub, PlainValue
from mpc_rr.secure_sum.secagg import (
    ForwardedShares,
    MaskedInput,
    SecAggClient,
    SecAggServer,
    UnmaskRequest,
)
from mpc_rr.secure_sum.secagg._client import mask_sum
from mpc_rr.secure_sum.secagg._params import fixed_graph

__all__ = [
    "ALL",
    "FULL_MESH_PLANTS",
    "PIPELINE_PLANTS",
    "PLAINSUM_PLANTS",
    "SECAGG_PLANTS",
    "FixedDrawSecAggClient",
    "FixedDrawSecAggServer",
    "LenientPlainSumHub",
    "NoConsistencyClient",
    "PlaintextShareMeshParty",
    "Plant",
    "RawRecordParty",
    "SparsePlainSumClient",
    "UnmaskedSecAggClient",
    "UnsignedKeyMeshParty",
    "ZeroShareMeshParty",
]


class _All(Container[int]):
    """Every party (``isolated=ALL``: no edge keeps its mask or share)."""

    def __contains__(self, item: object) -> bool:
        return True

    def __repr__(self) -> str:
        return "ALL"


ALL: Container[int] = _All()


def _cut(u: int, v: int, isolated: Container[int]) -> bool:
    return u in isolated or v in isolated


class UnmaskedSecAggClient(SecAggClient):
    """SecAgg+ client that omits the pairwise mask of every edge touching ``isolated``.

    Give every party of the run the same ``isolated`` set, so that the omitted
    masks are omitted at both ends and the sum stays exact.
    """

    def __init__(self, *args: Any, isolated: Container[int] = ALL, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.isolated = isolated

    def _on_forwarded(self, src: int, msg: ForwardedShares) -> list[Send]:
        sends = super()._on_forwarded(src, msg)
        u, run = self.party_id, self.run
        pk_of = self.neighbour_mask_keys()
        cut = [v for v in self._holders.tolist() if _cut(u, v, self.isolated)]
        if not cut or not sends:
            return sends
        keys = [
            crypto.pair_key(crypto.agree(self._s_sk, pk_of[v]), "mask", run, min(u, v), max(u, v))
            for v in cut
        ]
        signs = np.where(np.asarray(cut) > u, 1, -1)
        undo = mask_sum(None, keys, signs, self.cfg.cells, self.cfg.modulus).astype(np.int64)
        out = []
        for s in sends:
            if isinstance(s.msg, MaskedInput):
                y = s.msg.y.to_numpy().astype(np.int64)
                y = ((y - undo) % self.cfg.modulus).astype(self.cfg.dtype)
                s = Send(s.dst, MaskedInput(run=run, step=2, y=WireArray.from_numpy(y)))
            out.append(s)
        return out


class FixedDrawSecAggClient(SecAggClient):
    """SecAgg+ client that ignores the joint seed: the graph and committee of the run label."""

    def draw(self, seed: bytes) -> tuple[Graph, np.ndarray]:
        return fixed_graph(self.cfg), self.cfg.committee_for(None)


class FixedDrawSecAggServer(SecAggServer):
    """The aggregator of :class:`FixedDrawSecAggClient` (the same fixed draw)."""

    def draw(self, seed: bytes) -> tuple[Graph, np.ndarray]:
        return fixed_graph(self.cfg), self.cfg.committee_for(None)


class NoConsistencyClient(SecAggClient):
    """SecAgg+ client that skips the consistency round's check: no quorum of the committee's
    signatures is asked of the survivor set it unmasks for."""

    def _inconsistent(self, msg: UnmaskRequest, members: np.ndarray) -> str:
        return ""


class UnsignedKeyMeshParty(FullMeshParty):
    """Full-mesh party that takes every listed key as its owner's without checking the
    owner's signature on it."""

    def _genuine(self, owner: int, pk: bytes, signature: bytes) -> bool:
        return True


class ZeroShareMeshParty(FullMeshParty):
    """Full-mesh party whose shares on edges touching ``isolated`` are zero.

    Give every party the same ``isolated`` set; shares still sum to zero, so
    the result is exact.
    """

    def __init__(self, *args: Any, isolated: Container[int] = ALL, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.isolated = isolated

    def _draw_shares(self) -> np.ndarray:
        m, n, own = self.modulus, self.n, self.party_id - 1
        r = self.entropy.uniform(m, (n, self.cells))
        for j in range(n):
            if j != own and _cut(self.party_id, j + 1, self.isolated):
                r[j] = 0
        others = np.delete(r, own, axis=0).sum(axis=0) % np.uint64(m)
        r[own] = (np.uint64(m) - others) % np.uint64(m)
        return r


class PlaintextShareMeshParty(FullMeshParty):
    """Full-mesh party that sends its shares in the clear (residues, then a zero 'tag').

    Give every party of the run this class: the receivers read the clear
    residues back, so the result is exact.  The paper's protocol over a relay.
    """

    def _seal(self, key: bytes, plaintext: bytes, aad: bytes) -> bytes:
        return plaintext + bytes(TAG_LEN)

    def _unseal(self, key: bytes, ciphertext: bytes, aad: bytes) -> bytes:
        return ciphertext[:-TAG_LEN]


class SparsePlainSumClient(PlainSumClient):
    """Plain-sum client with a variable-length encoding: trailing zeros are not sent."""

    def start(self) -> list[Send]:
        nz = np.flatnonzero(self.x)
        keep = int(nz[-1]) + 1 if nz.size else 0
        return [Send(COORDINATOR, PlainValue(x=WireArray.from_numpy(self.x[:keep]), run=self.run))]


class LenientPlainSumHub(PlainSumHub):
    """Hub of :class:`SparsePlainSumClient`: pads a short vector with zeros."""

    def _on_value(self, src: int, msg: PlainValue) -> list[Send]:
        if src not in self._missing:
            raise PeerError(f"{self.name}: unexpected or duplicate PlainValue from party {src}", src)
        x = msg.x.to_numpy(dtype=np.int64, sender=src)
        if x.ndim != 1 or x.size > self.cells:
            raise PeerError(f"{self.name}: PlainValue of shape {x.shape} from party {src}", src)
        self._sum[: x.size] += x
        self._missing.discard(src)
        return []


class RawRecordParty(DataParty):
    """Pipeline party (dependence ``rr``) that sends its true record as the 'randomized' one."""

    def start(self) -> list[Send]:
        if self.sub is not None:
            return super().start()
        # the generator still advances as the honest party's would (same later draws)
        super().start()
        rec = wire_record(self.record, self.cfg)
        return [Send(COORDINATOR, RandomizedRecord(run=self.run, codes=rec))]


# -- the planted variants each sum protocol offers (registered in _extensions) ---------------

Plant = Callable[[dict[int, Role], np.ndarray, Any], dict[int, Role]]
"""``plant(roles, inputs, public) -> roles``: the honest roles of a run with some replaced."""


def _sparse_plainsum(roles: dict[int, Role], x: np.ndarray, public: Any) -> dict[int, Role]:
    n, cells = x.shape
    out: dict[int, Role] = {COORDINATOR: LenientPlainSumHub(n, cells, run=public.run)}
    for i in range(1, n + 1):
        out[i] = SparsePlainSumClient(i, x[i - 1].astype(np.int64), run=public.run)
    return out


def _unmasked_secagg(isolated: Container[int]) -> Plant:
    def plant(roles: dict[int, Role], x: np.ndarray, public: Any) -> dict[int, Role]:
        out = dict(roles)
        for i in range(1, x.shape[0] + 1):
            old = roles[i]
            assert isinstance(old, SecAggClient)
            out[i] = UnmaskedSecAggClient(
                i, public.config, public.graph, x[i - 1], entropy=old.entropy, isolated=isolated
            )
        return out

    return plant


def _fixed_draw(roles: dict[int, Role], x: np.ndarray, public: Any) -> dict[int, Role]:
    out: dict[int, Role] = {}
    old = roles[COORDINATOR]
    assert isinstance(old, SecAggServer)
    out[COORDINATOR] = FixedDrawSecAggServer(public.config, None, identity=old._identity)
    for i in range(1, x.shape[0] + 1):
        c = roles[i]
        assert isinstance(c, SecAggClient)
        out[i] = FixedDrawSecAggClient(i, public.config, None, x[i - 1], entropy=c.entropy, identity=c._identity)
    return out


def _no_consistency(roles: dict[int, Role], x: np.ndarray, public: Any) -> dict[int, Role]:
    """SecAgg+ without the consistency round, where it is all that stops an equivocating
    aggregator: a threshold of half the degree and a dropout bound of at least one party
    (at the default threshold, above ``k / 2``, equivocation fails on the threshold alone)."""
    from mpc_rr.secure_sum.secagg import SecAggConfig

    old = public.config
    n = x.shape[0]
    cfg = SecAggConfig.create(n, old.cells, modulus=old.modulus, degree=old.degree,
                              threshold=max(2, old.degree // 2), max_dropout=max(old.max_dropout, 1.5 / n),
                              max_corrupt=old.max_corrupt, run=old.run)  # fmt: skip
    server = roles[COORDINATOR]
    assert isinstance(server, SecAggServer)
    out: dict[int, Role] = {COORDINATOR: SecAggServer(cfg, None, identity=server._identity)}
    for i in range(1, n + 1):
        c = roles[i]
        assert isinstance(c, SecAggClient)
        out[i] = NoConsistencyClient(i, cfg, None, x[i - 1], entropy=c.entropy, identity=c._identity)
    return out


def _mesh(kind: type[FullMeshParty], **extra: Any) -> Plant:
    def plant(roles: dict[int, Role], x: np.ndarray, public: Any) -> dict[int, Role]:
        out = dict(roles)
        n = x.shape[0]
        for i in range(1, n + 1):
            old = roles[i]
            assert isinstance(old, FullMeshParty)
            out[i] = kind(
                i, n, x[i - 1], publication=old.publication, entropy=old.entropy, run=public.run,
                **extra,
            )  # fmt: skip
        return out

    return plant


PLAINSUM_PLANTS: Mapping[str, Plant] = {"sparse-encoding": _sparse_plainsum}
"""``sparse-encoding``: clients drop trailing zeros (the size tells where the one is)."""

SECAGG_PLANTS: Mapping[str, Plant] = {
    "masks": _unmasked_secagg(ALL),
    "isolated": _unmasked_secagg({1}),
    "fixed-draw": _fixed_draw,
    "no-consistency": _no_consistency,
}
"""``masks``: no pairwise masks at all; ``isolated``: party 1 has degree 0 in the masking graph;
``fixed-draw``: the graph and committee from the run label (known before the run), not the joint
seed (a coalition placed on the label's graph recovers the inputs: ``attack coalition``);
``no-consistency``: no committee quorum on the survivor set (an equivocating aggregator unmasks
an input: ``mpc-rr simulate --broken no-consistency``)."""

FULL_MESH_PLANTS: Mapping[str, Plant] = {
    "masks": _mesh(ZeroShareMeshParty, isolated=ALL),
    "isolated": _mesh(ZeroShareMeshParty, isolated={1}),
    "clear-shares": _mesh(PlaintextShareMeshParty),
    "unsigned-keys": _mesh(UnsignedKeyMeshParty),
}
"""``masks``: no shares; ``isolated``: party 1's shares are zero; ``clear-shares``: shares in
the clear (the paper's protocol over a relay); ``unsigned-keys``: keys taken unsigned (a board
that alters one makes an honest sender blamed: ``mpc-rr simulate --broken unsigned-keys``)."""

PIPELINE_PLANTS: Mapping[str, type[DataParty]] = {"raw-record": RawRecordParty}
"""``raw-record``: data parties send their true record as the dependence-phase record."""
