"""Prio3 (draft-irtf-cfrg-vdaf-20, Sec. 7.2): sharding, verification, aggregation, unsharding.

A client splits its encoded measurement between ``SHARES`` aggregators: the
leader (aggregator 0) receives its measurement share and proof share in full,
each helper only an XOF seed from which both are expanded.  With joint
randomness (SumVec, Histogram, MultihotCountVec) each aggregator also gets a
blind, the public share carries every aggregator's joint-randomness part, and
the aggregators check in :meth:`Prio3.verify_next` that the seed they
recomputed equals the one the client used.

Messages are the draft's encodings (Sec. 7.2.7) as ``bytes``;
:meth:`Prio3.verify_init_batch` verifies many reports at once (the FLP query
runs vectorized over the batch; the XOF expansions remain one call per
report).

Privacy holds while at least one aggregator is honest: any ``SHARES - 1``
input shares are uniformly random given the measurement; all ``SHARES`` shares
sum to it (the adversary module's coalition attack shows both).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mpc_rr.secure_sum.prio3._circuits import Count, Histogram, MultihotCountVec, Sum, SumVec
from mpc_rr.secure_sum.prio3._field import Field
from mpc_rr.secure_sum.prio3._flp import Flp, Valid
from mpc_rr.secure_sum.prio3._xof import SEED_SIZE, XofTurboShake128, format_dst

__all__ = [
    "BATCH",
    "InvalidReport",
    "Prio3",
    "VerifyState",
    "finish_report",
    "prio3_variant",
    "verify_batches",
]

Vec = Any
USAGE_MEAS_SHARE, USAGE_PROOF_SHARE, USAGE_JOINT_RANDOMNESS = 1, 2, 3
USAGE_PROVE_RANDOMNESS, USAGE_QUERY_RANDOMNESS, USAGE_JOINT_RAND_SEED, USAGE_JOINT_RAND_PART = (
    4,
    5,
    6,
    7,
)
NONCE_SIZE = 16
# reports per vectorized FLP query: on Adult's circuit 32 measured fastest (0.83 ms of CPU a
# report against 1.20 ms at 256 and 1.20 at 8: large enough to amortize the calls, small enough
# to stay in cache); a batch with an invalid report is re-verified one by one
BATCH = 32


class InvalidReport(ValueError):
    """A report failed verification (its proof, its joint randomness or its encoding)."""


@dataclass(frozen=True)
class VerifyState:
    """An aggregator's state between ``verify_init`` and ``verify_next``."""

    out_share: Vec
    corrected_joint_rand_seed: bytes | None


class Prio3:
    """One Prio3 instance: a validity circuit, ``SHARES`` aggregators, ``PROOFS`` proofs."""

    xof = XofTurboShake128

    def __init__(
        self, valid: Valid, *, shares: int = 2, proofs: int = 1, algorithm_id: int | None = None
    ) -> None:
        if not 2 <= shares < 256:
            raise ValueError(f"shares must be in [2, 256), got {shares}")
        if not 1 <= proofs < 256:
            raise ValueError(f"proofs must be in [1, 256), got {proofs}")
        self.valid = valid
        self.flp = Flp(valid)
        self.field: type[Field] = valid.field
        self.SHARES = shares
        self.PROOFS = proofs
        self.ID = int(getattr(valid, "ID", 0)) if algorithm_id is None else algorithm_id
        self.uses_jr = self.flp.JOINT_RAND_LEN > 0
        self.RAND_SIZE = SEED_SIZE * shares * (2 if self.uses_jr else 1)
        self.VERIFY_KEY_SIZE = SEED_SIZE
        self.NONCE_SIZE = NONCE_SIZE

    # -- auxiliary functions (Sec. 7.2.6) -------------------------------------
    def dst(self, usage: int, ctx: bytes) -> bytes:
        return format_dst(0, self.ID, usage) + ctx

    def helper_meas_share(self, ctx: bytes, agg_id: int, share: bytes) -> Vec:
        return self.xof.expand_into_vec(
            self.field, share, self.dst(USAGE_MEAS_SHARE, ctx), bytes([agg_id]), self.flp.MEAS_LEN
        )

    def helper_proofs_share(self, ctx: bytes, agg_id: int, share: bytes) -> Vec:
        return self.xof.expand_into_vec(
            self.field,
            share,
            self.dst(USAGE_PROOF_SHARE, ctx),
            bytes([self.PROOFS, agg_id]),
            self.flp.PROOF_LEN * self.PROOFS,
        )

    def prove_rands(self, ctx: bytes, seed: bytes) -> Vec:
        return self.xof.expand_into_vec(
            self.field,
            seed,
            self.dst(USAGE_PROVE_RANDOMNESS, ctx),
            bytes([self.PROOFS]),
            self.flp.PROVE_RAND_LEN * self.PROOFS,
        )

    def query_rands(self, verify_key: bytes, ctx: bytes, nonce: bytes) -> Vec:
        return self.xof.expand_into_vec(
            self.field,
            verify_key,
            self.dst(USAGE_QUERY_RANDOMNESS, ctx),
            bytes([self.PROOFS]) + nonce,
            self.flp.QUERY_RAND_LEN * self.PROOFS,
        )

    def joint_rand_part(
        self, ctx: bytes, agg_id: int, blind: bytes, meas_share: Vec, nonce: bytes
    ) -> bytes:
        return self.xof.derive_seed(
            blind,
            self.dst(USAGE_JOINT_RAND_PART, ctx),
            bytes([agg_id]) + nonce + self.field.encode_vec(meas_share),
        )

    def joint_rand_seed(self, ctx: bytes, parts: list[bytes]) -> bytes:
        return self.xof.derive_seed(
            bytes(SEED_SIZE), self.dst(USAGE_JOINT_RAND_SEED, ctx), b"".join(parts)
        )

    def joint_rands(self, ctx: bytes, seed: bytes) -> Vec:
        return self.xof.expand_into_vec(
            self.field,
            seed,
            self.dst(USAGE_JOINT_RANDOMNESS, ctx),
            bytes([self.PROOFS]),
            self.flp.JOINT_RAND_LEN * self.PROOFS,
        )

    # -- sharding (Sec. 7.2.1) ------------------------------------------------
    def shard(
        self, ctx: bytes, measurement: Any, nonce: bytes, rand: bytes
    ) -> tuple[bytes, list[bytes]]:
        """``(public_share, input_shares)``, encoded."""
        return self.shard_encoded(ctx, self.valid.encode(measurement), nonce, rand)

    def shard_encoded(
        self, ctx: bytes, meas: Vec, nonce: bytes, rand: bytes
    ) -> tuple[bytes, list[bytes]]:
        """Shard an already encoded measurement (a malicious client may pass any vector)."""
        if len(nonce) != NONCE_SIZE:
            raise ValueError(f"nonce must be {NONCE_SIZE} bytes, got {len(nonce)}")
        if len(rand) != self.RAND_SIZE:
            raise ValueError(f"rand must be {self.RAND_SIZE} bytes, got {len(rand)}")
        f, flp, n = self.field, self.flp, self.SHARES
        seeds = [rand[i : i + SEED_SIZE] for i in range(0, self.RAND_SIZE, SEED_SIZE)]
        if self.uses_jr:
            helper_shares = seeds[0 : 2 * (n - 1) : 2]
            helper_blinds: list[bytes] = seeds[1 : 2 * (n - 1) : 2]
            leader_blind, prove_seed = seeds[2 * (n - 1)], seeds[2 * (n - 1) + 1]
        else:
            helper_shares, helper_blinds = seeds[: n - 1], []
            leader_blind, prove_seed = b"", seeds[n - 1]
        leader_meas = meas
        parts: list[bytes] = []
        for j in range(n - 1):
            hm = self.helper_meas_share(ctx, j + 1, helper_shares[j])
            leader_meas = f.sub(leader_meas, hm)
            if self.uses_jr:
                parts.append(self.joint_rand_part(ctx, j + 1, helper_blinds[j], hm, nonce))
        joint: Vec = f.zeros((self.PROOFS, 0))
        if self.uses_jr:
            parts.insert(0, self.joint_rand_part(ctx, 0, leader_blind, leader_meas, nonce))
            joint = self.joint_rands(ctx, self.joint_rand_seed(ctx, parts)).reshape(self.PROOFS, -1)
        prove = self.prove_rands(ctx, prove_seed).reshape(self.PROOFS, -1)
        proofs = flp.prove(
            np.broadcast_to(meas, (self.PROOFS, flp.MEAS_LEN)), prove, joint
        ).reshape(-1)
        for j in range(n - 1):
            proofs = f.sub(proofs, self.helper_proofs_share(ctx, j + 1, helper_shares[j]))
        leader = f.encode_vec(leader_meas) + f.encode_vec(proofs) + leader_blind
        helpers = [
            helper_shares[j] + (helper_blinds[j] if self.uses_jr else b"") for j in range(n - 1)
        ]
        return b"".join(parts), [leader, *helpers]

    # -- verification (Sec. 7.2.2) -------------------------------------------
    def _expand(self, ctx: bytes, agg_id: int, input_share: bytes) -> tuple[Vec, Vec, bytes | None]:
        f, flp = self.field, self.flp
        blind_len = SEED_SIZE if self.uses_jr else 0
        if agg_id == 0:
            m_len = flp.MEAS_LEN * f.ENCODED_SIZE
            p_len = flp.PROOF_LEN * self.PROOFS * f.ENCODED_SIZE
            if len(input_share) != m_len + p_len + blind_len:
                raise InvalidReport(
                    f"leader input share has {len(input_share)} bytes, not {m_len + p_len + blind_len}"
                )
            meas = f.decode_vec(input_share[:m_len])
            proofs = f.decode_vec(input_share[m_len : m_len + p_len])
            blind = input_share[m_len + p_len :] if blind_len else None
        else:
            if len(input_share) != SEED_SIZE + blind_len:
                raise InvalidReport(
                    f"helper input share has {len(input_share)} bytes, not {SEED_SIZE + blind_len}"
                )
            seed = input_share[:SEED_SIZE]
            meas = self.helper_meas_share(ctx, agg_id, seed)
            proofs = self.helper_proofs_share(ctx, agg_id, seed)
            blind = input_share[SEED_SIZE:] if blind_len else None
        return meas, proofs, blind

    def _parts(self, public_share: bytes) -> list[bytes]:
        if not self.uses_jr:
            if public_share:
                raise InvalidReport("public share must be empty without joint randomness")
            return []
        if len(public_share) != SEED_SIZE * self.SHARES:
            raise InvalidReport(
                f"public share has {len(public_share)} bytes, not {SEED_SIZE * self.SHARES}"
            )
        return [public_share[i : i + SEED_SIZE] for i in range(0, len(public_share), SEED_SIZE)]

    def verify_init(
        self,
        verify_key: bytes,
        ctx: bytes,
        agg_id: int,
        nonce: bytes,
        public_share: bytes,
        input_share: bytes,
    ) -> tuple[VerifyState, bytes]:
        """``(state, verifier_share)`` of aggregator ``agg_id`` for one report."""
        states, shares = self.verify_init_batch(
            verify_key, ctx, agg_id, [nonce], [public_share], [input_share]
        )
        return states[0], shares[0]

    def verify_init_batch(
        self,
        verify_key: bytes,
        ctx: bytes,
        agg_id: int,
        nonces: list[bytes],
        public_shares: list[bytes],
        input_shares: list[bytes],
    ) -> tuple[list[VerifyState], list[bytes]]:
        """:meth:`verify_init` over many reports; the FLP query runs once over the batch.

        A report whose encoding is malformed raises :class:`InvalidReport`
        naming its index.
        """
        f, flp, k = self.field, self.flp, len(nonces)
        metas, proofs, jrs, qrs, parts_out = [], [], [], [], []
        seeds: list[bytes | None] = []
        for i in range(k):
            try:
                meas, pr, blind = self._expand(ctx, agg_id, input_shares[i])
                parts = self._parts(public_shares[i])
            except ValueError as exc:
                raise InvalidReport(f"report {i}: {exc}") from exc
            metas.append(meas)
            proofs.append(pr)
            qrs.append(self.query_rands(verify_key, ctx, nonces[i]))
            if self.uses_jr:
                assert blind is not None
                part = self.joint_rand_part(ctx, agg_id, blind, meas, nonces[i])
                parts[agg_id] = part
                seed = self.joint_rand_seed(ctx, parts)
                seeds.append(seed)
                parts_out.append(part)
                jrs.append(self.joint_rands(ctx, seed))
            else:
                seeds.append(None)
        meas_b = np.stack(metas)  # (k, MEAS_LEN)
        proof_b = np.stack(proofs).reshape(k, self.PROOFS, flp.PROOF_LEN)
        qr_b = np.stack(qrs).reshape(k, self.PROOFS, flp.QUERY_RAND_LEN)
        jr_b = (
            np.stack(jrs).reshape(k, self.PROOFS, flp.JOINT_RAND_LEN)
            if self.uses_jr
            else f.zeros((k, self.PROOFS, 0))
        )
        meas_p = np.broadcast_to(meas_b[:, None, :], (k, self.PROOFS, flp.MEAS_LEN))
        try:
            verifiers = flp.query(meas_p, proof_b, qr_b, jr_b, self.SHARES).reshape(k, -1)
        except ValueError as exc:
            raise InvalidReport(str(exc)) from exc
        out = self.valid.truncate(meas_b)
        states = [VerifyState(out[i], seeds[i]) for i in range(k)]
        vshares = [
            f.encode_vec(verifiers[i]) + (parts_out[i] if self.uses_jr else b"") for i in range(k)
        ]
        return states, vshares

    def verifier_shares_to_message(self, ctx: bytes, verifier_shares: list[bytes]) -> bytes:
        """Combine the verifier shares; raise :class:`InvalidReport` when a proof fails."""
        f, flp = self.field, self.flp
        v_len = flp.VERIFIER_LEN * self.PROOFS * f.ENCODED_SIZE
        total = f.zeros(flp.VERIFIER_LEN * self.PROOFS)
        parts = []
        for s in verifier_shares:
            if len(s) != v_len + (SEED_SIZE if self.uses_jr else 0):
                raise InvalidReport(f"verifier share has {len(s)} bytes")
            try:
                total = f.add(total, f.decode_vec(s[:v_len]))
            except ValueError as exc:
                raise InvalidReport(str(exc)) from exc
            parts.append(s[v_len:])
        if not flp.decide(total.reshape(self.PROOFS, flp.VERIFIER_LEN)).all():
            raise InvalidReport("proof verifier check failed")
        return self.joint_rand_seed(ctx, parts) if self.uses_jr else b""

    def verify_next(self, state: VerifyState, verifier_message: bytes) -> Vec:
        """The output share, after checking the joint randomness seed."""
        expected = state.corrected_joint_rand_seed if self.uses_jr else None
        got = verifier_message if self.uses_jr else None
        if (self.uses_jr and got != expected) or (not self.uses_jr and verifier_message):
            raise InvalidReport("joint randomness check failed")
        return state.out_share

    # -- aggregation, unsharding (Sec. 7.2.4-7.2.5) --------------------------
    def aggregate(self, out_shares: list[Vec]) -> Vec:
        if not out_shares:
            return self.field.zeros(self.flp.OUTPUT_LEN)
        return self.field.sum(np.stack(out_shares), axis=0)

    def unshard(self, agg_shares: list[Vec], num_measurements: int) -> Any:
        return self.valid.decode(self.field.sum(np.stack(agg_shares), axis=0), num_measurements)


def prio3_variant(name: str, *, shares: int = 2, **params: int) -> Prio3:
    """A named variant (``Prio3Count``, ``Prio3Sum``, ``Prio3SumVec``, ``Prio3Histogram``,
    ``Prio3MultihotCountVec``) with its parameters (the test vectors' keys)."""
    makers: dict[str, Any] = {
        "Prio3Count": lambda: Count(),
        "Prio3Sum": lambda: Sum(params["max_measurement"]),
        "Prio3SumVec": lambda: SumVec(
            params["length"], params["max_measurement"], params["chunk_length"]
        ),
        "Prio3Histogram": lambda: Histogram(params["length"], params["chunk_length"]),
        "Prio3MultihotCountVec": lambda: MultihotCountVec(
            params["length"], params["max_weight"], params["chunk_length"]
        ),
    }
    if name not in makers:
        raise ValueError(f"unknown Prio3 variant {name!r}; the variants are {', '.join(makers)}")
    return Prio3(makers[name](), shares=shares)


def verify_batches(
    v: Prio3,
    vk: bytes,
    ctx: bytes,
    agg: int,
    nonces: list[bytes],
    publics: list[bytes],
    shares: list[bytes | None],
) -> tuple[list[VerifyState | None], list[bytes | None]]:
    """``verify_init`` of aggregator ``agg`` over all reports, ``BATCH`` at a time; a report that
    cannot be verified (missing or malformed share) gets ``None``."""
    states: list[VerifyState | None] = [None] * len(nonces)
    vshares: list[bytes | None] = [None] * len(nonces)
    good = [i for i, s in enumerate(shares) if s is not None]
    for lo in range(0, len(good), BATCH):
        idx = good[lo : lo + BATCH]
        try:
            st, vs = v.verify_init_batch(vk, ctx, agg, [nonces[i] for i in idx], [publics[i] for i in idx],
                                         [shares[i] or b"" for i in idx])  # fmt: skip
        except InvalidReport:  # one bad report in the batch: verify these one by one
            for i in idx:
                try:
                    states[i], vshares[i] = v.verify_init(
                        vk, ctx, agg, nonces[i], publics[i], shares[i] or b""
                    )
                except InvalidReport:
                    pass
            continue
        for j, i in enumerate(idx):
            states[i], vshares[i] = st[j], vs[j]
    return states, vshares


def finish_report(
    v: Prio3, ctx: bytes, state: VerifyState | None, vshares: list[bytes | None], agg: int
) -> Any:
    """The output share of a report, or ``None`` when it is rejected."""
    if state is None or any(s is None or not s for s in vshares):
        return None
    try:
        msg = v.verifier_shares_to_message(ctx, [s for s in vshares if s is not None])
        return v.verify_next(state, msg)
    except InvalidReport:
        return None
