"""Secure aggregation: the paper's modular secure sum (Sec. 4.2) and a scalable SecAgg+.

* :mod:`mpc_rr.secure_sum.full_mesh._protocol` -- Domingo-Ferrer & Soria-Comas, Section 4.2,
  faithfully (shares mod n+1 between all pairs, all-to-all or board publication).
* :mod:`mpc_rr.secure_sum.secagg._roles` -- pairwise-masking secure aggregation over a
  sparse random graph with Shamir-shared seeds (Bell et al. 2020, SecAgg+),
  tolerating dropouts in every phase.
* :mod:`mpc_rr.secure_sum._entropy` -- injectable cryptographic randomness.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mpc_rr.core import lazy_exports

__all__ = [
    "CHUNKS",
    "PRIME",
    "Entropy",
    "Graph",
    "InvalidPublicKey",
    "InvalidTag",
    "SecureSumPlan",
    "SeededEntropy",
    "SumPublic",
    "SumResult",
    "SumSpec",
    "SystemEntropy",
    "X25519PrivateKey",
    "agree",
    "agree_many",
    "bytes_to_chunks",
    "check_inner_sum",
    "check_inputs",
    "chunks_to_bytes",
    "crypto",
    "decrypt",
    "decrypt_many",
    "enc_keys",
    "enc_keys_many",
    "encrypt",
    "encrypt_many",
    "expand_mask",
    "expand_masks",
    "expected_total",
    "given_options",
    "kdf_sha256",
    "keypair",
    "make_sum_role",
    "memory_estimate",
    "message_count",
    "pair_key",
    "pair_keys",
    "party_input",
    "read_residues",
    "reconstruct",
    "secure_sum_roles",
    "self_keys",
    "shamir",
    "share",
    "signed_mask_sum",
    "smallest_uint",
    "step_messages",
    "stream_rows",
    "sum_options",
    "sum_protocol",
    "sum_protocol_names",
]

_HOME = {
    "CHUNKS": "mpc_rr.secure_sum._shamir",
    "Entropy": "mpc_rr.secure_sum._entropy",
    "Graph": "mpc_rr.secure_sum._graph",
    "InvalidPublicKey": "mpc_rr.secure_sum._crypto",
    "InvalidTag": "mpc_rr.secure_sum._crypto",
    "PRIME": "mpc_rr.secure_sum._shamir",
    "SecureSumPlan": "mpc_rr.secure_sum._plan",
    "SeededEntropy": "mpc_rr.secure_sum._entropy",
    "SumPublic": "mpc_rr.secure_sum._family",
    "SumResult": "mpc_rr.secure_sum._common",
    "SumSpec": "mpc_rr.secure_sum._family",
    "SystemEntropy": "mpc_rr.secure_sum._entropy",
    "X25519PrivateKey": "mpc_rr.secure_sum._crypto",
    "agree": "mpc_rr.secure_sum._crypto",
    "agree_many": "mpc_rr.secure_sum._crypto",
    "bytes_to_chunks": "mpc_rr.secure_sum._shamir",
    "check_inner_sum": "mpc_rr.secure_sum._family",
    "check_inputs": "mpc_rr.secure_sum._common",
    "chunks_to_bytes": "mpc_rr.secure_sum._shamir",
    "crypto": "mpc_rr.secure_sum._crypto:module",
    "decrypt": "mpc_rr.secure_sum._crypto",
    "decrypt_many": "mpc_rr.secure_sum._crypto",
    "enc_keys": "mpc_rr.secure_sum._crypto",
    "enc_keys_many": "mpc_rr.secure_sum._crypto",
    "encrypt": "mpc_rr.secure_sum._crypto",
    "encrypt_many": "mpc_rr.secure_sum._crypto",
    "expand_mask": "mpc_rr.secure_sum._crypto",
    "expand_masks": "mpc_rr.secure_sum._crypto",
    "expected_total": "mpc_rr.secure_sum._plan",
    "given_options": "mpc_rr.secure_sum._family",
    "kdf_sha256": "mpc_rr.secure_sum._crypto",
    "keypair": "mpc_rr.secure_sum._crypto",
    "make_sum_role": "mpc_rr.secure_sum._plan",
    "memory_estimate": "mpc_rr.secure_sum._plan",
    "message_count": "mpc_rr.secure_sum._plan",
    "pair_key": "mpc_rr.secure_sum._crypto",
    "pair_keys": "mpc_rr.secure_sum._crypto",
    "party_input": "mpc_rr.secure_sum._plan",
    "read_residues": "mpc_rr.secure_sum._common",
    "reconstruct": "mpc_rr.secure_sum._shamir",
    "secure_sum_roles": "mpc_rr.secure_sum._plan",
    "self_keys": "mpc_rr.secure_sum._crypto",
    "shamir": "mpc_rr.secure_sum._shamir:module",
    "share": "mpc_rr.secure_sum._shamir",
    "signed_mask_sum": "mpc_rr.secure_sum._crypto",
    "smallest_uint": "mpc_rr.secure_sum._entropy",
    "step_messages": "mpc_rr.secure_sum._plan",
    "stream_rows": "mpc_rr.secure_sum._crypto",
    "sum_options": "mpc_rr.secure_sum._family",
    "sum_protocol": "mpc_rr.secure_sum._family",
    "sum_protocol_names": "mpc_rr.secure_sum._family",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOME, globals())

if TYPE_CHECKING:
    from mpc_rr.secure_sum import (
        _crypto as crypto,
    )
    from mpc_rr.secure_sum import (
        _shamir as shamir,
    )
    from mpc_rr.secure_sum._common import (
        SumResult,
        check_inputs,
        read_residues,
    )
    from mpc_rr.secure_sum._crypto import (
        InvalidPublicKey,
        InvalidTag,
        X25519PrivateKey,
        agree,
        agree_many,
        decrypt,
        decrypt_many,
        enc_keys,
        enc_keys_many,
        encrypt,
        encrypt_many,
        expand_mask,
        expand_masks,
        kdf_sha256,
        keypair,
        pair_key,
        pair_keys,
        self_keys,
        signed_mask_sum,
        stream_rows,
    )
    from mpc_rr.secure_sum._entropy import (
        Entropy,
        SeededEntropy,
        SystemEntropy,
        smallest_uint,
    )
    from mpc_rr.secure_sum._family import (
        SumPublic,
        SumSpec,
        check_inner_sum,
        given_options,
        sum_options,
        sum_protocol,
        sum_protocol_names,
    )
    from mpc_rr.secure_sum._graph import (
        Graph,
    )
    from mpc_rr.secure_sum._plan import (
        SecureSumPlan,
        expected_total,
        make_sum_role,
        memory_estimate,
        message_count,
        party_input,
        secure_sum_roles,
        step_messages,
    )
    from mpc_rr.secure_sum._shamir import (
        CHUNKS,
        PRIME,
        bytes_to_chunks,
        chunks_to_bytes,
        reconstruct,
        share,
    )
