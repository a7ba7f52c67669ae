// The student's long-term signing key in the browser, and the library's signed messages
// (mpc_rr.secure_sum._identity): WebCrypto Ed25519.  The page makes one key pair per student when
// it loads and sends the public half when it joins (the server's roster, handed to every page with
// the round); every key the page advertises and every survivor set it accepts is signed over
// signed_payload(protocol, run, round, sender, *parts) -- each field length-prefixed (8 bytes LE) --
// so a relay that substitutes, replays or relabels one is caught by the receivers.
// Bonawitz et al. (CCS 2017, Sec. 4, Fig. 4: the active-adversary variant).
"use strict";
(function (root) {
  const subtle = root.crypto.subtle;
  const te = new TextEncoder();
  const DOMAIN = te.encode("mpc_rr/signed/v1");
  let keys = null;

  function concat(...parts) {
    const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
    let o = 0;
    for (const p of parts) { out.set(p, o); o += p.length; }
    return out;
  }
  function le64(n) { const b = new Uint8Array(8); new DataView(b.buffer).setBigUint64(0, BigInt(n), true); return b; }
  function fromHex(h) { return Uint8Array.from(h.match(/../g) || [], (x) => parseInt(x, 16)); }
  function toHex(b) { return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join(""); }

  function payload(protocol, run, round, sender, ...parts) {
    const fields = [DOMAIN, te.encode(protocol), te.encode(run), te.encode(round), le64(sender), ...parts];
    return concat(...fields.flatMap((f) => [le64(f.length), f]));
  }
  async function init() {  // this page's key pair (a reload makes a new one, sent again at join)
    keys = await subtle.generateKey({ name: "Ed25519" }, false, ["sign", "verify"]);
    return toHex(new Uint8Array(await subtle.exportKey("raw", keys.publicKey)));
  }
  async function sign(protocol, run, round, sender, ...parts) {
    return new Uint8Array(await subtle.sign({ name: "Ed25519" }, keys.privateKey, payload(protocol, run, round, sender, ...parts)));
  }
  // roster: {id: hex} from the round; memoized imported keys
  function verifier(roster) {
    const cache = {};
    return async function verify(party, signature, protocol, run, round, ...parts) {
      const hex = roster[String(party)];
      if (!hex || !(signature instanceof Uint8Array)) return false;
      if (!cache[party]) cache[party] = await subtle.importKey("raw", fromHex(hex), { name: "Ed25519" }, false, ["verify"]);
      try { return await subtle.verify({ name: "Ed25519" }, cache[party], signature, payload(protocol, run, round, party, ...parts)); }
      catch (e) { return false; }
    };
  }

  // what a SecAgg+ party signs for its shares: SHA-256 of its whole batch (rows recipient || ciphertext),
  // domain-separated (mpc_rr.secure_sum.secagg.share_digest)
  async function sha(...parts) { return new Uint8Array(await subtle.digest("SHA-256", concat(...parts))); }
  function split(n) { let k = 1; while (2 * k < n) k *= 2; return k; }
  async function merkleRoot(items) {
    if (!items.length) return sha(new Uint8Array(0));
    async function build(lo, hi) {
      if (hi - lo === 1) return sha(Uint8Array.of(0), items[lo]);
      const k = split(hi - lo);
      return sha(Uint8Array.of(1), await build(lo, lo + k), await build(lo + k, hi));
    }
    return build(0, items.length);
  }
  // the root and every item's audit path (concatenated hashes, bottom up): mpc_rr's merkle_paths
  async function merklePaths(items) {
    const paths = items.map(() => []);
    async function build(lo, hi) {
      if (hi - lo === 1) return sha(Uint8Array.of(0), items[lo]);
      const k = split(hi - lo);
      const left = await build(lo, lo + k), right = await build(lo + k, hi);
      for (let i = lo; i < hi; i++) paths[i].push(i < lo + k ? right : left);
      return sha(Uint8Array.of(1), left, right);
    }
    const top = items.length ? await build(0, items.length) : await sha(new Uint8Array(0));
    return { root: top, paths: paths.map((p) => concat(...p)) };
  }
  async function rootFromPath(item, index, count, path) {  // path: hashes bottom up (null: malformed)
    if (!(index >= 0 && index < count)) return null;
    const wentLeft = [];
    let n = count, m = index;
    while (n > 1) { const k = split(n); wentLeft.push(m < k); if (m < k) n = k; else { m -= k; n -= k; } }
    if (path.length !== wentLeft.length) return null;
    let h = await sha(Uint8Array.of(0), item);
    for (let i = 0; i < path.length; i++) {
      const left = wentLeft[wentLeft.length - 1 - i];
      h = left ? await sha(Uint8Array.of(1), h, path[i]) : await sha(Uint8Array.of(1), path[i], h);
    }
    return h;
  }
  async function shareDigest(batch) { return sha(te.encode("mpc_rr/secagg/share-batch/v1"), batch); }
  // numpy.packbits / unpackbits (bit order big) over ids 0..n; null: wrong length or padding set
  function readBitmap(bytes, n) {
    if (!(bytes instanceof Uint8Array) || bytes.length !== Math.floor((n + 8) / 8)) return null;
    const bits = [];
    for (let i = 0; i < 8 * bytes.length; i++) bits.push((bytes[i >> 3] >> (7 - (i & 7))) & 1);
    if (bits.slice(n + 1).some((b) => b)) return null;
    return bits.slice(0, n + 1).map(Boolean);
  }

  // scenarios.classroom.fingerprint: SHA-256(domain || (le64(id) || key) for ids in order), first 8
  // bytes as four groups of four hex digits -- the code the class compares with the projector
  async function fingerprint(roster) {
    const ids = Object.keys(roster).map(Number).sort((a, b) => a - b);
    const parts = [te.encode("mpc_rr/classroom/roster/v1")];
    for (const id of ids) {
      const key = fromHex(roster[String(id)]);
      if (key.length !== 32) throw new Error("party " + id + " has no 32-byte key in the roster");
      parts.push(le64(id), key);
    }
    const h = toHex((await sha(...parts)).slice(0, 8));
    return h.match(/..../g).join(" ");
  }
  // this page's own verification key (hex), as sent at join
  async function ownKey() { return keys ? toHex(new Uint8Array(await subtle.exportKey("raw", keys.publicKey))) : ""; }

  root.signing = { init, sign, verifier, fingerprint, ownKey, payload, shareDigest, merkleRoot, merklePaths, rootFromPath, readBitmap, fromHex, toHex, concat };
})(typeof window !== "undefined" ? window : globalThis);
