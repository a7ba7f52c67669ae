// The student's side of a live round (mpc-rr classroom serve), in the browser: the answer never
// leaves this page in clear.  full-mesh: the party of mpc_rr.secure_sum.full_mesh (board
// publication) -- X25519 key pair in WebCrypto, the answer split into n shares mod n+1, each
// AES-256-GCM encrypted to its receiver under the library's key derivation (SHA-256 one-step KDF,
// SP 800-56C, over the X25519 secret; share_key / share_aad), relayed by the server, which only
// sees ciphertexts and the uniform sums r_j.  rr-survey: the coin is flipped here and only the
// randomized answer is sent (mpc_rr.secure_sum.plainsum's client).
"use strict";
(function (root) {
  const subtle = root.crypto.subtle;
  const te = new TextEncoder();
  const S = (root.classroom = { state: "start", log: [], result: null, answer: null, round: null, errors: [] });

  function note(text) {
    S.log.push(text);
    const el = document.getElementById("log");
    if (el) { const li = document.createElement("li"); li.textContent = text; el.prepend(li); }
  }
  function show(id, text) { const el = document.getElementById(id); if (el) el.textContent = text; }
  function setState(s) { S.state = s; show("state", s); }
  function hex(b, n) { return Array.from(b.slice(0, n || 8), (x) => x.toString(16).padStart(2, "0")).join(""); }

  // -- randomness and crypto (WebCrypto only) -----------------------------------------
  function uniform(m) {  // exactly uniform in [0, m) by rejection from 32-bit words
    const limit = Math.floor(4294967296 / m) * m;
    const w = new Uint32Array(1);
    for (;;) { root.crypto.getRandomValues(w); if (w[0] < limit) return w[0] % m; }
  }
  function coin() { const w = new Uint32Array(1); root.crypto.getRandomValues(w); return w[0] / 4294967296; }
  function concat(...parts) {
    const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
    let o = 0;
    for (const p of parts) { out.set(p, o); o += p.length; }
    return out;
  }
  // mpc_rr.secure_sum.crypto.pair_key: SHA-256(be32(1) || Z || info), info binding purpose, run, ids
  async function pairKey(shared, purpose, run, a, b) {
    const info = te.encode(`mpc_rr/secagg/v1/${purpose}/${run}/${a}/${b}`);
    const raw = await subtle.digest("SHA-256", concat(Uint8Array.of(0, 0, 0, 1), shared, info));
    return subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]);
  }
  const ZERO_NONCE = new Uint8Array(12);  // each key encrypts exactly one message
  async function seal(key, plain, aad) {
    return new Uint8Array(await subtle.encrypt({ name: "AES-GCM", iv: ZERO_NONCE, additionalData: aad }, key, plain));
  }
  async function open(key, ct, aad) {
    return new Uint8Array(await subtle.decrypt({ name: "AES-GCM", iv: ZERO_NONCE, additionalData: aad }, key, ct));
  }

  // -- the socket ---------------------------------------------------------------------
  let ws = null;
  let party = null;
  function send(peer, msg) { ws.send(root.wire.frame(peer, msg)); if (root.detect) root.detect.sent(msg); }

  function connect(name) {
    let token = sessionStorage.getItem("mpc-rr-token");  // per tab, kept across reloads
    if (!token) {
      token = hex(root.crypto.getRandomValues(new Uint8Array(12)), 12);
      sessionStorage.setItem("mpc-rr-token", token);
    }
    sessionStorage.setItem("mpc-rr-name", name);
    ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws/student");
    ws.binaryType = "arraybuffer";
    ws.onopen = () => ws.send(JSON.stringify({ type: "hello", token, name, vk: S.vk }));
    ws.onclose = (e) => { if (S.state !== "refused") setState("disconnected"); note("connection closed " + (e.reason || "")); };
    ws.onmessage = (e) => (typeof e.data === "string" ? onText(JSON.parse(e.data)) : onFrame(e.data));
  }

  function onText(m) {
    if (m.type === "welcome") { setState(m.waiting ? "waiting for the next round" : "in the lobby"); note("joined as " + m.name); }
    else if (m.type === "refused") { setState("refused"); show("refused", m.reason); note("refused: " + m.reason); }
    else if (m.type === "lobby") show("lobby", m.students.length + (m.students.length === 1 ? " student" : " students") + (m.bots ? " + " + m.bots + " simulated" : ""));
    else if (m.type === "round") startRound(m);
    else if (m.type === "end") endRound(m);
    else if (m.type === "reveal?") offerReveal();
  }

  async function onFrame(buf) {
    let src, msg;
    try { [src, msg] = root.wire.unframe(buf); }
    catch (err) { S.errors.push(String(err)); note("rejected a bad frame: " + err); return; }
    if (!party || msg.run !== party.run) { S.errors.push("frame of another run"); return; }
    try { await party.receive(src, msg); }
    catch (err) { S.errors.push(String(err)); note("rejected " + msg.type + " from " + src + ": " + err.message); }
  }

  // -- a round ------------------------------------------------------------------------
  async function startRound(r) {
    S.round = r;
    S.result = null;
    S.alarm = null;
    show("question", r.question);
    setState("round " + r.run + ": you are party " + r.id + " of " + r.n);
    note("round " + r.run + " started: party " + r.id + " of " + r.n);
    if (!(await checkRoster(r))) return;
    if (S.answer === null && !r.spectate) { setState("choose your answer"); return; }
    begin();
  }

  // The keys the server handed out (scenarios.classroom.fingerprint): this page shows the roster's
  // fingerprint, computed here, for the class to compare with the projector and each other, and
  // refuses the round if the roster does not carry this page's own key under its own id (a
  // server that substituted it could speak for this student to the others).
  async function checkRoster(r) {
    if (!r.roster) return true;  // rr-survey: no keys, nothing to check
    S.fingerprint = await root.signing.fingerprint(r.roster);
    show("fingerprint", "Class code: " + S.fingerprint + " -- it must match the projector and your neighbours'");
    const own = await root.signing.ownKey();
    let why = null;
    if (r.roster[String(r.id)] !== own) why = "the server gave the class a key for you (party " + r.id + ") that is not this page's";
    else if (r.fingerprint !== S.fingerprint) why = "the server announces another class code (" + r.fingerprint + ") than its roster gives";
    if (why === null) return true;
    S.alarm = why;
    setState("ALARM");
    show("alarm", "Do not trust this round: " + why + ". Tell the class; this page takes no part in it.");
    note("ALARM: " + why);
    return false;
  }

  async function begin() {
    const r = S.round;
    if (!r || party || S.alarm) return;
    party = r.spectate ? spectator(r)  // the Prio3 lesson: the simulated students vote, this page watches
      : r.protocol === "rr-survey" ? rrSurvey(r, S.answer)
      : r.protocol === "secagg" ? root.secaggParty(r, answerVector(r), send, note)
      : fullMesh(r, S.answer);
    party.run = r.run;
    if (root.detect) root.detect.watch(party, r);  // detect.js: what this page's checks caught
    await party.start();
  }

  function endRound(m) {
    party = null;
    if (root.detect) root.detect.ended(m);
    S.result = m;
    if (m.ok) {
      setState("done");
      const counts = m.options.map((o, i) => `${o}: ${m.total[i]}`).join(", ");
      const est = m.estimate ? " -- estimated true counts: " + m.options.map((o, i) => `${o} ${m.estimate[i].toFixed(1)}`).join(", ") : "";
      show("result", "The class: " + counts + est);
    }
    else { setState("aborted"); show("result", "The round aborted: " + m.error); }
    note("round ended: " + (m.ok ? "total " + JSON.stringify(m.total) : m.error));
  }

  // after a round, if the teacher asks: a student may choose to reveal the answer (the class
  // checks the total against the revealed answers); nothing is sent unless the student clicks
  function offerReveal() {
    const box = document.getElementById("reveal");
    if (!box || S.answer === null) return;
    box.hidden = false;
    document.getElementById("reveal-yes").onclick = () => {
      ws.send(JSON.stringify({ type: "reveal", answer: S.answer }));
      box.hidden = true;
      note("you revealed your answer to the class");
    };
    document.getElementById("reveal-no").onclick = () => { box.hidden = true; };
  }

  // the noise lesson (noise.js): the answer plus this page's share of the noise
  function answerVector(r) {
    const x = oneHot(r.options.length, S.answer);
    return r.noise && root.noise ? root.noise.add(r, x, note) : x;
  }
  function spectator(r) {
    return {
      async start() {
        const box = document.getElementById("options");
        if (box) box.hidden = true;  // nothing to answer: this page takes no part
        show("coin", "In this lesson the simulated students vote, each vote with its validity proof (made by the library: this page does not prove). Watch the projector: who is rejected, and why?");
        note("round " + r.run + ": watching the simulated students' votes");
      },
      async receive() { throw new Error("a watching page takes no protocol message"); },
    };
  }
  function oneHot(k, answer) { return Array.from({ length: k }, (_, i) => (i === answer ? 1 : 0)); }

  // rr-survey: keep the answer with probability p, else a uniform answer; only that is sent
  function rrSurvey(r, answer) {
    return {
      async start() {
        const k = r.options.length;
        const keep = coin() < r.p;
        const sent = keep ? answer : uniform(k);
        S.coin = { keep, sent };
        show("coin", keep ? `Coin: keep (probability ${r.p}) -- you send your answer, ${r.options[sent]}`
          : `Coin: random (probability ${(1 - r.p).toFixed(2)}) -- you send a random answer, ${r.options[sent]}`);
        note("coin flipped in this browser: " + (keep ? "keep" : "random") + "; sending " + r.options[sent]);
        send(0, root.wire.make("PlainValue", { x: root.wire.toArray(oneHot(k, sent), "<i8"), run: r.run }));
      },
      async receive(src, msg) {
        if (msg.type !== "PlainTotal" || src !== 0) throw new Error("unexpected");
        note("tallies of randomized answers: " + root.wire.fromArray(msg.total, "<i8", r.options.length));
      },
    };
  }

  // the full mesh, board publication (mpc_rr.secure_sum.full_mesh.FullMeshParty)
  function fullMesh(r, answer) {
    const me = r.id, n = r.n, m = n + 1, k = r.options.length, run = r.run;
    const dtype = root.wire.residueDtype(m);
    const acc = new Array(k).fill(0);
    const x = oneHot(k, answer);
    const inKeys = {}, held = {}, got = new Set();
    let sk = null, pk = null, sharesOut = false, published = false, stopped = false;
    const aad = (a, b) => te.encode(`mesh-share/${run}/${a}/${b}`);

    // a share that does not open: signed by its sender (path and signature check out) -> the
    // sender sent garbage; else the board, which checks every share it relays, passed on a forgery
    async function blame(src, msg, what) {
      const path = msg.path instanceof Uint8Array && msg.path.length % 32 === 0 ? msg.path : null;
      const hashes = path ? Array.from({ length: path.length / 32 }, (_, i) => path.slice(32 * i, 32 * i + 32)) : [];
      const item = root.signing.concat(root.wire.toArray([me], "<u4").data, msg.ciphertext);
      const top = path && await root.signing.rootFromPath(item, me - 1 - (me > src ? 1 : 0), n - 1, hashes);
      const signed = top && await root.signing.verifier(r.roster)(src, msg.signature, "full-mesh", run, "shares", top);
      S.culprits = signed ? [src] : [0];
      stopped = true;  // as FullMeshParty aborts: never publish a sum that lacks a share
      const err = new Error(signed ? `${what} from party ${src}, signed by it (it sent garbage)`
                                   : `${what}, relayed by the board from party ${src} without its signature`);
      // a complaint, as FullMeshParty's: the board stops the run for everyone (not blaming the board itself)
      if (signed) send(0, root.wire.make("MeshAbort", { reason: String(err.message).slice(0, 500), culprits: [src], run, step: 4 }));
      return err;
    }
    async function accept(src, msg) {
      const plain = await open(inKeys[src], msg.ciphertext, aad(src, me)).catch(() => null);
      if (plain === null) throw await blame(src, msg, "a share that fails authentication");
      const vals = root.wire.fromArray({ dtype, shape: [k], data: plain }, dtype, k);
      if (vals.some((v) => v >= m)) throw await blame(src, msg, "a share out of range");
      vals.forEach((v, c) => (acc[c] = (acc[c] + v) % m));
    }
    async function maybePublish() {
      if (stopped || !sharesOut || published || got.size < n - 1) return;
      published = true;
      const rj = acc.map((a, c) => (a + x[c]) % m);
      note("step 3: published r_" + me + " = " + rj.join(",") + " (uniform: says nothing about my answer)");
      const value = root.wire.toArray(rj, dtype);  // signed, so that the board cannot show another total
      const signature = await root.signing.sign("full-mesh", run, "publish", me, value.data);
      send(0, root.wire.make("MeshPublish", { value, signature, run, step: 3 }));
    }
    return {
      async start() {
        const kp = await subtle.generateKey({ name: "X25519" }, true, ["deriveBits"]);
        sk = kp.privateKey;
        pk = new Uint8Array(await subtle.exportKey("raw", kp.publicKey));
        note("step 1: my X25519 public key " + hex(pk) + "... to the board, signed with my student key");
        const signature = await root.signing.sign("full-mesh", run, "keys", me, pk);
        send(0, root.wire.make("MeshKey", { pk, signature, run, step: 1 }));
      },
      async receive(src, msg) {
        if (msg.type === "MeshKeys" && src === 0) {
          const rows = msg.pks;
          if (rows.dtype !== "|u1" || rows.shape.join() !== [n, 32].join() || rows.data.length !== 32 * n) throw new Error("malformed key list");
          if (hex(rows.data.subarray(32 * (me - 1), 32 * me), 32) !== hex(pk, 32)) throw new Error("a key list without my own key");
          if (!Array.isArray(msg.signatures) || msg.signatures.length !== n) throw new Error("a key list without a signature per key");
          const verify = root.signing.verifier(r.roster);
          const others = Array.from({ length: n }, (_, i) => i + 1).filter((j) => j !== me);
          // every signature at once (WebCrypto works them off in parallel; one await each would
          // make a class of 200 wait for 199 round trips in a row)
          const valid = await Promise.all(others.map((j) => verify(j, msg.signatures[j - 1], "full-mesh", run, "keys", rows.data.slice(32 * (j - 1), 32 * j))));
          const forged = others.find((_, i) => !valid[i]);
          if (forged !== undefined) {  // a key the board substituted or replayed: name the board
            S.culprits = [0];
            throw new Error(`the board's key of party ${forged} is not signed by it (substituted or replayed)`);
          }
          note("checked: every key on the board carries its owner's signature for this round");
          const shares = [];
          for (let j = 0; j < n - 1; j++) shares.push(Array.from({ length: k }, () => uniform(m)));
          shares.push(Array.from({ length: k }, (_, c) => (m - shares.reduce((a, s) => a + s[c], 0) % m) % m));
          shares[me - 1].forEach((v, c) => (acc[c] = (acc[c] + v) % m));
          note("step 2: my answer split into " + n + " shares mod " + m + "; " + (n - 1) + " sealed for the others, "
               + "signed (one signature on the tree hash of the ciphertexts) and passed through the board, which checks them");
          const to = others;
          const cts = await Promise.all(to.map(async (j) => {  // every peer at once, as the signatures
            const peer = await subtle.importKey("raw", rows.data.slice(32 * (j - 1), 32 * j), { name: "X25519" }, false, []);
            const shared = new Uint8Array(await subtle.deriveBits({ name: "X25519", public: peer }, sk, 256));
            inKeys[j] = await pairKey(shared, "mesh-share", run, j, me);
            const out = await pairKey(shared, "mesh-share", run, me, j);
            return seal(out, root.wire.toArray(shares[j - 1], dtype).data, aad(me, j));
          }));
          const items = cts.map((ct, i) => root.signing.concat(root.wire.toArray([to[i]], "<u4").data, ct));
          // to the board without audit paths: it checks the signature on the whole batch's tree hash
          // and adds each path when it passes a share on
          const signature = await root.signing.sign("full-mesh", run, "shares", me, await root.signing.merkleRoot(items));
          to.forEach((j, i) => send(0, root.wire.make("MeshShare", { ciphertext: cts[i], signature, peer: j, run, step: 2 })));
          sharesOut = true;
          for (const j of Object.keys(held)) { await accept(Number(j), held[j]); delete held[j]; }
          await maybePublish();
        } else if (msg.type === "MeshShare" && src === 0 && msg.peer >= 1 && msg.peer <= n && msg.peer !== me) {
          const from = msg.peer;
          if (got.has(from)) throw new Error("duplicate share");
          got.add(from);
          if (!sharesOut) held[from] = msg;
          else await accept(from, msg);
          await maybePublish();
        } else if (msg.type === "MeshAbort" && src === 0) {
          if (!stopped) S.culprits = (msg.culprits || []).includes(me) ? [0] : [];  // it blames me, honest: the board lies
          stopped = true;
          throw new Error("the board stopped the run: " + msg.reason);
        } else if (msg.type === "MeshTotal" && src === 0) {
          const total = root.wire.fromArray(msg.total, dtype, k);
          note("step 4: the board's total " + total.join(","));
        } else throw new Error("unexpected message");
      },
    };
  }

  // -- the page -----------------------------------------------------------------------
  function choose(i) {
    S.answer = i;
    document.querySelectorAll("#options button").forEach((b, j) => b.classList.toggle("chosen", j === i));
    if (S.round && !party && !S.result) begin();
  }
  async function init() {
    if (!root.isSecureContext || !subtle) {
      setState("refused");
      show("refused", "This page needs a secure connection for its cryptography: ask the teacher to start the class with --https.");
      return;
    }
    await root.wire.load("/schema.json");
    S.vk = await root.signing.init();  // this student's Ed25519 key: its public half goes with the join
    const cfg = await (await fetch("/lesson.json")).json();
    show("question", cfg.question);
    const box = document.getElementById("options");
    cfg.options.forEach((label, i) => {
      const b = document.createElement("button");
      b.textContent = label;
      b.onclick = () => choose(i);
      box.appendChild(b);
    });
    const saved = sessionStorage.getItem("mpc-rr-name");
    const form = document.getElementById("join");
    if (saved) { document.getElementById("name").value = saved; }
    form.onsubmit = (e) => { e.preventDefault(); form.hidden = true; connect(document.getElementById("name").value); };
    if (saved) { form.hidden = true; connect(saved); }
    setState("enter your name");
  }
  S.choose = choose;
  if (typeof document !== "undefined") root.addEventListener("DOMContentLoaded", init);
})(typeof window !== "undefined" ? window : globalThis);
