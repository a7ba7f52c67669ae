// What this page's own checks caught in a round, shown on the student's page (the cheat lesson,
// and every SecAgg+ or full-mesh round).  Nothing here comes from a flag the server sends: a
// detection is a check of secagg.js / student.js that failed on a message the server relayed
// (a key its owner did not sign, a survivor set too few signed, ...), with whom that check
// blames (party.culprits: 0 is the server); a left-out student is one whose page sent its masked
// answer and was never shown the survivor set before the round ended; the survivor set a page
// accepted (its signatures checked) names who the server counted as dropped.
"use strict";
(function (root) {
  const D = (root.detect = { found: [], leftOut: [], excluded: null, sentTypes: [], seen: [] });
  const WHERE = {  // the message whose check failed -> what the page was checking
    NeighborKeys: "the keys the server handed out: a neighbour's key is not signed by its owner under the class roster (key substitution)",
    MeshKeys: "the keys the board handed out: a key is not signed by its owner under the class roster (key substitution)",
    SurvivorSet: "the survivor set the server showed this page",
    UnmaskRequest: "the survivor set before revealing any share: not a quorum of signatures on one set (the server showed students different sets: equivocation)",
    ForwardedShares: "the shares the server forwarded",
    ShareProofs: "the proofs of a share that did not open",
    Aggregate: "the server's signature on the total",
  };
  function who(ids) { return ids.map((i) => (i === 0 ? "the server (party 0)" : "party " + i)).join(", "); }
  function box() {
    let el = document.getElementById("detected");
    if (!el && typeof document !== "undefined") {
      el = document.createElement("div");
      el.id = "detected";
      el.className = "detected";
      const after = document.getElementById("alarm") || document.getElementById("state");
      if (after) after.after(el); else document.body.appendChild(el);
    }
    return el;
  }
  function render() {
    const el = box();
    if (!el) return;
    el.textContent = "";
    const add = (cls, head, body) => {
      const d = document.createElement("div");
      d.className = cls;
      const b = document.createElement("b"); b.textContent = head; d.appendChild(b);
      for (const line of body) { const p = document.createElement("p"); p.textContent = line; d.appendChild(p); }
      el.appendChild(d);
    };
    for (const f of D.found) add("caught", "This page caught the server cheating", [
      "It checked " + f.where + ".", "What failed: " + f.what, "It names: " + who(f.culprits) + ". It takes no further part in this round."]);
    if (D.excluded) add("caught", "The server left this page out of the sum", [D.excluded]);
    if (D.leftOut.length) add("notice", "The signed survivor set leaves out: " + who(D.leftOut), [
      "The server counts " + (D.leftOut.length === 1 ? "this student" : "these students") + " as dropped; their answers are not in the total. "
      + "If one of them did not leave, the server dropped an honest student: ask who is party " + D.leftOut.join(", ") + "."]);
  }

  D.watch = function (party, r) {  // wrap the page's party: record what its checks caught
    D.found = []; D.leftOut = []; D.excluded = null; D.sentTypes = []; D.seen = [];
    D.round = r;
    render();
    const receive = party.receive.bind(party);
    party.receive = async function (src, msg) {
      try { await receive(src, msg); }
      catch (err) {
        const culprits = (party.culprits && party.culprits.length ? party.culprits : (root.classroom && root.classroom.culprits) || []).slice();
        if (culprits.length) {
          D.found.push({ type: msg.type, where: WHERE[msg.type] || "a " + msg.type + " from the server", what: String(err.message || err), culprits });
          render();
        }
        throw err;
      }
      D.seen.push(msg.type);
      if (msg.type === "UnmaskRequest" && root.signing) {  // accepted: its signatures checked out
        const members = root.signing.readBitmap(msg.survivors, r.n);
        if (members) { D.leftOut = members.flatMap((on, i) => (i > 0 && !on ? [i] : [])); render(); }
      }
    };
    return party;
  };
  D.sent = function (msg) { D.sentTypes.push(msg.type); };
  D.ended = function (m) {  // the round is over: was this page, which sent its answer, left out?
    if (m.rejected) {  // the Prio3 lesson: the aggregators' verdict (this page watched, it verified nothing)
      D.found = []; D.leftOut = []; D.excluded = null;
      render();
      const el = box();
      const d = document.createElement("div");
      d.className = "notice";
      const b = document.createElement("b");
      b.textContent = "The aggregators rejected and named: " + (m.rejected.map((r) => "simulated student " + r.id + " (" + r.why + ")").join(", ") || "nobody");
      const p = document.createElement("p");
      p.textContent = "The server and the helper (simulated student 1) checked every vote's proof on their shares, without seeing any vote; these proofs failed, so those votes are not in the total.";
      d.appendChild(b); d.appendChild(p); el.appendChild(d);
      return;
    }
    if (!D.round || D.round.protocol !== "secagg" || D.found.length) return;
    const answered = D.sentTypes.includes("MaskedInput");
    const told = D.seen.includes("UnmaskRequest") || D.seen.includes("SecAggAbort") || D.seen.includes("Aggregate");
    if (answered && !told) {
      D.excluded = "This page sent its masked answer, and the server never showed it the survivor set nor the total: "
        + "it counted this student as dropped. Either the answer arrived late, or the server dropped this student on purpose. "
        + "It names: the server (party 0). Tell the class: you are party " + D.round.id + ".";
      render();
    }
  };
})(typeof window !== "undefined" ? window : globalThis);
