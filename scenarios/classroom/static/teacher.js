// The teacher's page of mpc-rr classroom serve: the join slide (QR code), the class live (a grid
// of every party coloured by the last step it sent; joins, dropouts, garbage), the round's frames
// as the server summarises them (counts and bytes per step, a few frames of each kind field by
// field), the result.  Its DOM stays bounded whatever the class size: one cell per party, one row
// per (step, message), at most MAX_EVENTS events.
"use strict";
(function (root) {
  const T = (root.teacher = { events: [], result: null, frames: 0 });
  const $ = (id) => document.getElementById(id);
  const MAX_EVENTS = 100;  // events listed (the newest first); the server's log keeps the rest
  let nmsg = 0;
  let revealed = [];
  let roster = {};  // name -> cell (students in the lobby and the round's browsers)
  let cells = {};  // party id -> cell, this round
  let names = {};  // party id -> name, this round
  let lastStep = {};  // party id -> the last step it sent
  let ranks = "";  // the round's steps so far, in order: a cell's colour is its step's rank

  function event(text, bad) {
    const li = document.createElement("li");
    li.textContent = text;
    if (bad) li.className = "bad";
    const list = $("events");
    list.prepend(li);
    while (list.childElementCount > MAX_EVENTS) list.lastElementChild.remove();
  }
  function cell(text, cls) {
    const c = document.createElement("span");
    c.textContent = text;
    c.title = text;
    c.className = cls || "";
    $("students").appendChild(c);
    return c;
  }
  function student(name, cls) {
    let c = roster[name];
    if (!c) c = roster[name] = cell(name);
    c.classList.toggle("dropped", cls === "dropped");
    $("count").textContent = $("students").childElementCount;
    $("slide-count").textContent = Object.keys(roster).length;
  }
  function newRound(e) {  // the grid becomes the round's parties: browsers by name, then the bots
    $("students").textContent = "";
    roster = {}; cells = {}; names = {}; lastStep = {}; ranks = "";
    for (const [id, name] of Object.entries(e.browsers)) { names[id] = name; cells[id] = roster[name] = cell(name); }
    for (const id of e.bots) { names[id] = "bot " + id; cells[id] = cell("bot " + id, "bot"); }
    $("count").textContent = $("students").childElementCount;
    $("legend").textContent = "";
  }
  function colour(id) {
    const c = cells[id];
    if (!c) return;
    c.dataset.step = ranks.split(",").indexOf(String(lastStep[id]));
    c.title = `${names[id]} (party ${id}): sent its step ${lastStep[id]} message`;
  }
  function onProgress(e) {
    T.frames = nmsg = e.frames;
    $("nmsg").textContent = nmsg.toLocaleString("en");
    const rows = e.steps.map((r) => `<tr><td>${r.step}</td><td>${esc(r.msg)}</td><td>${r.frames.toLocaleString("en")}</td><td>${r.to_server.toLocaleString("en")}</td><td>${r.bytes.toLocaleString("en")}</td></tr>`);
    $("steps").innerHTML = rows.join("");
    const steps = [...new Set(e.steps.map((r) => r.step))];
    const now = steps.join(",");
    Object.assign(lastStep, e.moved);
    if (now !== ranks) {  // a new step: the legend and every cell's colour follow it
      ranks = now;
      $("legend").innerHTML = steps.map((st, i) => `<span data-step="${i}">step ${st}: ${esc(e.steps.filter((r) => r.step === st).map((r) => r.msg).join(", "))}</span>`).join(" ");
      Object.keys(lastStep).forEach(colour);
    } else Object.keys(e.moved).forEach(colour);
    for (const f of e.saw) {
      const d = document.createElement("div");
      d.innerHTML = `<b>${esc(f.msg)} from ${f.src}</b> <span class="muted">(${f.size} bytes)</span> `;
      const shown = Object.entries(f.fields || {}).map(([k, v]) => `${k} = ${Array.isArray(v) ? "[" + v.join(", ") + "]" : v}`);
      d.appendChild(document.createTextNode(shown.join("; ")));
      $("saw").appendChild(d);
    }
  }

  function onEvent(e) {
    T.events.push(e);
    if (e.type === "join" || e.type === "rejoin") { student(e.name); event(`${e.name} ${e.type === "join" ? "joined" : "came back"}${e.late ? " (waits for the next round)" : ""}`); }
    else if (e.type === "leave") { student(e.name, "dropped"); event(`${e.name} left (${e.why})`); }
    else if (e.type === "dropout") { student(e.name, "dropped"); if (cells[e.id]) cells[e.id].classList.add("dropped"); event(`DROPOUT: party ${e.id} (${e.name}) left mid-round: ${e.why}`, true); }
    else if (e.type === "refused") event(`refused ${e.name || "a student"}: ${e.why}`, true);
    else if (e.type === "garbage") event(`rejected from ${e.who}: ${e.what}`, true);
    else if (e.type === "refused-round") event(`round not started: ${e.why}`, true);
    else if (e.type === "lobby") { $("slide-count").textContent = e.students.length + (e.bots ? ` + ${e.bots} simulated` : ""); $("status").textContent = e.round ? "round running" : `${e.students.length} student${e.students.length === 1 ? "" : "s"}` + (e.bots ? ` + ${e.bots} simulated` : "") + " ready"; }
    else if (e.type === "round") {
      nmsg = 0; $("steps").textContent = ""; $("saw").textContent = ""; $("nmsg").textContent = 0;
      $("result").textContent = "round running...";
      slide(false);
      newRound(e);
      $("fingerprint").textContent = (e.public && e.public.fingerprint) || "(no keys in this lesson)";
      event(`round ${e.run}: ${e.n} parties (${Object.keys(e.browsers).length} browsers, ${e.bots.length} simulated)`);
    } else if (e.type === "progress") onProgress(e);
    else if (e.type === "end") { onEnd(e); if (root.lessonEnd) root.lessonEnd(e); }
    else if (e.type === "reveal-asked") { revealed = []; $("revealed").textContent = "Asked who reveals..."; }
    else if (e.type === "reveal") onReveal(e);
  }

  function onEnd(e) {
    T.result = e;
    T.resultAt = Date.now();  // when the total reached this page (epoch ms: benchmarks and tests read it)
    let html;
    if (!e.ok) html = `<span class="refused">Aborted: ${esc(e.error)}</span>`;
    else {
      html = (e.estimate ? `Randomized tallies of ${e.count} answers: ` : `Total over ${e.count} answers: `) + e.options.map((o, i) => `${esc(o)}: <b>${e.total[i]}</b>`).join(", ");
      if (e.estimate) html += "<br>Estimated true counts: " + e.options.map((o, i) => `${esc(o)}: ${e.estimate[i].toFixed(1)} [${e.ci[i][0].toFixed(1)}, ${e.ci[i][1].toFixed(1)}]`).join(", ") + ` (95% CI, p = ${e.p})`;
    }
    const left = e.dropped.length ? e.dropped.join(", ") : "none";
    const uncounted = e.not_counted && e.not_counted.length ? `; not counted: ${e.not_counted.join(", ")}` : "";
    html += `<br><span class="muted">${e.seconds} s, ${nmsg.toLocaleString("en")} messages; tabs closed: ${left}${uncounted}</span>`;
    $("result").innerHTML = html;
    event(e.ok ? `round ${e.run} done: ${JSON.stringify(e.total)}` : `round ${e.run} aborted`, !e.ok);
  }
  function onReveal(e) {
    revealed.push(e.answer);
    const r = T.result;
    if (!r || !r.ok) return;
    const counts = r.options.map((_, i) => revealed.filter((a) => a === i).length);
    const consistent = counts.every((c, i) => c <= r.total[i]);
    $("revealed").textContent = `Revealed by ${revealed.length} of ${r.count}: ` + r.options.map((o, i) => `${o} ${counts[i]}`).join(", ")
      + (r.estimate ? "" : consistent ? " -- consistent with the total" : " -- MORE than the total: someone revealed a different answer");
  }
  function slide(on) { $("slide").hidden = !on; }
  function esc(s) { return String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]); }

  async function init() {
    const cfg = await (await fetch("/lesson.json")).json();
    $("title").textContent = "Live class: " + cfg.protocol;
    $("url").textContent = cfg.join_url;
    $("question").textContent = cfg.question + "  (" + cfg.options.join(" / ") + ")";
    $("qr").innerHTML = $("slide-qr").innerHTML = cfg.qr_svg;
    $("slide-url").textContent = cfg.join_url;
    $("slide-question").textContent = $("question").textContent;
    $("saw-note").textContent = (cfg.runs || cfg.protocol) === "secagg"  // cfg.runs: a topic lesson's protocol
      ? "The first frames of each kind the server received in this round, field by field (the table counts them all): public keys, shares sealed for other students (the server cannot open them), masked answers y = x + masks mod R (uniform), and at the end the Shamir shares that remove the masks -- of the seeds of those who stayed, of the mask keys of those who left, never both."
      : cfg.protocol === "rr-survey"
      ? `The first frames the server received in this round, field by field (the table counts them all). Each x is a randomized answer: the student's own with probability ${cfg.p}, otherwise a random one -- a single x proves nothing about its sender.`
      : "The first frames of each kind the server received in this round, field by field (the table counts them all): public keys, and each student's r_j, a uniform number mod n+1 (the shares went encrypted from student to student). No single answer is in it.";
    const key = new URLSearchParams(location.search).get("key");
    const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws/teacher?key=" + encodeURIComponent(key));
    ws.onmessage = (m) => {
      const e = JSON.parse(m.data);
      if (e.type === "snapshot") e.events.forEach(onEvent);
      else onEvent(e);
    };
    ws.onclose = () => ($("status").textContent = "disconnected from the server");
    // a lesson's own choice for the round (lessons-teacher.js: the cheat lesson's strategy)
    $("start").onclick = () => ws.send(JSON.stringify({ type: "start", ...(root.lessonStart ? root.lessonStart() : {}) }));
    $("reveal").onclick = () => ws.send(JSON.stringify({ type: "reveal" }));
    $("slide-hide").onclick = () => slide(false);
    $("slide-show").onclick = () => slide(true);
  }
  root.addEventListener("DOMContentLoaded", init);
})(window);
