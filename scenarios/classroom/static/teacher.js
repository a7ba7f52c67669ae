// The teacher's page of mpc-rr classroom serve: the class live (joins, dropouts, garbage), every
// message of the round as the server relays it, the result, and the bytes the server received.
"use strict";
(function (root) {
  const T = (root.teacher = { events: [], result: null });
  const $ = (id) => document.getElementById(id);
  let nmsg = 0;
  let revealed = [];
  let roster = {};  // name -> li

  function event(text, bad) {
    const li = document.createElement("li");
    li.textContent = text;
    if (bad) li.className = "bad";
    $("events").prepend(li);
  }
  function student(name, cls) {
    let li = roster[name];
    if (!li) { li = roster[name] = document.createElement("li"); li.textContent = name; $("students").appendChild(li); }
    li.className = cls || "";
    $("count").textContent = Object.keys(roster).length;
  }

  function onEvent(e) {
    T.events.push(e);
    if (e.type === "join" || e.type === "rejoin") { student(e.name); event(`${e.name} ${e.type === "join" ? "joined" : "came back"}${e.late ? " (waits for the next round)" : ""}`); }
    else if (e.type === "leave") { student(e.name, "dropped"); event(`${e.name} left (${e.why})`); }
    else if (e.type === "dropout") { student(e.name, "dropped"); event(`DROPOUT: party ${e.id} (${e.name}) left mid-round: ${e.why}`, true); }
    else if (e.type === "refused") event(`refused ${e.name || "a student"}: ${e.why}`, true);
    else if (e.type === "garbage") event(`rejected from ${e.who}: ${e.what}`, true);
    else if (e.type === "refused-round") event(`round not started: ${e.why}`, true);
    else if (e.type === "lobby") { $("status").textContent = e.round ? "round running" : `${e.students.length} student${e.students.length === 1 ? "" : "s"}` + (e.bots ? ` + ${e.bots} simulated` : "") + " ready"; }
    else if (e.type === "round") {
      nmsg = 0; $("trace").textContent = ""; $("saw").textContent = ""; $("nmsg").textContent = 0;
      $("result").textContent = "round running...";
      for (const [id, name] of Object.entries(e.browsers)) student(name);
      $("fingerprint").textContent = (e.public && e.public.fingerprint) || "(no keys in this lesson)";
      event(`round ${e.run}: ${e.n} parties (${Object.keys(e.browsers).length} browsers, ${e.bots.length} simulated)`);
    } else if (e.type === "msg") onMsg(e);
    else if (e.type === "end") { onEnd(e); if (root.lessonEnd) root.lessonEnd(e); }
    else if (e.type === "reveal-asked") { revealed = []; $("revealed").textContent = "Asked who reveals..."; }
    else if (e.type === "reveal") onReveal(e);
  }

  function onMsg(e) {
    nmsg += 1;
    $("nmsg").textContent = nmsg;
    const tr = document.createElement("tr");
    for (const v of [nmsg, e.t.toFixed(3), e.src === 0 ? "server" : e.src, e.dst === 0 ? "server" : e.dst, e.msg, e.step, e.size]) {
      const td = document.createElement("td"); td.textContent = v; tr.appendChild(td);
    }
    $("trace").appendChild(tr);
    if (e.dst === 0) {
      const d = document.createElement("div");
      d.innerHTML = `<b>${e.msg} from ${e.src}</b> <span class="muted">(${e.size} bytes)</span> `;
      const shown = Object.entries(e.fields || {}).map(([k, v]) => `${k} = ${Array.isArray(v) ? "[" + v.join(", ") + "]" : v}`);
      d.appendChild(document.createTextNode(shown.join("; ")));
      $("saw").appendChild(d);
    }
  }

  function onEnd(e) {
    T.result = e;
    let html;
    if (!e.ok) html = `<span class="refused">Aborted: ${esc(e.error)}</span>`;
    else {
      html = (e.estimate ? `Randomized tallies of ${e.count} answers: ` : `Total over ${e.count} answers: `) + e.options.map((o, i) => `${esc(o)}: <b>${e.total[i]}</b>`).join(", ");
      if (e.estimate) html += "<br>Estimated true counts: " + e.options.map((o, i) => `${esc(o)}: ${e.estimate[i].toFixed(1)} [${e.ci[i][0].toFixed(1)}, ${e.ci[i][1].toFixed(1)}]`).join(", ") + ` (95% CI, p = ${e.p})`;
    }
    const left = e.dropped.length ? e.dropped.join(", ") : "none";
    const uncounted = e.not_counted && e.not_counted.length ? `; not counted: ${e.not_counted.join(", ")}` : "";
    html += `<br><span class="muted">${e.seconds} s, ${nmsg} messages; tabs closed: ${left}${uncounted}</span>`;
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
  function esc(s) { return String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]); }

  async function init() {
    const cfg = await (await fetch("/lesson.json")).json();
    $("title").textContent = "Live class: " + cfg.protocol;
    $("url").textContent = cfg.join_url;
    $("question").textContent = cfg.question + "  (" + cfg.options.join(" / ") + ")";
    $("qr").innerHTML = cfg.qr_svg;
    $("saw-note").textContent = (cfg.runs || cfg.protocol) === "secagg"  // cfg.runs: a topic lesson's protocol
      ? "Every frame the server received in this round, field by field: public keys, shares sealed for other students (the server cannot open them), masked answers y = x + masks mod R (uniform), and at the end the Shamir shares that remove the masks -- of the seeds of those who stayed, of the mask keys of those who left, never both."
      : cfg.protocol === "rr-survey"
      ? `Every frame the server received in this round, field by field. Each x is a randomized answer: the student's own with probability ${cfg.p}, otherwise a random one -- a single x proves nothing about its sender.`
      : "Every frame the server received in this round, field by field: public keys, and each student's r_j, a uniform number mod n+1 (the shares went encrypted from student to student). No single answer is in it.";
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
  }
  root.addEventListener("DOMContentLoaded", init);
})(window);
