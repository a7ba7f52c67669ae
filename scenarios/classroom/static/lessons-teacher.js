// The teacher page's part of the lessons named for their topic (scenarios.classroom.live_lessons).
// noise: the epsilon the library's accountant gives for the class, the noisy total and one answer
// as it entered the sum, shown when the round ends (from the round's outcome).
// cheat: before each round the teacher picks what the server plays (honest, key substitution,
// equivocation, dropping student 1); the pick goes with the start (teacher.js calls lessonStart)
// and only to the server, never to the students' pages, which catch the cheat with their own checks.
"use strict";
(function (root) {
  const $ = (id) => document.getElementById(id);
  const EXPECT = {  // what the class should see, for the teacher to point at
    honest: "Every page shows the same class code and the total; nothing is caught.",
    "key-substitution": "Every page stops at the keys: a neighbour's key is not signed by its owner; each names the server.",
    equivocate: "Every page signs the survivor set it was shown. The pages shown a set that too few signed refuse to reveal any share and name the server; at most one set can reach the quorum, so the server never gets both kinds of share of student 1, and the round ends without a total.",
    "split-roster": "Student 1's page shows the class code on the projector; every other page shows another code, and its checks fail on student 1's keys (they are not signed by the key its roster gives for student 1). Read the code aloud: the pages that differ were shown another class.",
    "drop-student": "The total comes, without student 1's answer. The others' pages name party 1 as left out of the signed survivor set; party 1's page says the server left it out though it answered.",
  };
  let cfg = null, played = null;

  function panel() {
    const start = $("start");
    const box = document.createElement("div");
    box.id = "lesson-panel";
    box.className = "lesson-panel";
    const label = document.createElement("label");
    label.textContent = "The server plays: ";
    const sel = document.createElement("select");
    sel.id = "cheat";
    for (const [name, what] of Object.entries(cfg.cheats)) {
      const o = document.createElement("option");
      o.value = name; o.textContent = name; o.title = what;
      sel.appendChild(o);
    }
    label.appendChild(sel);
    const what = document.createElement("span");
    what.id = "cheat-what";
    what.className = "muted";
    const show = () => { what.textContent = " -- " + cfg.cheats[sel.value]; };
    sel.onchange = show;
    show();
    box.appendChild(label);
    box.appendChild(what);
    const now = document.createElement("p");
    now.id = "cheat-now";
    now.className = "cheat-now";
    box.appendChild(now);
    start.parentNode.after(box);
    root.lessonStart = () => {
      played = sel.value;
      now.textContent = "This round the server plays: " + played + ". " + EXPECT[played];
      return { choice: played };
    };
    root.lessonEnd = (e) => {
      if (!played) return;
      now.textContent = "The server played: " + played + ". " + EXPECT[played]
        + (e.ok ? "" : " The server's own view: " + e.error);
    };
  }

  // noise: the accountant's epsilon for this class, the noisy total, one answer as it entered the sum
  function noisePanel() {
    const box = document.createElement("div");
    box.id = "lesson-panel";
    box.className = "lesson-panel noise-panel";
    box.textContent = `Every student adds its share of Skellam noise to its answer, on its own device, before the answer enters the sum. `
      + `Target: epsilon = ${cfg.epsilon} at delta = ${cfg.delta.toExponential(0)} for the total.`;
    const now = document.createElement("div");
    now.id = "noise-now";
    box.appendChild(now);
    $("start").parentNode.after(box);
    root.lessonEnd = (e) => {
      now.textContent = "";
      const line = (cls, text) => { const p = document.createElement("p"); p.className = cls; p.textContent = text; now.appendChild(p); };
      line("eps", `epsilon = ${e.epsilon.toFixed(2)} (delta = ${e.delta.toExponential(0)}) for this class of ${e.n}: it holds even if only ${e.honest_min} honest students' noise is in the sum `
        + `(up to ${e.max_dropped} leaving, ${e.colluders} colluding with the server).`);
      if (!e.ok) return;
      line("total", "Noisy total: " + e.options.map((o, i) => `${o} ${e.total[i]}`).join(", ") + ` -- the noise on each count has spread ${e.noise_sd.toFixed(1)} (each student's: ${e.student_sd.toFixed(1)}).`);
      if (e.example) line("one", `One answer as it entered the sum (simulated student ${e.example.id}): `
        + e.options.map((o, i) => `${o} ${e.example.entered[i]}`).join(", ") + `. Which did it choose? (It chose ${e.options[e.example.answer]}.)`);
    };
  }

  // prio3: the simulated students vote with validity proofs; who was rejected, and why
  function proofsPanel() {
    const box = document.createElement("div");
    box.id = "lesson-panel";
    box.className = "lesson-panel noise-panel";
    box.textContent = "The simulated students vote, each vote split between the server and the helper (simulated student 1) with a proof that it is one vote. "
      + "The last simulated student votes twice; from five on, the one before it counts 5. The students' pages watch (the browser does not prove).";
    const now = document.createElement("div");
    now.id = "proofs-now";
    box.appendChild(now);
    $("start").parentNode.after(box);
    const saw = () => { if ($("saw-note")) $("saw-note").textContent = "Every frame the server (the leader) received: each report carries the leader's share of the vote and of its proof, the helper's share sealed to the helper, and a signature. No vote is in it; the helper's verifier shares decide which proofs hold."; };
    saw();
    root.lessonEnd = (e) => {
      saw();
      now.textContent = "";
      const p = document.createElement("p");
      p.className = "total";
      p.textContent = e.ok ? "Rejected and named: " + (e.rejected.map((r) => `simulated student ${r.id} (${r.why})`).join(", ") || "nobody")
        + ". The total counts the " + e.count + " valid votes." : "Aborted: " + e.error;
      now.appendChild(p);
    };
  }

  async function init() {
    cfg = await (await fetch("/lesson.json")).json();
    if (cfg.lesson === "cheat") panel();
    else if (cfg.lesson === "noise") noisePanel();
    else if (cfg.spectate) proofsPanel();
  }
  if (typeof document !== "undefined") root.addEventListener("DOMContentLoaded", init);
})(window);
