// dicelab web lab: the puzzles page. The server holds a stored puzzle set; this script shows one
// puzzle's position (drawn from the generic widgets its game provides: scores, dice, lid slots,
// facts, lists), takes your choice, and shows the exact value of every move and the sentence of
// why. Your rating (Elo against each puzzle's rating) and streak live in this browser's
// localStorage ("dicelab-puzzles"); only your first answer to a puzzle counts.
"use strict";
(function () {
  const { $, api, pct } = lab;
  const KEY = "dicelab-puzzles", START = 1200, K = 32;
  const page = $("puzzle");
  const listing = { puzzles: [] };
  let current = null;   // the question shown
  let answered = false;

  // ------------------------------------------------------------------ the record in localStorage
  function record() {
    let r = null;
    try { r = JSON.parse(window.localStorage.getItem(KEY) || "null"); } catch (e) { r = null; }
    if (!r || typeof r !== "object") r = {};
    return { rating: typeof r.rating === "number" ? r.rating : START, streak: r.streak | 0, best: r.best | 0,
      done: r.done && typeof r.done === "object" ? r.done : {} };
  }
  function save(r) { try { window.localStorage.setItem(KEY, JSON.stringify(r)); } catch (e) { /* storage off */ } }
  // Elo against the puzzle: expected = 1 / (1 + 10^((puzzle - you) / 400)), K = 32
  function rate(r, puzzleRating, right) {
    const expected = 1 / (1 + Math.pow(10, (puzzleRating - r.rating) / 400));
    const change = Math.round(K * ((right ? 1 : 0) - expected));
    r.rating = Math.round(r.rating + change);
    return change;
  }
  function showRecord(change) {
    const r = record();
    const done = Object.values(r.done);
    $("my-rating").textContent = String(r.rating);
    $("my-streak").textContent = String(r.streak);
    $("my-best").textContent = String(r.best);
    $("my-solved").textContent = String(done.filter((d) => d && d.right).length);
    $("my-tried").textContent = String(done.length);
    $("my-change").textContent = change ? "(" + (change > 0 ? "+" : "\u2212") + Math.abs(change) + ")" : "";
    document.querySelectorAll("#puzzle-list tr[data-id]").forEach((tr) => {
      const d = r.done[tr.dataset.id];
      tr.querySelector(".mark").textContent = d ? (d.right ? "solved" : "missed") : "";
    });
  }

  // the unsolved puzzle closest to your rating (else any other than the current one)
  function pick(exclude) {
    const r = record();
    const all = listing.puzzles.filter((p) => p.id !== exclude);
    if (!all.length) return null;
    const fresh = all.filter((p) => !r.done[p.id]);
    const pool = fresh.length ? fresh : all;
    return pool.slice().sort((a, b) => Math.abs(a.rating - r.rating) - Math.abs(b.rating - r.rating) || (a.id < b.id ? -1 : 1))[0];
  }

  // ------------------------------------------------------------------ the position's widgets
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function widget(w) {
    const box = el("div", "widget widget-" + w.type);
    if (w.label) box.appendChild(el("h3", "", w.label));
    if (w.type === "scores") {
      for (const s of w.items || []) {
        const row = el("div", "meter-row" + (s.you ? " you" : ""));
        const id = "m-" + Math.random().toString(36).slice(2, 9);
        const name = el("label", "", s.label);
        name.htmlFor = id;
        const m = document.createElement("meter");
        m.id = id; m.min = 0; m.max = s.goal; m.value = s.value;
        row.append(name, m, el("b", "", s.value + " of " + s.goal));
        box.appendChild(row);
      }
    } else if (w.type === "dice") {
      const tray = el("div", "tray");
      lab.showDice(tray, w.faces || [], { coin: !!w.coin, owner: "you" });
      if (w.hidden) tray.appendChild(el("div", "cup", "")).appendChild(el("div", "shell", w.hidden + (w.hidden === 1 ? " hidden die" : " hidden dice")));
      if (!(w.faces || []).length && !w.hidden) tray.appendChild(el("span", "hint-line", "none yet"));
      box.appendChild(tray);
    } else if (w.type === "slots") {
      const lid = el("div", "lid");
      (w.filled || []).forEach((full, n) => {
        const pit = el("div", "pit" + (full ? " full" : ""), String(n + 1));
        pit.setAttribute("role", "img");
        pit.setAttribute("aria-label", "pit " + (n + 1) + (full ? ": filled" : ": empty"));
        lid.appendChild(pit);
      });
      box.appendChild(lid);
    } else if (w.type === "facts") {
      const dl = el("dl", "facts");
      for (const f of w.items || []) dl.append(el("dt", "", f.label), el("dd", "", f.value));
      box.appendChild(dl);
    } else if (w.type === "list") {
      const ol = el("ol", "");
      for (const item of w.items || []) ol.appendChild(el("li", "", item));
      box.appendChild(ol);
    }
    return box;
  }

  // ------------------------------------------------------------------ one puzzle
  async function show(id) {
    answered = false;
    $("solution").hidden = true;
    $("result").textContent = "";
    $("result").className = "result";
    let q;
    try { q = await api("GET", "/api/puzzles/" + encodeURIComponent(id)); } catch (e) { $("result").textContent = e.message; return; }
    current = q;
    page.hidden = false;
    page.dataset.id = q.id;
    $("puzzle-title").textContent = q.setting + " \u00b7 puzzle rated " + q.rating;
    $("question").textContent = q.question;
    const pos = $("position");
    pos.textContent = "";
    for (const w of q.board || []) pos.appendChild(widget(w));
    const box = $("choices");
    box.textContent = "";
    for (const c of q.choices) {
      const b = el("button", "", c.label);
      b.type = "button";
      b.addEventListener("click", () => { if (!lab.isOff(b)) answer(c.action, b); });
      box.appendChild(b);
    }
    const nxt = pick(q.id);
    $("next").href = nxt ? "/puzzles/" + encodeURIComponent(nxt.id) : "/puzzles";
    document.body.dataset.ready = "1";
  }

  async function answer(action, button) {
    if (answered || !current) return;
    answered = true;
    const buttons = [...$("choices").querySelectorAll("button")];
    buttons.forEach((b) => lab.setOff(b, true));
    button.classList.add("picked");
    let a;
    try {
      a = await api("POST", "/api/puzzles/" + encodeURIComponent(current.id) + "/answer", { action });
    } catch (e) {
      $("result").textContent = e.message;
      answered = false;
      buttons.forEach((b) => lab.setOff(b, false));
      return;
    }
    const r = record();
    let change = 0;
    const first = !r.done[current.id];
    if (first) {
      change = rate(r, current.rating, a.right);
      r.streak = a.right ? r.streak + 1 : 0;
      r.best = Math.max(r.best, r.streak);
      r.done[current.id] = { right: a.right, at: new Date().toISOString() };
      save(r);
    }
    showRecord(change);
    const what = a.kind === "win probability" ? "chance to win" : a.kind;
    const head = a.right ? "Right: " + a.best_label + " is the best move." :
      "Not quite: " + a.best_label + " is the best move, not " + a.chosen_label + ".";
    const rated = first ? " Your rating is now " + r.rating + (a.right ? ", streak " + r.streak + "." : ", and the streak starts again.") :
      " (You had answered this puzzle before, so your rating stays.)";
    // one announcement per result: the live region gets one text (the why follows below it)
    $("result").className = "result " + (a.right ? "right" : "wrong");
    $("result").textContent = head + rated;
    $("values-caption").textContent = "Every move's exact " + what;
    const tb = $("values");
    tb.textContent = "";
    for (const m of a.moves) {
      const tr = el("tr", (lab.same(m.action, a.best) ? "best" : "") + (lab.same(m.action, a.chosen) ? " chosen" : ""));
      const note = lab.same(m.action, a.best) ? "best" : "gives away " + (100 * (a.moves[0].value - m.value)).toFixed(1) + " points";
      tr.append(el("td", "", m.label), el("td", "", pct(m.value)), el("td", "", note));
      tb.appendChild(tr);
    }
    drawCurve(a.curve);
    $("why").textContent = a.why;
    const wrong = a.thumbs.filter((t) => !t.right).map((t) => "\u201c" + t.name + "\u201d plays " + t.label.toLowerCase());
    const right = a.thumbs.filter((t) => t.right).map((t) => "\u201c" + t.name + "\u201d");
    $("thumbs").textContent = "Rules of thumb: " + wrong.join("; ") + " here" + (right.length ? "; " + right.join(" and ") + " gets it right" : "") +
      ". The best move is ahead of the next by " + (100 * a.margin).toFixed(1) + " points.";
    $("details").textContent = a.details;
    $("solution").hidden = false;
    document.body.dataset.answered = a.right ? "right" : "wrong";
  }

  // The value of every move along a range (extra.curve of the stored puzzle), when the choices
  // offered were only some of them: a line with the best move marked.
  function drawCurve(c) {
    const fig = $("curve"), box = $("curve-plot");
    box.textContent = "";
    fig.hidden = !(c && c.y && c.y.length > 1);
    if (fig.hidden) return;
    const W = 560, H = 220, L = 52, R = 14, T = 12, B = 40, n = c.y.length;
    const lo = Math.floor(Math.min(...c.y) * 20) / 20, hi = Math.ceil(Math.max(...c.y) * 20) / 20 || 0.05;
    const X = (k) => L + (W - L - R) * (n === 1 ? 0 : k / (n - 1));
    const Y = (v) => T + (H - T - B) * (1 - (v - lo) / Math.max(hi - lo, 1e-9));
    let top = 0;
    c.y.forEach((v, k) => { if (v > c.y[top]) top = k; });
    const label = c.title + ": from " + pct(c.y[0]) + " at " + c.x_label + " " + c.x0 + " to " + pct(c.y[n - 1]) +
      " at " + (c.x0 + n - 1) + "; the highest, " + pct(c.y[top]) + ", at " + c.x_label + " " + (c.x0 + top) + ".";
    const svg = lab.svgEl("svg", { viewBox: "0 0 " + W + " " + H, role: "img", "aria-label": label });
    svg.append(lab.svgEl("line", { x1: L, y1: H - B, x2: W - R, y2: H - B, class: "axis" }),
      lab.svgEl("line", { x1: L, y1: T, x2: L, y2: H - B, class: "axis" }));
    for (let s = 0; s <= 4; s++) {
      const v = lo + (hi - lo) * s / 4;
      svg.appendChild(lab.svgEl("text", { x: L - 6, y: Y(v) + 4, "text-anchor": "end", class: "tick" }, pct(v)));
      const k = Math.round((n - 1) * s / 4);
      svg.appendChild(lab.svgEl("text", { x: X(k), y: H - B + 16, "text-anchor": "middle", class: "tick" }, String(c.x0 + k)));
    }
    svg.appendChild(lab.svgEl("text", { x: (L + W - R) / 2, y: H - 6, "text-anchor": "middle", class: "tick" }, c.x_label));
    svg.appendChild(lab.svgEl("polyline", { class: "line", points: c.y.map((v, k) => X(k).toFixed(1) + "," + Y(v).toFixed(1)).join(" ") }));
    svg.appendChild(lab.svgEl("circle", { cx: X(top), cy: Y(c.y[top]), r: 5, class: "best" }));
    $("curve-title").textContent = c.title;
    box.appendChild(svg);
  }

  // ------------------------------------------------------------------ start
  $("start").addEventListener("click", () => {
    const p = pick(current ? current.id : null);
    if (p) location.href = "/puzzles/" + encodeURIComponent(p.id);
  });
  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || page.hidden) return;
    const t = e.target;
    if (t && t.matches && t.matches("input, select, textarea")) return;
    if (/^[1-9]$/.test(e.key) && !answered) {  // 1-9: the n-th choice
      const b = $("choices").querySelectorAll("button")[parseInt(e.key, 10) - 1];
      if (b) { e.preventDefault(); b.focus(); b.click(); }
    } else if (e.key === "n" && answered) {
      e.preventDefault();
      $("next").click();
    }
  });
  (async () => {
    try { Object.assign(listing, await api("GET", "/api/puzzles")); } catch (e) { listing.puzzles = []; }
    showRecord(0);
    const id = page.dataset.id;
    if (id) await show(id);
    else document.body.dataset.ready = "1";
  })();
})();
