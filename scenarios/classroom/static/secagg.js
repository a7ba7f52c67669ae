// The SecAgg+ data party in the browser (mpc_rr.secure_sum.secagg.SecAggClient, Bell et al. 2020
// over Bonawitz et al. 2017), talking to the library's SecAggServer.  Same keys, same bytes:
//   keys    two X25519 pairs (c: share encryption, s: masks) and a self-mask seed b, its SHA-256
//           commitment, and a commitment to r, 32 random bytes: my share of the run's public
//           randomness -> AdvertiseKeys; the digest D of everyone's commitments -> D signed and r
//           revealed (DrawReveal); every reveal, checked against D, gives the seed of the graph
//           and the committee (mpc_rr.secure_sum._public_randomness);
//   shares  s_sk and b cut into 11 chunks of 24 bits each, Shamir-shared over GF(2^31 - 1) at the
//           neighbours' ids (threshold t), each row AES-256-GCM sealed under enc_keys (a 64-byte
//           SHA-256 one-step KDF of the c agreement: one key per direction) -> EncryptedShares;
//   masked  y = x + PRG(b) + sum_{v > u} PRG(s_uv) - sum_{v < u} PRG(s_uv) mod R, PRG = AES-256-CTR
//           from counter block 0^96 || 2 (what the library reads off AES-GCM) -> MaskedInput;
//   consistency  on the consistency committee: the survivor set the server shows me, signed
//           (Bonawitz et al. 2017, Round 3); outside it I sign nothing;
//   unmask  only once a quorum of the committee signed the set in the request (the one I signed, on
//           the committee): for each holder of my shares, a share of b (in the set) or of s_sk (not
//           in it), never both -- derived from the signed set alone.
// Every key, share batch and survivor set is signed with the student's Ed25519 key (signing.js),
// and the neighbours' signatures are checked against the round's roster: a server that substitutes
// keys, alters shares or equivocates on who survived is caught and named.
"use strict";
(function (root) {
  const subtle = root.crypto.subtle;
  const te = new TextEncoder();
  const P = 2147483647n;  // 2^31 - 1
  const CHUNKS = 11;
  const ZERO_NONCE = new Uint8Array(12);
  const CTR_BLOCK = Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2);

  function concat(...parts) {
    const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
    let o = 0;
    for (const p of parts) { out.set(p, o); o += p.length; }
    return out;
  }
  async function sha(...parts) { return new Uint8Array(await subtle.digest("SHA-256", concat(...parts))); }
  function frame(...parts) {  // _public_randomness._frame: each part after its 8-byte little-endian length
    return concat(...parts.flatMap((p) => {
      const len = new Uint8Array(8);
      new DataView(len.buffer).setUint32(0, p.length, true);
      return [len, p];
    }));
  }
  const DRAW = te.encode("mpc_rr/public-randomness/v1");
  function u64(v) { const b = new Uint8Array(8); new DataView(b.buffer).setUint32(0, v, true); return b; }
  async function drawCommit(run, v, r) { return sha(frame(DRAW, te.encode("commit"), te.encode("secagg"), te.encode(run), u64(v), r)); }
  // mpc_rr.secure_sum.crypto.kdf_sha256: SHA-256(be32(i) || Z || info), i = 1, 2, ...
  async function kdf(secret, info, length) {
    const out = [];
    for (let i = 1; 32 * out.length < length; i++) out.push(await sha(Uint8Array.of(0, 0, 0, i), secret, te.encode(info)));
    return concat(...out).slice(0, length);
  }
  function fieldRandom() {  // uniform in [0, p) by rejection from 31-bit words
    const w = new Uint32Array(1);
    for (;;) { root.crypto.getRandomValues(w); const v = w[0] & 0x7fffffff; if (v < 2147483647) return BigInt(v); }
  }
  function chunks(bytes32) {  // shamir.bytes_to_chunks: 11 little-endian 24-bit chunks (zero padding)
    const b = concat(bytes32, new Uint8Array(1));
    const out = [];
    for (let i = 0; i < CHUNKS; i++) out.push(BigInt(b[3 * i] | (b[3 * i + 1] << 8) | (b[3 * i + 2] << 16)));
    return out;
  }
  async function prg(key, nbytes) {  // AES-256-CTR keystream from counter 2 (crypto.stream_rows)
    const k = await subtle.importKey("raw", key, "AES-CTR", false, ["encrypt"]);
    return new Uint8Array(await subtle.encrypt({ name: "AES-CTR", counter: CTR_BLOCK, length: 32 }, k, new Uint8Array(nbytes)));
  }
  async function words(key, cells, R) {  // crypto.expand_masks: power-of-two R: smallest word & (R-1); else u64 mod R
    const pow2 = (R & (R - 1)) === 0;
    const w = pow2 ? (R - 1 < 256 ? 1 : R - 1 < 65536 ? 2 : 4) : 8;
    const s = await prg(key, cells * w);
    const dv = new DataView(s.buffer);
    const out = [];
    for (let i = 0; i < cells; i++) {
      if (pow2) out.push((w === 1 ? dv.getUint8(i) : w === 2 ? dv.getUint16(2 * i, true) : dv.getUint32(4 * i, true)) & (R - 1));
      else out.push(Number(dv.getBigUint64(8 * i, true) % BigInt(R)));
    }
    return out;
  }
  async function aesKey(raw) { return subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]); }
  function b64url(s) { return Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0)); }
  async function x25519(sk, pkBytes) {
    const pk = await subtle.importKey("raw", pkBytes, { name: "X25519" }, false, []);
    return new Uint8Array(await subtle.deriveBits({ name: "X25519", public: pk }, sk, 256));
  }
  function sortedIds(a, what) {
    const ids = root.wire.fromArray(a, "<u4");
    if (a.shape.length !== 1 || ids.some((v, i) => i && v <= ids[i - 1])) throw new Error(what + ": ids not sorted");
    return ids;
  }

  // r: the round (id, n, run, options, modulus, threshold); x: the one-hot answer; send(peer, msg); note(text)
  root.secaggParty = function (r, x, send, note) {
    const u = r.id, run = r.run, R = r.modulus, t = r.threshold, cells = x.length, n = r.n;
    const make = root.wire.make, arr = root.wire.toArray, sg = root.signing;
    const verify = sg.verifier(r.roster);
    let c, s, b, sRaw, nbIds, nbS, decKeys, holders, held, survivors, members, unopened = null;
    let r0, digest, accusedAll = [];
    const onCommittee = !r.committee || r.committee.includes(u);  // only the committee signs the survivor set
    const culprit = (why) => { party.culprits = [0]; return new Error(why); };
    function checkSurvivors(set) {  // as SecAggClient._read_survivors: big enough, no neighbour that never shared with me
      const size = set.filter(Boolean).length;
      if (size < n - r.max_dropped) throw culprit(`a survivor set of ${size} parties, fewer than n - max_dropped = ${n - r.max_dropped}`);
      const strange = nbIds.filter((v) => set[v] && !holders.includes(v) && !accusedAll.includes(v));
      if (strange.length) throw culprit(`neighbours ${strange} in the survivor set never shared with me (equivocation)`);
    }
    async function maskedInput(accused) {  // y = x + PRG(b) + pairwise masks with the holders of my shares
      const mask = await words(await kdf(b, `mpc_rr/secagg/v1/self/${run}/${u}/${u}`, 32), cells, R);
      for (const v of holders) {
        const i = nbIds.indexOf(v);
        const z = await x25519(s.privateKey, nbS.slice(32 * i, 32 * i + 32));
        const key = await kdf(z, `mpc_rr/secagg/v1/mask/${run}/${Math.min(u, v)}/${Math.max(u, v)}`, 32);
        const w = await words(key, cells, R);
        w.forEach((val, j) => (mask[j] = (mask[j] + (v > u ? val : R - val)) % R));
      }
      const y = x.map((xi, j) => (xi + mask[j]) % R);
      note("step 2: my masked answer y = x + masks mod " + R + " = " + y.join(",") + " (looks uniform)");
      const complaint = {};
      if (accused.length) {  // the evidence: my share-encryption key (its public half is signed in my AdvertiseKeys)
        note(`the shares of ${accused} do not open though they signed them: I complain, with my share key as evidence`);
        complaint.accused = arr(accused, "<u4");
        complaint.evidence = b64url((await subtle.exportKey("jwk", c.privateKey)).d);
      }
      send(0, make("MaskedInput", { y: arr(y, root.wire.residueDtype(R)), ...complaint, run, step: 2 }));
    }
    const party = {
      culprits: [],
      async start() {
        c = await subtle.generateKey({ name: "X25519" }, true, ["deriveBits"]);
        s = await subtle.generateKey({ name: "X25519" }, true, ["deriveBits"]);
        sRaw = b64url((await subtle.exportKey("jwk", s.privateKey)).d);
        b = root.crypto.getRandomValues(new Uint8Array(32));
        const cPk = new Uint8Array(await subtle.exportKey("raw", c.publicKey));
        const sPk = new Uint8Array(await subtle.exportKey("raw", s.publicKey));
        const commit = await sha(b);
        r0 = root.crypto.getRandomValues(new Uint8Array(32));
        const draw = await drawCommit(run, u, r0);
        const signature = await sg.sign("secagg", run, "keys", u, cPk, sPk, commit, draw);
        note("step 0: two X25519 public keys, a commitment to my self-mask seed and one to my share of the run's randomness, signed, to the server");
        send(0, make("AdvertiseKeys", { c_pk: cPk, s_pk: sPk, b_commit: commit, draw_commit: draw, signature, run, step: 0 }));
      },
      async receive(src, msg) {
        if (src !== 0) throw new Error("SecAgg+ messages come from the server only");
        if (msg.type === "DrawCommitted") {
          if (msg.digest.length !== 32) throw culprit("a draw digest that is not 32 bytes");
          digest = Uint8Array.from(msg.digest);
          note("step 0: everyone's commitments are fixed; I sign their digest and reveal my share of the randomness");
          send(0, make("DrawReveal", { reveal: r0, signature: await sg.sign("secagg", run, "draw", u, digest), run, step: 0 }));
        } else if (msg.type === "NeighborKeys") {
          const who = sg.readBitmap(msg.contributors, n);
          if (!who || who[0] || !who[u]) throw culprit("the draw's contributors are not a bitmap over the parties with me in it");
          const ids = who.flatMap((on, i) => (on ? [i] : []));
          if (msg.reveals.length !== 32 * ids.length) throw culprit("a reveal missing from the draw");
          const drawCommits = {};
          for (let i = 0; i < ids.length; i++) drawCommits[ids[i]] = await drawCommit(run, ids[i], Uint8Array.from(msg.reveals.slice(32 * i, 32 * i + 32)));
          const all = concat(...ids.map((i) => drawCommits[i]));
          const got = await sha(frame(DRAW, te.encode("set"), te.encode("secagg"), te.encode(run), Uint8Array.from(msg.contributors), all));
          if (sg.toHex(got) !== sg.toHex(digest)) throw culprit("the reveals do not open the commitments I was shown (the draw was altered by the relay)");
          const mine = ids.indexOf(u);
          if (sg.toHex(Uint8Array.from(msg.reveals.slice(32 * mine, 32 * mine + 32))) !== sg.toHex(r0)) throw culprit("my own reveal is not the one I sent");
          nbIds = sortedIds(msg.ids, "NeighborKeys");
          const m = nbIds.length;
          if (m < t) throw new Error(`only ${m} live neighbours, threshold ${t}`);
          const cPks = root.wire.fromArray(msg.c_pks, "|u1", 32 * m), sPks = root.wire.fromArray(msg.s_pks, "|u1", 32 * m);
          nbS = Uint8Array.from(sPks);
          if (!msg.commits || msg.signatures.length !== m || msg.draw_signatures.length !== m)
            throw culprit("NeighborKeys without each neighbour's commitment and signatures");
          const commits = root.wire.fromArray(msg.commits, "|u1", 32 * m);
          for (let i = 0; i < m; i++) {
            const part = (a) => Uint8Array.from(a.slice(32 * i, 32 * i + 32));
            if (!drawCommits[nbIds[i]]) throw culprit(`party ${nbIds[i]} is not among the draw's contributors`);
            if (!(await verify(nbIds[i], msg.signatures[i], "secagg", run, "keys", part(cPks), part(sPks), part(commits), drawCommits[nbIds[i]])))
              throw culprit(`the keys of party ${nbIds[i]} do not carry its signature for this run (substituted or replayed by the relay)`);
            if (!(await verify(nbIds[i], msg.draw_signatures[i], "secagg", run, "draw", digest)))
              throw culprit(`party ${nbIds[i]} did not sign the commitment set I was shown (equivocation: the relay showed the parties different draws)`);
          }
          const secret = [...chunks(sRaw), ...chunks(b)];  // 22 field elements
          const coeffs = secret.map(() => Array.from({ length: t - 1 }, fieldRandom));
          const cts = [];
          decKeys = {};
          for (let i = 0; i < m; i++) {
            const v = nbIds[i], xv = BigInt(v);
            const row = secret.map((s0, j) => {  // Horner: f(x) = s + c1 x + ... + c_{t-1} x^{t-1}
              let acc = 0n;
              for (let k = t - 2; k >= 0; k--) acc = ((acc + coeffs[j][k]) * xv) % P;
              return Number((acc + s0) % P);
            });
            const z = await x25519(c.privateKey, Uint8Array.from(cPks.slice(32 * i, 32 * i + 32)));
            const lo = Math.min(u, v), hi = Math.max(u, v);
            const okm = await kdf(z, `mpc_rr/secagg/v1/enc/${run}/${lo}/${hi}`, 64);
            const [kOut, kIn] = u === lo ? [okm.slice(0, 32), okm.slice(32)] : [okm.slice(32), okm.slice(0, 32)];
            decKeys[v] = await aesKey(kIn);
            const ct = await subtle.encrypt({ name: "AES-GCM", iv: ZERO_NONCE, additionalData: te.encode(`${run}/${u}/${v}`) },
              await aesKey(kOut), arr(row, "<u4").data);
            cts.push(...new Uint8Array(ct));
          }
          const width = cts.length / Math.max(m, 1);
          const items = nbIds.map((v, i) => sg.concat(arr([v], "<u4").data, Uint8Array.from(cts.slice(width * i, width * (i + 1)))));
          const signature = await sg.sign("secagg", run, "shares", u, await sg.shareDigest(sg.concat(...items)));
          note(`step 1: my mask key and seed Shamir-shared (threshold ${t}) among ${m} neighbours, each share sealed for its holder, signed`);
          send(0, make("EncryptedShares", { recipients: arr(nbIds, "<u4"), ciphertexts: arr(cts, "|u1", [m, width]), signature, run, step: 1 }));
        } else if (msg.type === "ForwardedShares") {
          const senders = sortedIds(msg.senders, "ForwardedShares");
          const m = senders.length;
          if (m < t) throw new Error(`shares from only ${m} neighbours, threshold ${t}`);
          const width = msg.ciphertexts.shape[1];
          const cts = msg.ciphertexts.data;
          held = [];
          const good = [], bad = [], badCts = [];
          for (let i = 0; i < m; i++) {
            const v = senders[i];
            if (!decKeys[v]) throw culprit("a share from a non-neighbour");
            const ct = cts.slice(width * i, width * (i + 1));
            const plain = await subtle.decrypt({ name: "AES-GCM", iv: ZERO_NONCE, additionalData: te.encode(`${run}/${v}/${u}`) },
              decKeys[v], ct).catch(() => null);
            const row = plain && root.wire.fromArray({ dtype: "<u4", shape: [2 * CHUNKS], data: new Uint8Array(plain) }, "<u4");
            if (row && row.every((e) => e < 2147483647)) { held.push(row); good.push(v); continue; }
            bad.push(v);
            badCts.push(ct);
          }
          holders = good;
          if (!bad.length) return maskedInput([]);
          // a share that does not open: signed by its sender (then I complain with evidence) or not (the relay altered it)
          unopened = { senders: bad, cts: badCts };
          note(`the shares of ${bad} do not open: I ask the server for their senders' signatures and audit paths`);
          send(0, make("ShareComplaint", { senders: arr(bad, "<u4"), run, step: 2 }));
        } else if (msg.type === "ShareProofs") {
          if (!unopened) throw culprit("share proofs nobody asked for");
          const { senders: bad, cts: badCts } = unopened;
          unopened = null;
          const got = sortedIds(msg.senders, "ShareProofs"), m = bad.length;
          if (got.length !== m || got.some((v, i) => v !== bad[i]) || msg.signatures.length !== m || msg.batches.length !== m)
            throw culprit("ShareProofs without a signature and batch per share asked for");
          const width = 4 + badCts[0].length;  // a row: recipient (uint32) || ciphertext
          for (let i = 0; i < m; i++) {  // my row of a batch its sender signed, or the relay altered it
            const batch = msg.batches[i], want = sg.concat(arr([u], "<u4").data, badCts[i]);
            let rows = 0;
            for (let o = 0; batch.length % width === 0 && o < batch.length; o += width)
              if (want.every((byte, j) => batch[o + j] === byte)) rows++;
            if (rows !== 1 || !(await verify(bad[i], msg.signatures[i], "secagg", run, "shares", await sg.shareDigest(batch))))
              throw culprit(`the share of party ${bad[i]} does not open and is not signed by it (altered by the relay)`);
          }
          if (holders.length < t) throw new Error(`the shares of parties ${bad} do not open; ${holders.length} neighbours left, threshold ${t}`);
          accusedAll = bad;
          return maskedInput(bad);
        } else if (msg.type === "SurvivorSet") {
          if (!onCommittee) throw culprit("a survivor set to sign, but I am not on the consistency committee");
          if (unopened) throw culprit("a survivor set before the share proofs I asked for");
          members = sg.readBitmap(msg.survivors, n);
          if (!members) throw culprit("the survivor set is not a bitmap over the parties");
          if (!members[u] || members[0]) throw culprit("a survivor set without me (or with the server)");
          checkSurvivors(members);
          survivors = msg.survivors;
          note(`step 3: the server says ${members.filter(Boolean).length} inputs are in the sum; I sign that set (consistency check)`);
          send(0, make("ConsistencySig", { signature: await sg.sign("secagg", run, "consistency", u, survivors), run, step: 3 }));
        } else if (msg.type === "UnmaskRequest") {
          // the committee signed the set it was shown; the others learn it here, with the signatures
          if (unopened) throw culprit("a survivor set before the share proofs I asked for");
          if (onCommittee && !survivors) throw culprit("an unmask request before the survivor set I must sign");
          if (onCommittee && sg.toHex(msg.survivors) !== sg.toHex(survivors))
            throw culprit("the survivor set differs from the one I signed (equivocation)");
          members = sg.readBitmap(msg.survivors, n);
          const signers = sg.readBitmap(msg.signers, n);
          if (!members || !signers) throw culprit("the survivor set or the signer set is not a bitmap over the parties");
          if (!members[u] || members[0]) throw culprit("a survivor set without me (or with the server)");
          checkSurvivors(members);
          survivors = msg.survivors;
          const ids = signers.flatMap((on, i) => (on ? [i] : []));
          if (ids.some((i) => !members[i])) throw culprit("signers outside the survivor set");
          if (r.committee && ids.some((i) => !r.committee.includes(i))) throw culprit("signers outside the consistency committee");
          if (ids.length < r.quorum) throw culprit(`only ${ids.length} parties signed the survivor set, a quorum is ${r.quorum}`);
          if (msg.signatures.length !== ids.length) throw culprit(`${msg.signatures.length} signatures for ${ids.length} signers`);
          for (let i = 0; i < ids.length; i++)
            if (!(await verify(ids[i], msg.signatures[i], "secagg", run, "consistency", survivors)))
              throw culprit(`party ${ids[i]}'s signature is not on the survivor set I was shown (equivocation)`);
          // what to reveal follows from the signed set alone
          const alive = holders.filter((h) => members[h]), gone = holders.filter((h) => !members[h]);
          const rows = (hs, from) => hs.flatMap((h) => held[holders.indexOf(h)].slice(from, from + CHUNKS));
          note(`step 4: ${ids.length} committee signatures (quorum ${r.quorum}) on ${onCommittee ? "the set I signed" : "the survivor set"}; seed shares for ${alive.length} live neighbours, mask-key shares for ${gone.length} dropped`);
          send(0, make("UnmaskShares", {
            b_owners: arr(alive, "<u4"), b_shares: arr(rows(alive, CHUNKS), "<u4", [alive.length, CHUNKS]),
            s_owners: arr(gone, "<u4"), s_shares: arr(rows(gone, 0), "<u4", [gone.length, CHUNKS]), run, step: 3 }));
        } else if (msg.type === "Aggregate") {
          if (!(await verify(0, msg.signature, "secagg", run, "aggregate", msg.total.data, te.encode(String(msg.n_included)))))
            throw culprit("the aggregate is not signed by the server");
          note("the server's aggregate over " + msg.n_included + " students: " + root.wire.fromArray(msg.total, root.wire.residueDtype(R)).join(","));
        } else if (msg.type === "SecAggAbort") {
          note("the server aborted: " + msg.reason);
        } else throw new Error("unexpected " + msg.type);
      },
    };
    return party;
  };
})(typeof window !== "undefined" ? window : globalThis);
