// dicelab web lab: the strategy explorer. It asks the JSON API and shows the answers as tables and
// as SVG plots drawn here (no plotting library); a click on a square of a map asks about that
// position. Strategies are shown by their names; errors as sentences.
"use strict";
(function () {
  const { $, pct, sentence } = lab;
  // ------------------------------------------------------------------ the API, errors as sentences
  async function getJSON(url) {
    let r;
    try { r = await fetch(url); } catch (e) { throw new Error("The lab did not answer. Is the server still running?"); }
    let d = null;
    try { d = await r.json(); } catch (e) { d = null; }
    if (!r.ok) {
      if (r.status === 503) throw new Error("The explorer is busy; please try again in " + (r.headers.get("Retry-After") || "a few") + " seconds.");
      const detail = d && d.detail ? d.detail : r.statusText;
      throw new Error(sentence(detail));  // the server words it (dicelab.web.messages)
    }
    return d;
  }
  function formParams(form) {
    const p = new URLSearchParams();
    for (const [k, v] of new FormData(form).entries()) if (v !== "") p.append(k, v);
    return p;
  }
  function rulesParams() { const p = formParams($("rules-form")); p.delete("k"); return p; }

  // ------------------------------------------------------------------ small DOM and SVG helpers
  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  const svg = lab.svgEl;
  // a table from a header row and body rows (cells: text, or {text, num, cls, value})
  function table(head, rows, cls) {
    const t = el("table", { class: "grid " + (cls || "") });
    const tr = el("tr");
    head.forEach((h) => tr.appendChild(el("th", { scope: "col" }, h)));
    t.appendChild(el("thead")).appendChild(tr);
    const body = t.appendChild(el("tbody"));
    for (const row of rows) {
      const r = body.appendChild(el("tr", row.cls ? { class: row.cls } : {}));
      (row.cells || row).forEach((c, n) => {
        const cell = typeof c === "object" && c !== null ? c : { text: c };
        const td = el(n === 0 && cell.header ? "th" : "td", cell.num ? { class: "num" } : {}, cell.text);
        if (cell.value !== undefined) td.dataset.value = cell.value;
        if (cell.bg) td.style.background = cell.bg;
        r.appendChild(td);
      });
    }
    const wrap = el("div", { class: "table-wrap" });
    wrap.appendChild(t);
    return wrap;
  }
  const pcell = (p) => ({ text: pct(p), num: true, value: p });
  function niceStep(n, ticks) {
    const raw = n / (ticks || 5);
    for (const s of [1, 2, 5, 10, 20, 25, 50, 100]) if (s >= raw) return s;
    return 100;
  }
  // colour scales: white to green for turn totals, blue (losing) to red (winning) for chances
  function mix(a, b, t) { return "rgb(" + a.map((x, n) => Math.round(x + (b[n] - x) * t)).join(",") + ")"; }
  function seqColor(t) { return t < 0.5 ? mix([247, 251, 255], [107, 174, 214], 2 * t) : mix([107, 174, 214], [8, 48, 107], 2 * t - 1); }
  function divColor(t) { return t < 0.5 ? mix([33, 102, 172], [247, 247, 247], 2 * t) : mix([247, 247, 247], [178, 24, 43], 2 * t - 1); }

  // a heatmap of m[i][j] (i up, j across), squares clickable; null squares are wins, not states
  function heatmap(box, m, o) {
    const g = m.length, size = 300, left = 40, top = 8, cell = size / g, lw = 14;
    const s = svg("svg", { viewBox: `0 0 ${left + size + 74} ${top + size + 36}`, role: "img", "aria-label": o.label });
    s.appendChild(svg("title", {}, o.label));
    const cells = svg("g", {});
    for (let i = 0; i < g; i++) {
      for (let j = 0; j < g; j++) {
        const v = m[i][j];
        const r = svg("rect", { x: (left + j * cell).toFixed(2), y: (top + (g - 1 - i) * cell).toFixed(2),
          width: (cell + 0.02).toFixed(2), height: (cell + 0.02).toFixed(2), class: v === null ? "win" : "cell",
          fill: v === null ? "#e8e8e8" : (o.special && o.special(i, j)) || o.color((v - o.lo) / (o.hi - o.lo || 1)),
          "data-i": i, "data-j": j });
        cells.appendChild(r);
      }
    }
    cells.addEventListener("click", (ev) => {
      const r = ev.target;
      if (r.classList && r.classList.contains("cell")) o.click(+r.dataset.i, +r.dataset.j);
    });
    s.appendChild(cells);
    const step = niceStep(g);
    for (let t = 0; t < g; t += step) {
      s.appendChild(svg("text", { x: left + (t + 0.5) * cell, y: top + size + 11, class: "tick", "text-anchor": "middle" }, t));
      s.appendChild(svg("text", { x: left - 3, y: top + (g - t - 0.5) * cell + 3, class: "tick", "text-anchor": "end" }, t));
    }
    s.appendChild(svg("text", { x: left + size / 2, y: top + size + 26, class: "label", "text-anchor": "middle" }, "opponent's score"));
    s.appendChild(svg("text", { x: 10, y: top + size / 2, class: "label", "text-anchor": "middle",
      transform: `rotate(-90 10 ${top + size / 2})` }, "your score"));
    // the legend: ten steps of the scale with its ends
    const lx = left + size + 12;
    for (let n = 0; n < 10; n++) {
      s.appendChild(svg("rect", { x: lx, y: top + (9 - n) * (size / 10), width: lw, height: size / 10 + 0.5, fill: o.color((n + 0.5) / 10) }));
    }
    s.appendChild(svg("text", { x: lx + lw + 3, y: top + 8, class: "tick" }, o.fmt(o.hi)));
    s.appendChild(svg("text", { x: lx + lw + 3, y: top + size, class: "tick" }, o.fmt(o.lo)));
    const mark = svg("rect", { class: "selected", width: cell, height: cell, visibility: "hidden" });
    s.appendChild(mark);
    s.select = (i, j) => {
      mark.setAttribute("x", left + j * cell); mark.setAttribute("y", top + (g - 1 - i) * cell);
      mark.setAttribute("visibility", "visible");
    };
    box.replaceChildren(s);
    return s;
  }

  // bars: groups of values in [0, 1], one colour per series
  function bars(box, groups, series, label) {
    const w = 420, h = 220, left = 36, bottom = 40, top = 22, pw = w - left - 8, ph = h - top - bottom;
    const colors = ["#1f6f50", "#3b4f8f", "#b4233c", "#8a6d3b"];
    const s = svg("svg", { viewBox: `0 0 ${w} ${h}`, role: "img", "aria-label": label });
    s.appendChild(svg("title", {}, label));
    for (const t of [0, 0.25, 0.5, 0.75, 1]) {
      const y = top + ph * (1 - t);
      s.appendChild(svg("line", { x1: left, x2: left + pw, y1: y, y2: y, stroke: "#e4e1da" }));
      s.appendChild(svg("text", { x: left - 3, y: y + 3, class: "tick", "text-anchor": "end" }, Math.round(100 * t) + "%"));
    }
    const gw = pw / groups.length, bw = Math.min(40, (gw - 12) / series.length);
    groups.forEach((gname, gi) => {
      series.forEach((se, si) => {
        const v = se.values[gi], x = left + gi * gw + (gw - bw * series.length) / 2 + si * bw;
        s.appendChild(svg("rect", { x, y: top + ph * (1 - v), width: bw - 2, height: ph * v, fill: colors[si % colors.length] }));
        s.appendChild(svg("text", { x: x + bw / 2 - 1, y: top + ph * (1 - v) - 3, class: "value", "text-anchor": "middle" }, pct(v)));
      });
      s.appendChild(svg("text", { x: left + (gi + 0.5) * gw, y: h - bottom + 14, class: "tick", "text-anchor": "middle" }, gname));
    });
    series.forEach((se, si) => {
      s.appendChild(svg("rect", { x: left + si * 200, y: h - 14, width: 10, height: 10, fill: colors[si % colors.length] }));
      s.appendChild(svg("text", { x: left + si * 200 + 14, y: h - 5, class: "label" }, se.name));
    });
    box.appendChild(el("div", { class: "svg-plot" })).appendChild(s);
  }

  // a line over integer x with y in [lo, hi]; `marks`: x values to mark
  function line(box, xs, ys, o) {
    const w = 420, h = 240, left = 44, bottom = 34, top = 10, pw = w - left - 10, ph = h - top - bottom;
    let lo = Math.min(...ys), hi = Math.max(...ys);
    if (hi - lo < 1e-9) { lo -= 0.01; hi += 0.01; }
    const x0 = xs[0], x1 = xs[xs.length - 1] === x0 ? x0 + 1 : xs[xs.length - 1];
    const X = (x) => left + pw * (x - x0) / (x1 - x0), Y = (y) => top + ph * (1 - (y - lo) / (hi - lo));
    const s = svg("svg", { viewBox: `0 0 ${w} ${h}`, role: "img", "aria-label": o.label });
    s.appendChild(svg("title", {}, o.label));
    for (let n = 0; n <= 4; n++) {
      const y = lo + (hi - lo) * n / 4;
      s.appendChild(svg("line", { x1: left, x2: left + pw, y1: Y(y), y2: Y(y), stroke: "#e4e1da" }));
      s.appendChild(svg("text", { x: left - 3, y: Y(y) + 3, class: "tick", "text-anchor": "end" }, o.fmt(y)));
    }
    const step = niceStep(x1 - x0 + 1, 8);
    for (let x = Math.ceil(x0 / step) * step; x <= x1; x += step) {
      s.appendChild(svg("text", { x: X(x), y: top + ph + 12, class: "tick", "text-anchor": "middle" }, x));
    }
    for (const m of o.marks || []) s.appendChild(svg("line", { x1: X(m), x2: X(m), y1: top, y2: top + ph, stroke: "#999", "stroke-dasharray": "2 2" }));
    s.appendChild(svg("polyline", { points: xs.map((x, n) => X(x).toFixed(1) + "," + Y(ys[n]).toFixed(1)).join(" "),
      fill: "none", stroke: "#3b4f8f", "stroke-width": 1.5 }));
    xs.forEach((x, n) => s.appendChild(svg("circle", { cx: X(x), cy: Y(ys[n]), r: 2.2, fill: "#3b4f8f" })));
    s.appendChild(svg("text", { x: left + pw / 2, y: h - 4, class: "label", "text-anchor": "middle" }, o.xlabel));
    box.appendChild(el("div", { class: "svg-plot" })).appendChild(s);
  }

  function showError(box, e) { box.replaceChildren(el("p", { class: "error", role: "alert" }, e.message)); }
  function busy(box, text) { box.replaceChildren(el("p", { class: "hint-line" }, text)); }

  // ------------------------------------------------------------------ optimal Pig: maps and one state
  let tables = null;  // the last /api/explorer/pig answer
  const maps = {};
  async function showRules(ev) {
    if (ev) ev.preventDefault();
    const k = +($("rules-form").elements.k.value || 0);
    const p = rulesParams();
    p.set("k", k);
    $("rules-error").textContent = "";
    try {
      tables = await getJSON("/api/explorer/pig?" + p);
    } catch (e) { $("rules-error").textContent = e.message; return; }
    const g = tables.rules.goal;
    $("pig-summary").textContent = `${tables.title}: with optimal play the first player wins ${pct(tables.p_first_player)} of games.`;
    const h = tables.hold_threshold;
    // where optimal play never holds short of the goal (it rolls on to win) the square is black; the
    // colour scale covers the turn totals at which it does hold
    const rollsOn = (i, j) => h[i][j] >= g - i;
    const holds = h.flatMap((row, i) => row.filter((v) => v < g - i));
    maps.boundary = heatmap($("plot-boundary"), h, { lo: 0, hi: holds.length ? Math.max(...holds) : g, color: seqColor,
      fmt: (v) => String(v), special: (i, j) => (rollsOn(i, j) ? "#111" : null),
      label: "Turn total at which optimal play holds, by your score (up) and the opponent's (across)",
      click: (i, j) => ask(i, j, Math.min(h[i][j], g - 1 - i), "boundary") });
    $("winprob-caption").textContent = k === 0 ? "Mover's chance to win at the start of a turn"
      : `Mover's chance to win with a turn total of ${k} (grey: already a win)`;
    maps.winprob = heatmap($("plot-winprob"), tables.p_turn_total, { lo: 0, hi: 1, color: divColor, fmt: pct,
      label: `Mover's chance to win with a turn total of ${k}`, click: (i, j) => ask(i, j, k, "winprob") });
    boundaryTable(h);
    // only the strategies that can play these rules may be chosen (a bot holding at 25 cannot play to 20)
    const fit = new Set(tables.bots.map((b) => b.spec));
    document.querySelectorAll("#eval-form option, #tour-form input[name=specs]").forEach((o) => {
      o.disabled = !fit.has(o.value);
      if (o.disabled && o.checked) o.checked = false;
    });
    for (const sel of document.querySelectorAll("#eval-form select")) {
      if (sel.selectedOptions[0] && sel.selectedOptions[0].disabled) {
        const ok = [...sel.options].find((o) => !o.disabled);
        if (ok) sel.value = ok.value;
      }
    }
    for (const name of ["i", "j", "k"]) $("state-form").elements[name].max = g - 1;
  }
  function boundaryTable(h) {
    const g = h.length, step = niceStep(g, 10), idx = [];
    for (let t = 0; t < g; t += step) idx.push(t);
    const rows = idx.slice().reverse().map((i) => [{ text: "you " + i, header: true }, ...idx.map((j) => ({ text: String(h[i][j]), num: true }))]);
    $("boundary-table").replaceChildren(table(["your score \\ opponent's", ...idx.map(String)], rows, "compact"));
  }
  function ask(i, j, k, from) {
    const f = $("state-form").elements;
    f.i.value = i; f.j.value = j; f.k.value = k;
    const m = maps[from];
    if (m && m.select) m.select(i, j);
    queryState();
  }
  async function queryState(ev) {
    if (ev) ev.preventDefault();
    const out = $("state-out");
    const p = rulesParams();
    for (const [k, v] of new FormData($("state-form")).entries()) p.set(k, v);
    busy(out, "Computing\u2026");
    let d;
    try { d = await getJSON("/api/explorer/pig/state?" + p); } catch (e) { showError(out, e); return; }
    const [i, j, k] = d.state;
    const best = d.best === "roll" ? "rolls" : "holds";
    const lead = el("p", { class: "result-line", id: "state-answer", "data-best": d.best },
      `You have ${i}, the opponent ${j}, and ${k} on this turn: optimal play ${best}. ` +
      `Rolling wins ${pct(d.p_roll)} of the time, holding ${pct(d.p_hold)}.`);
    const note = el("p", { class: "hint-line" }, d.hold_at >= d.rules.goal - i
      ? `At these scores optimal play never holds short of the goal (${d.rules.goal}).`
      : `At these scores optimal play holds once the turn total reaches ${d.hold_at}.`);
    const t = table(["action", "chance to win"], [
      { cls: d.best === "roll" ? "best" : "", cells: ["roll", pcell(d.p_roll)] },
      { cls: d.best === "hold" ? "best" : "", cells: ["hold", pcell(d.p_hold)] }]);
    t.querySelectorAll("td.num")[0].id = "state-p-roll";
    t.querySelectorAll("td.num")[1].id = "state-p-hold";
    out.replaceChildren(lead, t, note);
  }

  // ------------------------------------------------------------------ two strategies, tournament, simultaneous Pig
  async function evaluate(ev) {
    ev.preventDefault();
    const out = $("eval-out");
    const p = rulesParams();
    for (const [k, v] of new FormData($("eval-form")).entries()) p.set(k, v);
    busy(out, "Computing\u2026");
    let d;
    try { d = await getJSON("/api/explorer/evaluate?" + p); } catch (e) { showError(out, e); return; }
    const r = d.result, A = d.names.a, B = d.names.b;
    const rows = [
      ["A moves first", r.a_first, 1 - r.a_first - r.stalemate_a_first, r.stalemate_a_first],
      ["B moves first", 1 - r.b_first - r.stalemate_b_first, r.b_first, r.stalemate_b_first],
      ["first move alternating", r.a_overall, r.b_overall, 1 - r.a_overall - r.b_overall]];
    out.replaceChildren(el("p", { class: "result-line" },
      `${d.title}: ${A} (A) wins ${pct(r.a_overall)} against ${B} (B) when the first move alternates.`));
    out.appendChild(table(["", "A wins: " + A, "B wins: " + B, "never ends"],
      rows.map((x) => [{ text: x[0], header: true }, pcell(x[1]), pcell(x[2]), pcell(Math.max(0, x[3]))]), "eval-table"));
    bars(out, rows.map((x) => x[0]), [{ name: "A: " + A, values: rows.map((x) => x[1]) }, { name: "B: " + B, values: rows.map((x) => x[2]) }],
      "Chances to win of A and B");
  }

  async function tourney(ev) {
    ev.preventDefault();
    const out = $("tour-out");
    const specs = new FormData($("tour-form")).getAll("specs");
    if (specs.length < 2) { showError(out, new Error("Choose at least two strategies.")); return; }
    const p = rulesParams();
    p.set("specs", specs.join(","));
    busy(out, "Playing every pair\u2026");
    let d;
    try { d = await getJSON("/api/explorer/tournament?" + p); } catch (e) { showError(out, e); return; }
    const names = d.strategies.map((s) => d.names[s]);
    out.replaceChildren(el("p", { class: "result-line" },
      `${d.title}: ${d.ranking[0].name} ranks first, winning ${pct(d.ranking[0].mean)} of its games on average.`));
    out.appendChild(el("h3", {}, "Ranking"));
    out.appendChild(table(["rank", "strategy", "win rate against the others", "95% interval", "opponents beaten"],
      d.ranking.map((r) => [String(r.rank), r.name, pcell(r.mean),
        r.interval ? pct(r.interval[0]) + " to " + pct(r.interval[1]) : (d.exact ? "none (exact)" : "\u2013"),
        { text: `${r.beats} of ${names.length - 1}`, num: true }]), "ranking"));
    const m = d.result.matrix;
    out.appendChild(el("h3", {}, "Who beats whom"));
    out.appendChild(el("p", { class: "hint-line" }, "The row's chance to beat the column, first move alternating."));
    out.appendChild(table(["", ...names], m.map((row, a) => [{ text: names[a], header: true },
      ...row.map((v, b) => (a === b ? { text: "\u2013", num: true } : { ...pcell(v), bg: divColor(v) }))]), "compact matrix"));
    const rk = d.ranking;
    const w = 420, bh = 20, left = 170, s = svg("svg", { viewBox: `0 0 ${w} ${rk.length * bh + 10}`, role: "img",
      "aria-label": "Win rate of each strategy against the others" });
    rk.forEach((r, n) => {
      s.appendChild(svg("text", { x: left - 4, y: 5 + n * bh + 13, class: "label", "text-anchor": "end" }, r.name.length > 30 ? r.name.slice(0, 29) + "\u2026" : r.name));
      s.appendChild(svg("rect", { x: left, y: 5 + n * bh + 2, width: (w - left - 50) * r.mean, height: bh - 5, fill: "#3b4f8f" }));
      s.appendChild(svg("text", { x: left + (w - left - 50) * r.mean + 3, y: 5 + n * bh + 13, class: "value" }, pct(r.mean)));
    });
    out.appendChild(el("div", { class: "svg-plot" })).appendChild(s);
  }

  async function simpig(ev) {
    ev.preventDefault();
    const out = $("simpig-out");
    busy(out, "Computing\u2026");
    let d;
    try { d = await getJSON("/api/explorer/simpig-curve?" + formParams($("simpig-form"))); } catch (e) { showError(out, e); return; }
    const xs = d.rows.map((r) => r.n), ys = d.rows.map((r) => r.win_probability);
    const worst = d.rows.reduce((a, b) => (b.win_probability < a.win_probability ? b : a));
    out.replaceChildren(el("p", { class: "result-line" },
      `Simultaneous Pig to ${d.goal}: the best reply wins least against a player who holds at ${worst.n} (${pct(worst.win_probability)}).` +
      (d.local_minima.length ? ` Dips (local minima) at N = ${d.local_minima.join(", ")}.` : "")));
    line(out, xs, ys, { label: "The best reply's chance to win against a player who holds at N", xlabel: "the opponent holds at N",
      fmt: pct, marks: d.local_minima });
    const det = out.appendChild(el("details"));
    det.appendChild(el("summary", {}, "The numbers"));
    det.appendChild(table(["opponent", "best reply's chance to win"], d.rows.map((r) => [r.name, pcell(r.win_probability)]), "compact"));
  }

  // the rules may come in the address (/explorer?goal=30&variant=piglet), so a view can be shared
  const given = new URLSearchParams(location.search);
  for (const name of ["variant", "goal", "sides", "k"]) {
    const v = given.get(name);
    if (v !== null && /^[a-z0-9-]{1,12}$/.test(v)) $("rules-form").elements[name].value = v;
  }
  $("rules-form").addEventListener("submit", showRules);
  $("state-form").addEventListener("submit", queryState);
  if ($("eval-form")) $("eval-form").addEventListener("submit", evaluate);
  if ($("tour-form")) $("tour-form").addEventListener("submit", tourney);
  if ($("simpig-form")) $("simpig-form").addEventListener("submit", simpig);
  showRules().then(() => { document.body.dataset.ready = "1"; });
})();
