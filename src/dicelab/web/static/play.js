// dicelab web lab: the page of any game without its own page. It knows no rules: it shows what
// the server says your seat sees (observe), offers the legal actions the server lists as buttons,
// and sends the one you click. The server throws every die and plays every bot.
"use strict";
(function () {
  const { $, pct } = lab;
  const form = $("setup-form");
  const name = form.dataset.game;
  const META = ["id", "game", "title", "rules", "opponents", "human_seat", "coach", "status", "version", "winner",
    "to_move", "legal_actions", "coach_view", "returns", "seed", "summary", "moves", "seat", "share_id", "last"];
  let game = null, token = null, busy = false;
  const api = (method, url, body) => lab.api(method, url, body, token);
  const seatName = (s) => (s === game.human_seat ? "You" : (game.opponents.length > 1 ? "Bot " + s : "Bot"));
  const words = (k) => k.replace(/_/g, " ");
  // a value in words: one number per seat as "You 53 · Bot 101", a list as its items, no raw JSON
  function show(v) {
    if (v === null || v === undefined) return "\u2013";
    if (Array.isArray(v) && game && v.length === game.opponents.length + 1 && v.every((x) => typeof x !== "object"))
      return v.map((x, s) => seatName(s) + " " + x).join(" \u00b7 ");
    if (Array.isArray(v)) return v.map(show).join(", ");
    if (typeof v === "object") return Object.entries(v).map(([k, x]) => words(k) + " " + show(x)).join(", ");
    return typeof v === "boolean" ? (v ? "yes" : "no") : String(v);
  }
  function eventText(e) {
    if (e.winner !== undefined) return e.winner === null ? "" : e.winner === game.human_seat ? "you win" : seatName(e.winner).toLowerCase() + " wins";
    return Object.entries(e).filter(([k]) => k !== "seat" && k !== "faces").map(([k, v]) => words(k) + " " + show(v)).join(", ");
  }
  function recText(rec) {
    let s = seatName(rec.player) + ": " + lab.actionText(rec.action);
    const faces = (rec.events || []).find((e) => Array.isArray(e.faces));
    if (faces) s += ", rolled " + faces.faces.join(" ");
    const rest = (rec.events || []).filter((e) => !e.hint).map(eventText).filter((t) => t);
    if (rest.length) s += " \u2192 " + rest.join("; ");
    return s;
  }
  // a record's dice into its owner's tray
  function showRoll(rec, animate) {
    const e = (rec.events || []).find((x) => Array.isArray(x.faces));
    if (!e) return;
    const you = rec.player === game.human_seat;
    lab.showDice($(you ? "dice-human" : "dice-bot"), e.faces, { owner: you ? "human" : "bot", roll: animate,
      small: e.faces.length > 4, label: you ? "your die showing" : "bot's die showing" });
  }

  function log(rec, animate) {
    let s = recText(rec) + (lab.hinted(rec) ? " (after a hint)" : "");
    if (game && game.coach && rec.actor === "human" && rec.p_lost !== null && rec.p_lost !== undefined)
      s += rec.p_lost > 1e-9 ? " \u2014 gave away " + pct(rec.p_lost) : " \u2014 best";
    lab.logLine(s, rec.actor);
    showRoll(rec, animate);
  }

  // the records of one answer: yours at once, the bots' one at a time
  async function play(records, over) {
    const mine = records.filter((r) => r.actor === "human"), bots = records.filter((r) => r.actor !== "human");
    let last;
    mine.forEach((r) => { log(r, true); last = recText(r); });
    if (!bots.length) { if (last) lab.banner(last, "you"); return; }
    const steps = bots.map((r) => ({ text: recText(r), show: () => log(r, true) }));
    await lab.reveal(steps, steps[steps.length - 1].text + (over ? "" : " \u2014 your turn"), undefined, last);
  }

  function render() {
    const over = game.status !== "playing";
    const t = $("view");
    t.innerHTML = "";
    Object.entries(game).filter(([k]) => !META.includes(k)).forEach(([k, v]) => {
      const tr = document.createElement("tr");
      const th = document.createElement("th"), td = document.createElement("td");
      th.textContent = words(k); td.textContent = show(v); td.id = "view-" + k;
      tr.append(th, td); t.appendChild(tr);
    });
    const acts = $("actions");
    const focused = document.activeElement && document.activeElement.id && acts.contains(document.activeElement) ? document.activeElement.id : null;
    acts.innerHTML = "";
    game.legal_actions.forEach((a, n) => {
      const b = document.createElement("button");
      b.id = "action-" + n;
      b.dataset.action = JSON.stringify(a);
      const v = game.coach ? lab.coachValue(game.coach_view, a) : null;
      b.textContent = lab.actionText(a) + (v !== null ? " (" + pct(v) + ")" : "");
      b.type = "button";
      if (n > 0) b.className = "secondary";
      if (n < 10) b.setAttribute("aria-keyshortcuts", String((n + 1) % 10));
      lab.setOff(b, busy);
      b.addEventListener("click", () => { if (!lab.isOff(b)) move(a); });
      acts.appendChild(b);
    });
    if (focused && $(focused)) $(focused).focus();
    $("bot-name").textContent = game.opponents.map(lab.botName).join(", ");
    lab.setOff($("hint"), over || busy);
    $("status").dataset.state = over ? "finished" : "playing";
    $("status").textContent = over ? (game.status === "finished"
      ? (game.returns && game.returns[game.human_seat] === 1 ? "You win!" : game.returns && game.returns[game.human_seat] > 0
        ? "You share the win." : game.opponents.length > 1 ? "A bot wins." : "The bot wins.") : "This game is closed.") : "Your move.";
    $("coach-panel").hidden = !game.coach;
    if (game.coach) {
      const c = game.coach_view;
      $("coach-now").textContent = c ? (c.kind || "value") + (c.best ? "; best: " + lab.actionText(c.best) : "") : (over ? "Game over." : "");
      if (c && c.best) $("coach-now").dataset.best = JSON.stringify(c.best);
    }
    if (over && game.summary) {
      const s = game.summary;
      $("summary").textContent = "Game summary: " + s.decisions + " decisions, " + s.optimal_decisions +
        " best; total given away " + pct(s.total_lost) + ".";
      $("summary").hidden = false;
    } else { $("summary").hidden = true; }
    lab.track(game, token);  // My games, and the Review and Rematch buttons once the game is over
  }

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    $("setup-error").textContent = "";
    const rules = {};
    form.querySelectorAll(".rule").forEach((el) => {
      if (el.value === "") return;
      rules[el.dataset.rule] = el.dataset.kind === "number" ? parseInt(el.value, 10) : el.value;
    });
    try {
      token = null;
      const r = await api("POST", "/api/games", { game: name, rules, opponent: $("opponent").value,
        human_first: $("first").value === "human", coach: $("coach").checked });
      token = r.token; game = r.state;
      lab.remember(r);
      $("log").innerHTML = ""; $("coach-last").textContent = "";
      $("dice-human").textContent = ""; $("dice-bot").textContent = "";
      busy = true; lab.showBoard(); lab.banner("Your turn", "you"); render();
      if ($("action-0")) $("action-0").focus();
      await play(r.events, game.status !== "playing");
      busy = false; render();
    } catch (e) { busy = false; $("setup-error").textContent = e.message; }
  });

  async function move(action) {
    if (busy || !game) return;
    busy = true; $("move-error").textContent = ""; render();
    try {
      const r = await api("POST", "/api/games/" + game.id + "/moves", { action, expected_move: game.version, hint: lab.takeHint() });
      const mine = r.events.find((x) => x.actor === "human");
      if (game.coach && mine && mine.p_lost !== null && mine.p_lost !== undefined)
        $("coach-last").textContent = "Your last move: " + (mine.p_lost > 1e-9 ? "gave away " + pct(mine.p_lost) + " (the best was " + lab.actionText(mine.best) + ")" : "the best");
      await play(r.events, r.state.status !== "playing");
      game = r.state;
      if (game.status !== "playing") game = await api("GET", "/api/games/" + game.id);
    } catch (e) {
      $("move-error").textContent = e.message;
      try { game = await api("GET", "/api/games/" + game.id); } catch (e2) { /* keep the old view */ }
    }
    busy = false; render();
    if (game.status !== "playing") { lab.banner($("status").textContent, "over"); $("new-game").focus(); }
  }

  async function resume() {
    const r = await lab.resumeGame();
    if (!r || game) return;
    token = r.token; game = r.game;
    (game.moves || []).forEach((m) => log(m, false));
    lab.showBoard(); render();
    if ($("action-0")) $("action-0").focus();
  }

  $("new-game").addEventListener("click", () => { game = null; token = null; lab.showSetup(); });
  // the number keys: 1 is the first action, ..., 0 the tenth
  const digits = {};
  "1234567890".split("").forEach((d, n) => { digits[d] = () => { const b = $("action-" + n); if (b && !lab.isOff(b)) { b.focus(); b.click(); } }; });
  digits["?"] = lab.hints(() => game, () => token);
  lab.keys(digits);
  document.body.dataset.ready = "1";
  resume();
})();
