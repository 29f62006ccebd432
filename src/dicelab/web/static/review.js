// dicelab web lab: the review of a finished game (/review/ID, with the token this browser keeps)
// and its read-only share view (/share/SHARE_ID). Draws the human's chance to win as an inline SVG,
// lists the moves (click, or step with the arrow keys, Home and End) and shows the position before
// each move with the coach's numbers, labels and advice. Nothing here knows a game's rules: the
// server replays the game and asks its coach (GET /api/games/ID/review, GET /api/games/shared/SHARE_ID).
"use strict";
(function () {
  const { $, pct } = lab;
  const root = $("review");
  const gameId = root.dataset.gameId, shareId = root.dataset.shareId;
  let rv = null;     // the review from the server
  let at = 0;        // the step shown: 0..steps.length (the last: the final position)
  const svgEl = lab.svgEl;
  const LABEL_WORD = { inaccuracy: "Inaccuracy", mistake: "Mistake", blunder: "Blunder" };

  // ------------------------------------------------------------------ words
  function seatName(s) {
    if (rv.seats) return lab.seatName(rv, s);  // a game between people
    if (s === rv.human_seat) return "You";
    if (rv.players <= 2) return "Bot";
    const bots = [...Array(rv.players).keys()].filter((x) => x !== rv.human_seat);
    return "Bot " + (bots.indexOf(s) + 1);
  }
  const words = (s) => String(s).replace(/_/g, " ");
  // one public event in plain words (generic: dice, results, totals, bids, shown hands, winners)
  function eventText(e) {
    const parts = [];
    if (Array.isArray(e.faces) && e.faces.length) parts.push("rolled " + e.faces.join(" and "));
    if (typeof e.die === "number") parts.push("threw " + e.die);
    if (Array.isArray(e.bid) && e.action !== "call") parts.push("bid " + e.bid.join(" \u00d7 "));
    if (e.action === "call" && Array.isArray(e.bid)) parts.push("called the bid " + e.bid.join(" \u00d7 "));
    if (typeof e.result === "string" && e.result !== "add") parts.push(words(e.result));
    if (typeof e.turn_total === "number" && e.turn_total > 0) parts.push("turn total " + e.turn_total);  // 0 after a hold or a 1 says nothing
    if (typeof e.total === "number") parts.push("total " + e.total);
    if (Array.isArray(e.hands)) parts.push("hands shown: " + e.hands.map((h, s) => seatName(s) + " " + (h.length ? h.join(" ") : "\u2013")).join(", "));
    if (typeof e.loser === "number") parts.push(seatName(e.loser) + " lost the call");
    if (Array.isArray(e.scores)) parts.push("scores " + e.scores.join(" \u2013 "));
    if (typeof e.winner === "number") parts.push(seatName(e.winner) + (e.winner === rv.human_seat ? " win the game" : " wins the game"));
    return parts.join(", ");
  }
  // a move in words; `scores`: whether to say the scores after it (in the list only at a turn's end)
  function moveText(mv, scores = true) {
    const said = lab.actionText(mv.action);  // an event that repeats the action ("bid 3 × 5") says nothing new
    const ev = (mv.events || []).map((e) => eventText(scores ? e : { ...e, scores: undefined }).split(", ")
      .filter((x) => x && x !== said).join(", ")).filter(Boolean).join("; ");
    return seatName(mv.seat) + ": " + lab.actionText(mv.action) + (ev ? " \u2014 " + ev : "") + (mv.hinted ? " (after a hint)" : "");
  }
  function resultText() {
    if (rv.status !== "finished") return rv.status === "playing" ? "still being played" : words(rv.status);
    const r = rv.returns ? rv.returns[rv.human_seat] : (rv.winner === rv.human_seat ? 1 : 0);
    return r >= 1 ? "you won" : r > 0 ? "you shared the win" : (rv.players > 2 || rv.seats ? seatName(rv.winner) : "the bot") + " won";
  }

  // ------------------------------------------------------------------ the position (generic)
  const HIDE = new Set(["seat", "to_move", "winner", "actions", "rounds", "last", "opening", "legal_actions"]);
  const DICE = /^(hand|faces|dice|roll|rolls|last_roll)$/;
  const SEAT = /^(bidder|starter|loser|leader|dealer)$/;  // a number that names a seat
  function position(obs, box) {
    box.textContent = "";
    if (!obs) { box.textContent = "The positions appear here once the game is over."; return; }
    const dl = document.createElement("dl");
    dl.className = "facts";
    const row = (name, value) => {
      const dt = document.createElement("dt"); dt.textContent = name;
      const dd = document.createElement("dd");
      if (value instanceof Node) dd.appendChild(value); else dd.textContent = value;
      dl.append(dt, dd);
    };
    if (Array.isArray(obs.to_move) && obs.to_move.length) row("To move", obs.to_move.map(seatName).join(", "));
    for (const [k, v] of Object.entries(obs)) {
      if (HIDE.has(k) || v === null || v === undefined) continue;
      const name = words(k).replace(/^./, (c) => c.toUpperCase());
      if (k === "bid" && Array.isArray(v)) { row(name, v.join(" \u00d7 ")); continue; }
      if (SEAT.test(k) && Number.isInteger(v)) { row(name, seatName(v)); continue; }
      if (Array.isArray(v) && v.length === rv.players && v.every((x) => typeof x === "number") && !DICE.test(k)) {
        row(name, v.map((x, s) => seatName(s) + " " + x).join(" \u00b7 "));
      } else if (Array.isArray(v) && DICE.test(k) && v.every((x) => Number.isInteger(x))) {
        const tray = document.createElement("span"); tray.className = "tray";
        lab.showDice(tray, v, { small: true });
        row(name, v.length ? tray : "\u2013");
      } else if (Array.isArray(v) && v.every((x) => typeof x === "boolean")) {
        row(name, v.map((x) => (x ? "\u25cf" : "\u25cb")).join(" "));
      } else if (["number", "string", "boolean"].includes(typeof v)) {
        row(name, typeof v === "boolean" ? (v ? "yes" : "no") : String(v));
      } else if (Array.isArray(v) && v.every((x) => ["number", "string"].includes(typeof x))) {
        row(name, v.join(", "));
      }
    }
    box.appendChild(dl);
  }

  // ------------------------------------------------------------------ the graph
  // x: the move number (point n: the position before move n + 1; the last point: the result);
  // y: the human's chance to win, 0-100%.
  const W = 640, H = 240, L = 44, R = 12, T = 12, B = 30;
  const xOf = (n) => L + (n * (W - L - R)) / Math.max(1, rv.steps.length);
  const yOf = (p) => T + (1 - p) * (H - T - B);
  function points() {
    // point n is the position after n moves: it carries the label of move n (your decision before it)
    const labelOf = (n) => (n > 0 ? (rv.steps[n - 1].moves.find((m) => m.actor === "human" && m.label) || {}).label : undefined);
    const out = rv.steps.map((s) => ({ n: s.n, value: s.win, label: labelOf(s.n) }));
    out.push({ n: rv.steps.length, value: rv.final.win, final: true, label: labelOf(rv.steps.length) });
    return out.filter((p) => typeof p.value === "number");
  }
  // what the graph measures: the game, or (a game of rounds whose coach values each round) the round
  const chance = () => (rv && rv.measure === "round" ? "chance to win the round" : "chance to win");
  function drawGraph() {
    const box = $("graph");
    box.textContent = "";
    const N = rv.steps.length;
    const svg = svgEl("svg", { viewBox: "0 0 " + W + " " + H, role: "img", class: "wp-graph", id: "wp-graph",
      "aria-label": "Your " + chance() + " after each move, from the start (left) to the result (right)" });
    for (const p of [0, 0.25, 0.5, 0.75, 1]) {
      svg.appendChild(svgEl("line", { x1: L, x2: W - R, y1: yOf(p), y2: yOf(p), class: p === 0.5 ? "grid mid" : "grid" }));
      const t = svgEl("text", { x: L - 6, y: yOf(p) + 4, "text-anchor": "end", class: "tick" });
      t.textContent = Math.round(p * 100) + "%";
      svg.appendChild(t);
    }
    const every = Math.max(1, Math.ceil(N / 10));  // whole moves only, at most about ten labels
    for (let n = 0; n <= N; n += every) {
      const t = svgEl("text", { x: xOf(n), y: H - 10, "text-anchor": "middle", class: "tick xtick" });
      t.textContent = String(n);
      svg.appendChild(t);
    }
    const pts = points();
    if (pts.length > 1) svg.appendChild(svgEl("polyline", { class: "wp-line", points: pts.map((p) => xOf(p.n) + "," + yOf(p.value)).join(" ") }));
    svg.appendChild(svgEl("line", { id: "cursor", class: "cursor", x1: xOf(at), x2: xOf(at), y1: T, y2: H - B }));
    for (const p of pts) {
      const c = svgEl("circle", { cx: xOf(p.n), cy: yOf(p.value), r: p.label ? 6 : 3.5, class: "pt" + (p.label ? " " + p.label : "") + (p.final ? " final" : ""),
        "data-step": p.n, "data-value": p.value });
      const tt = svgEl("title");
      tt.textContent = (p.final ? "Result: " : "Before move " + (p.n + 1) + ": ") + pct(p.value) + (p.label ? " (after " + (p.label === "inaccuracy" ? "an " : "a ") + p.label + ")" : "");
      c.appendChild(tt);
      svg.appendChild(c);
    }
    // a click anywhere on the graph shows the nearest move
    svg.addEventListener("click", (ev) => {
      const r = svg.getBoundingClientRect();
      const x = ((ev.clientX - r.left) / r.width) * W;
      show(Math.max(0, Math.min(N, Math.round(((x - L) / (W - L - R)) * Math.max(1, N)))), false);
    });
    box.appendChild(svg);
  }

  // ------------------------------------------------------------------ the move list and the step shown
  function label(mv) {
    if (!mv.label) return null;
    const b = document.createElement("span");
    b.className = "label " + mv.label;
    b.textContent = LABEL_WORD[mv.label] + " \u2212" + pct(mv.loss);
    return b;
  }
  // The moves grouped by turn (one turn: the moves of one seat, or one simultaneous step), each
  // numbered as the graph, the position panel and the advice number it ("Move 12").
  function listMoves() {
    const ol = $("review-moves");
    ol.textContent = "";
    const button = (n, text, mv) => {
      const b = document.createElement("button");
      b.type = "button"; b.className = "step" + (mv && mv.actor === "human" ? " human" : ""); b.dataset.step = String(n);
      b.textContent = text;
      const lb = mv ? label(mv) : null;
      if (lb) b.append(" ", lb);
      b.addEventListener("click", () => show(n, true));
      return b;
    };
    const start = document.createElement("li");
    start.appendChild(button(0, "Start", null));
    ol.appendChild(start);
    const turns = [];
    rv.steps.forEach((s) => {
      const last = turns[turns.length - 1];
      if (last && last.turn === s.turn && s.turn !== undefined) last.steps.push(s); else turns.push({ turn: s.turn, steps: [s] });
    });
    turns.forEach((t, k) => {
      const li = document.createElement("li");
      li.className = "turn";
      const seats = [...new Set(t.steps.flatMap((s) => s.moves.map((m) => m.seat)))];
      const head = document.createElement("div");
      head.className = "turn-head";
      head.textContent = "Turn " + (k + 1) + (seats.length === 1 ? " \u00b7 " + seatName(seats[0]) : "");
      const inner = document.createElement("ol");
      inner.className = "turn-moves";
      t.steps.forEach((s, i) => {
        const end = i === t.steps.length - 1;  // the scores once, at the turn's end
        const human = s.moves.find((m) => m.actor === "human");
        const text = (s.n + 1) + ". " + s.moves.map((m) => (seats.length === 1 ? moveText(m, end).replace(/^[^:]+: /, "") : moveText(m, end))).join(" \u00b7 ");
        const item = document.createElement("li");
        item.appendChild(button(s.n + 1, text, human || s.moves[0]));
        inner.appendChild(item);
      });
      li.append(head, inner);
      ol.appendChild(li);
    });
  }
  // Entry n of the list (and point n of the graph) is the position after n moves: 0 the start, the
  // last the result. The panel shows that position and move n itself (the decision that led there,
  // with the coach's numbers at the position before it).
  function show(n, focus) {
    const N = rv.steps.length;
    at = Math.max(0, Math.min(N, n));
    document.querySelectorAll("#review-moves button.step").forEach((b) => {
      const cur = Number(b.dataset.step) === at;
      b.classList.toggle("current", cur);
      if (cur) b.setAttribute("aria-current", "step"); else b.removeAttribute("aria-current");
      if (cur && focus) b.focus();
    });
    if ($("cursor")) { $("cursor").setAttribute("x1", xOf(at)); $("cursor").setAttribute("x2", xOf(at)); }
    const win = at < N ? rv.steps[at].win : rv.final.win;
    $("step-status").textContent = (at === 0 ? "The start" : "After move " + at + " of " + N) + (at === N ? " (" + resultText() + ")" : "") +
      (typeof win === "number" ? "; your " + chance() + " " + pct(win) : "") + ".";
    $("step-status").dataset.step = String(at);
    position(at < N ? rv.steps[at].position : rv.final.position, $("position"));
    const ch = at < N ? rv.steps[at].chances : null;  // every seat's chance, where the coach gives them
    if (Array.isArray(ch)) {
      const p = document.createElement("p");
      p.textContent = "Each player's chance to win, best play from here: " + ch.map((x, s) => seatName(s) + " " + pct(x)).join(" \u00b7 ") + ".";
      $("position").appendChild(p);
    }
    decision(at > 0 ? rv.steps[at - 1] : null, at);
  }
  // move n: who did what, and for your decisions the coach's numbers, the label and advice
  function decision(step, n) {
    const box = $("decision");
    box.textContent = "";
    if (!step) return;
    for (const mv of step.moves) {
      const p = document.createElement("p");
      p.textContent = "Move " + n + ": " + moveText(mv) + ".";
      box.appendChild(p);
      if (mv.actor !== "human" || !mv.values) continue;
      const vals = mv.values.filter((v) => typeof v.value === "number").slice().sort((a, b) => b.value - a.value);
      const q = document.createElement("p");
      q.className = "coach-values";
      q.textContent = "Your " + chance() + " after each choice: " + vals.slice(0, 6).map((v) => lab.actionText(v.action) + " " + pct(v.value)).join(" \u00b7 ") +
        (vals.length > 6 ? " and more" : "") + ". " + (mv.equal && mv.equal.length > 1
          ? "Worth the same at equilibrium: " + mv.equal.map(lab.actionText).join(", ") + " (mixing them keeps the other player guessing)"
          : "Best: " + lab.actionText(mv.best)) + "; you chose " + lab.actionText(mv.action) +
        (mv.loss >= 0.0005 ? ", giving away " + pct(mv.loss) + "." : " (as good as the best).");
      box.appendChild(q);
      const lb = label(mv);
      if (lb) box.appendChild(lb);
      if (mv.advice) {
        const a = document.createElement("p");
        a.className = "advice";
        a.textContent = mv.advice;
        box.appendChild(a);
      }
    }
  }

  // your worst decisions (mistakes and blunders, the costliest first), each with its advice; a click shows it
  function worst() {
    const ul = $("worst");
    ul.textContent = "";
    const bad = [];
    rv.steps.forEach((s) => s.moves.forEach((mv) => { if (mv.actor === "human" && mv.advice) bad.push({ n: s.n + 1, mv }); }));
    bad.sort((a, b) => b.mv.loss - a.mv.loss).slice(0, 3).forEach(({ n, mv }) => {
      const li = document.createElement("li");
      const b = document.createElement("button");
      b.type = "button"; b.className = "secondary small"; b.textContent = "Move " + n;
      b.addEventListener("click", () => show(n, true));
      li.append(b, " ", label(mv), " " + mv.advice);
      ul.appendChild(li);
    });
    ul.hidden = bad.length === 0;
  }

  // ------------------------------------------------------------------ loading
  function render() {
    $("review-title").textContent = rv.title + " \u2014 review" + (shareId ? " (shared, read-only)" : "");
    const rules = Object.entries(rv.rules || {}).map(([k, v]) => words(k) + " " + v).join(", ");
    const named = rv.opponent_names.filter((x) => x !== "Bot");
    $("review-meta").textContent = (rv.seats ? "Between " + rv.seats.filter((x) => x.kind !== "bot").length + " people" +
      (rv.opponents.length ? " and " + rv.opponents.length + (rv.opponents.length > 1 ? " bots" : " bot") : "")
      : "Against " + (rv.opponents.length > 1 ? rv.opponents.length + " bots" : "the bot")) +
      (named.length ? " (" + named.join(", ") + ")" : "") + (rules ? "; " + rules : "") + "; " + resultText() + "; " + rv.steps.length + " moves.";
    $("review-why").hidden = !rv.why;
    $("review-why").textContent = rv.why || "";
    $("graph-panel").hidden = !rv.graph;
    if (rv.graph) {
      const th = rv.thresholds;
      $("graph-title").textContent = "Your " + chance();
      $("thresholds").textContent = "Each of your decisions is labelled by the " + chance() + " it gave away against best play: " +
        "inaccuracy over " + pct(th.inaccuracy) + ", mistake over " + pct(th.mistake) + ", blunder over " + pct(th.blunder) + ".";
      $("graph-about").textContent = (rv.measure === "round"
        ? "Each round is valued on its own (the coach's duel policy for both players: a near-equilibrium, exact under that policy); "
        : "") + "Exact values from the coach: at your decisions your " + chance() + " with best play; " +
        (rv.players > 2 ? (rv.multiplayer_note || "") : "at the bot's, one minus the bot's own chance with best play; ") +
        "point 0 is the start, point n the position after n moves, the last point the result.";
      const s = rv.summary;
      const many = (n, one, more) => n + " " + (n === 1 ? one : more);
      $("review-summary").textContent = s ? (typeof s.accuracy === "number" ? "Accuracy " + Math.round(s.accuracy) + "%. " : "") +
        many(s.decisions, "decision", "decisions") + " rated: " + many(s.labels.blunder, "blunder", "blunders") + ", " +
        many(s.labels.mistake, "mistake", "mistakes") + ", " + many(s.labels.inaccuracy, "inaccuracy", "inaccuracies") +
        "; in all you gave away " + pct(s.total_lost) + "." : "";
      $("review-summary").dataset.accuracy = s && typeof s.accuracy === "number" ? s.accuracy.toFixed(1) : "";
      lab.noteAccuracy(rv);
      drawGraph();
      worst();
    }
    listMoves();
    if (rv.share_id) {
      $("share-box").hidden = false;
      $("share-url").value = location.origin + "/share/" + rv.share_id;
    }
    $("review-body").hidden = false;
    show(0, false);
    root.dataset.ready = "1";
  }

  async function load() {
    try {
      if (shareId) {
        rv = await lab.api("GET", "/api/games/shared/" + encodeURIComponent(shareId));
      } else {
        const token = lab.tokenOf(gameId);
        if (!token) throw new Error("This browser keeps no key for this game. Open it from My games on the browser that played it, or ask for its share link.");
        rv = await lab.api("GET", "/api/games/" + encodeURIComponent(gameId) + "/review", null, token);
      }
      render();
    } catch (e) {
      $("review-error").textContent = e.message;
      root.dataset.ready = "error";
    }
  }

  document.addEventListener("keydown", (e) => {
    if (!rv || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.target && e.target.matches && e.target.matches("input, select, textarea")) return;
    const N = rv.steps.length;
    const to = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: N }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    show(to, true);
  });
  $("copy-share").addEventListener("click", async () => {
    $("share-url").select();
    try { await navigator.clipboard.writeText($("share-url").value); $("copy-share").textContent = "Copied"; } catch (e) { $("copy-share").textContent = "Select and copy"; }
  });
  $("review-rematch").addEventListener("click", () => { if (rv) lab.rematch(lab.settingsOf(rv)); });
  load();
})();
