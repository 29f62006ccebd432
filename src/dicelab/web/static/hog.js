// dicelab web lab: the Hog page. Each turn is one roll of as many dice as you choose; the server
// rolls them and plays the bot. The page only shows what the server answered.
"use strict";
(function () {
  const { $, pct } = lab;
  const form = $("setup-form");
  let game = null, token = null, busy = false;
  const api = (method, url, body) => lab.api(method, url, body, token);
  const diceWords = (n) => n + (n === 1 ? " die" : " dice");
  const bot = () => 1 - game.human_seat;

  // one move record: {player, actor, action: {dice: n}, events: [{dice, faces, points, scores}, {winner}]}
  function describe(rec) {
    const e = (rec.events || []).find((x) => Array.isArray(x.faces)) || {};
    const you = rec.actor === "human";
    const won = (rec.events || []).some((x) => x.winner === rec.player);
    let s = (you ? "You" : lab.seatName(game, rec.player, "Bot")) + " rolled " + diceWords(rec.action.dice) + (e.faces ? ": " + e.faces.join(" ") : "");
    if (e.points === 0) s += " \u2014 a 1, scores nothing";
    else if (e.points !== undefined) s += " \u2014 " + e.points + " points" + (e.scores ? " (score " + e.scores[rec.player] + ")" : "");
    if (won) s += " and reached the goal";
    return s;
  }
  const coachNote = (rec) => (lab.hinted(rec) ? " (after a hint)" : "") +
    (game.coach && rec.actor === "human" && typeof rec.p_lost === "number"
      ? (rec.p_lost > 1e-9 ? " \u2014 gave away " + pct(rec.p_lost) + " of your chance to win" : " \u2014 the best move") : "");

  // a record on the board: its dice into its owner's tray, the scores after it
  function show(rec, animate) {
    const e = (rec.events || []).find((x) => Array.isArray(x.faces));
    if (!e) return;
    const you = rec.actor === "human";
    lab.showDice($(you ? "dice-human" : "dice-bot"), e.faces, { owner: you ? "human" : "bot", roll: animate,
      small: e.faces.length > 5, label: you ? "your die showing" : "bot's die showing" });
    if (e.scores) { $("score-human").textContent = e.scores[game.human_seat]; $("score-bot").textContent = e.scores[bot()]; }
  }

  // the records of one answer: yours at once (held in the banner), the bot's under "Bot's turn"
  // (`next`: the state after them, when they came from the other person through lab.onRemote)
  async function play(records, over, next) {
    const mine = records.filter((r) => r.actor === "human"), bots = records.filter((r) => r.actor !== "human");
    let last;
    mine.forEach((r) => { last = describe(r); lab.logLine(last + coachNote(r), "human"); show(r, true); });
    const steps = bots.map((r) => ({ text: describe(r), show: () => { lab.logLine(describe(r), "bot"); show(r, true); } }));
    const end = steps.length ? steps[steps.length - 1].text : last;
    const other = lab.people(game) ? lab.seatName(game, bot()) + "\u2019s turn" : undefined;
    await lab.reveal(steps, end + (over || (next && !lab.myTurn(next)) ? "" : " \u2014 your turn"), other, last);
  }

  function render() {
    const over = game.status !== "playing", h = game.human_seat;
    $("score-human").textContent = game.scores[h];
    $("score-bot").textContent = game.scores[bot()];
    $("goal-shown").textContent = game.goal;
    $("bot-name").textContent = lab.people(game) ? lab.seatName(game, bot()) : lab.botName(game.opponents[0]);
    const off = over || busy || !lab.myTurn(game);  // in a game between people: not while the other moves
    const acts = $("actions");
    const focused = document.activeElement && acts.contains(document.activeElement) ? document.activeElement.id : null;
    acts.textContent = "";
    const n = game.max_dice;
    for (let k = 1; k <= n; k++) {
      const b = document.createElement("button");
      b.type = "button"; b.id = "action-" + (k - 1); b.className = k === 1 ? "" : "secondary";
      b.dataset.dice = String(k);
      const v = game.coach && !busy ? lab.coachValue(game.coach_view, { dice: k }) : null;
      b.textContent = "Roll " + diceWords(k) + (v !== null ? " (" + pct(v) + ")" : "");
      if (k <= 10) b.setAttribute("aria-keyshortcuts", String(k % 10));
      lab.setOff(b, off);
      b.addEventListener("click", () => { if (!lab.isOff(b)) move(k); });
      acts.appendChild(b);
    }
    if (focused && $(focused)) $(focused).focus();
    lab.setOff($("hint"), off);
    $("p-human").classList.toggle("to-move", !over && !busy && game.to_move.includes(h));
    $("status").dataset.state = over ? "finished" : "playing";
    const won = game.winner === h;
    const them = lab.seatName(game, bot(), "The bot");
    $("status").textContent = over ? (won ? "You win!" : them + " wins.") : busy ? "" :
      lab.myTurn(game) ? "Your move: how many dice?" : lab.waitingText(game);
    if (over) lab.banner(won ? "You reached the goal \u2014 you win!" : them + " reached the goal \u2014 " +
      them.replace(/^Your f/, "your f").replace(/^The b/, "the b") + " wins.", "over");
    $("coach-panel").hidden = !game.coach;
    if (game.coach) {
      const c = game.coach_view;
      $("coach-now").textContent = over ? "Game over." : busy || !c ? "The coach gives its numbers when it is your move."
        : "Your chance to win with each number of dice is on its button; the best now: " + diceWords(c.best.dice) +
          " (" + pct(lab.coachValue(c, c.best)) + ").";
    }
    if (over && game.summary) {
      const s = game.summary;
      $("summary").textContent = "Game summary: " + s.decisions + " decisions, " + s.optimal_decisions +
        " of them the best move; chance to win given away in all: " + pct(s.total_lost) + ".";
      $("summary").hidden = false;
    } else { $("summary").hidden = true; }
    lab.track(game, token);  // My games, and the Review and Rematch buttons once the game is over
  }

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    $("setup-error").textContent = "";
    const rules = {};
    form.querySelectorAll(".rule").forEach((el) => { if (el.value !== "") rules[el.dataset.rule] = parseInt(el.value, 10); });
    try {
      token = null;
      const r = await api("POST", "/api/games", { game: form.dataset.game, rules, opponent: $("opponent").value,
        human_first: $("first").value === "human", coach: $("coach").checked });
      token = r.token; game = r.state;
      lab.remember(r);
      $("log").textContent = ""; $("coach-last").textContent = "";
      $("dice-human").textContent = ""; $("dice-bot").textContent = "";
      busy = true; lab.showBoard(); lab.banner("Your turn", "you"); render();
      if ($("action-0")) $("action-0").focus();
      await play(r.events, game.status !== "playing");
      busy = false; render();
    } catch (e) { busy = false; $("setup-error").textContent = e.message; }
  });

  async function move(k) {
    if (busy || !game) return;
    busy = true; $("move-error").textContent = ""; render();
    try {
      const r = await api("POST", "/api/games/" + game.id + "/moves", { action: { dice: k }, expected_move: game.version, hint: lab.takeHint() });
      const mine = r.events.find((x) => x.actor === "human");
      if (game.coach && mine && typeof mine.p_lost === "number")
        $("coach-last").textContent = "Your last roll: " + (mine.p_lost > 1e-9 ? "gave away " + pct(mine.p_lost) +
          " of your chance to win (the best was " + diceWords(mine.best.dice) + ")" : "the best move");
      await play(r.events, r.state.status !== "playing", r.state);
      game = r.state;
      if (game.status !== "playing") game = await api("GET", "/api/games/" + game.id);
    } catch (e) {
      $("move-error").textContent = e.message;
      try { game = await api("GET", "/api/games/" + game.id); } catch (e2) { /* keep the old view */ }
    }
    busy = false; render();
    if (game.status !== "playing") $("new-game").focus();
  }

  // a game between people: the other person's rolls as they happen, shown as the bot's are
  lab.onRemote(async (u) => {
    await lab.until(() => !busy);
    if (!game || u.state.id !== game.id || u.state.version < game.version) return;
    const records = u.events.filter((r) => r.seq >= game.version);
    busy = true;
    try { await play(records, u.state.status !== "playing", u.state); } finally { busy = false; }
    game = u.state.status === "finished" ? await api("GET", "/api/games/" + game.id) : u.state;
    render();
  });

  $("new-game").addEventListener("click", () => { game = null; token = null; lab.showSetup(); });
  const digits = {};
  "1234567890".split("").forEach((d, n) => { digits[d] = () => { const b = $("action-" + n); if (b && !lab.isOff(b)) { b.focus(); b.click(); } }; });
  digits["?"] = lab.hints(() => game, () => token);
  lab.keys(digits);
  document.body.dataset.ready = "1";
  lab.resumeGame().then((r) => {
    if (!r || game) return;
    token = r.token; game = r.game;
    (game.moves || []).forEach((m) => { lab.logLine(describe(m) + coachNote(m), m.actor); show(m, false); });
    lab.showBoard(); render();
    if ($("action-0")) $("action-0").focus();
  });
})();
