// dicelab web lab: Super Six. The server throws the die and keeps the lid; the page shows each
// throw and the lid's pits after it, the bot's throws one at a time.
"use strict";
(function () {
  const { $, pct } = lab;
  let game = null, token = null, busy = false;
  let pits = [false, false, false, false, false], lidCount = 0;
  const api = (method, url, body) => lab.api(method, url, body, token);

  function drawLid() {
    const box = $("lid");
    box.textContent = "";
    pits.forEach((full, n) => {
      const d = document.createElement("div");
      d.className = "pit" + (full ? " full" : "");
      d.id = "pit-" + (n + 1);
      d.textContent = n + 1;
      d.title = "pit " + (n + 1) + (full ? ": a stick" : ": empty");
      box.appendChild(d);
    });
    box.setAttribute("aria-label", "The lid: " + pits.map((f, n) => "pit " + (n + 1) + (f ? " filled" : " empty")).join(", "));
  }

  // what one record did, and the lid after it (from the server's count of filled pits): pure
  function outcome(ev, before) {
    const e = ev.events[0] || {};
    const who = ev.actor === "human" ? "You" : lab.seatName(game, ev.player, "Bot");
    const won = ev.events.some((x) => x.winner === ev.player);
    const after = { pits: before.pits.slice(), lid: before.lid };
    let s;
    if (ev.action === "stop") s = who + " stopped";
    else {
      const d = e.die;
      if (d === 6) s = who + " threw 6: a stick into the hole";
      else if (e.lid > before.lid) { after.pits[d - 1] = true; s = who + " threw " + d + ": a stick into pit " + d; }
      else { after.pits[d - 1] = false; s = who + " threw " + d + ": pit " + d + " was full, the stick comes back and the turn is over"; }
      after.lid = e.lid;
    }
    return { text: won ? s + "; no sticks left!" : s, after, die: ev.action === "stop" ? null : e.die, counts: e.counts };
  }
  // show an outcome on the board
  function show(ev, o) {
    const you = ev.actor === "human";
    pits = o.after.pits; lidCount = o.after.lid; drawLid();
    if (o.die) lab.showDice($(you ? "dice-human" : "dice-bot"), [o.die], { owner: you ? "human" : "bot", roll: true,
      label: you ? "your die showing" : "bot's die showing" });
    if (o.counts) { $("sticks-human").textContent = o.counts[game.human_seat]; $("sticks-bot").textContent = o.counts[1 - game.human_seat]; }
  }
  const coachNote = (ev) => (lab.hinted(ev) ? " (after a hint)" : "") + (game.coach && ev.actor === "human" && ev.p_lost !== null && ev.p_lost !== undefined
    ? (ev.p_lost > 1e-9 ? " \u2014 gave away " + pct(ev.p_lost) : " \u2014 the best move") : "");

  // (`next`: the state after them, when known: "your turn" only when it is)
  async function play(records, next) {
    let st = { pits: pits.slice(), lid: lidCount };
    const mine = records.filter((r) => r.actor === "human"), bots = records.filter((r) => r.actor !== "human");
    let last;
    mine.forEach((ev) => { const o = outcome(ev, st); st = o.after; show(ev, o); lab.logLine(o.text + coachNote(ev), "human"); last = o.text; });
    if (!bots.length) { if (last) lab.banner(last, "you"); return; }
    const steps = bots.map((ev) => {
      const o = outcome(ev, st); st = o.after;
      return { text: o.text, show: () => {
        show(ev, o); lab.logLine(o.text, "bot");
        $("p-bot").classList.add("to-move"); $("p-human").classList.remove("to-move");
      } };
    });
    const over = bots.some((ev) => ev.events.some((x) => x.winner !== undefined && x.winner !== null));
    const other = lab.seatName(game, 1 - game.human_seat, "the bot").replace(/^Your f/, "your f");
    await lab.reveal(steps, steps[steps.length - 1].text + (over ? " \u2014 " + other + " wins" : next && !lab.myTurn(next) ? ""
      : " \u2014 your turn"), lab.people(game) ? lab.seatName(game, 1 - game.human_seat) + "\u2019s turn" : undefined, last);
  }

  function render() {
    const h = game.human_seat, over = game.status === "finished";
    $("sticks-human").textContent = game.counts[h]; $("sticks-bot").textContent = game.counts[1 - h];
    $("bot-name").textContent = lab.people(game) ? lab.seatName(game, 1 - h) : lab.botName(game.opponents[0]);
    pits = game.pits.slice(); lidCount = game.lid; drawLid();
    const free = game.legal_actions.includes("stop");
    const off = over || busy || !lab.myTurn(game);  // in a game between people: not while the other moves
    lab.setOff($("throw"), off);
    lab.setOff($("stop"), off || !free);
    lab.setOff($("hint"), off);
    $("p-human").classList.toggle("to-move", !over && !busy && game.to_move.includes(h));
    $("p-bot").classList.remove("to-move");
    $("status").dataset.state = over ? "finished" : free ? "free" : "forced";
    const them = lab.seatName(game, 1 - h, "The bot");
    $("status").textContent = over ? (game.winner === h ? "You win!" : them + " wins.") : busy ? "" :
      !lab.myTurn(game) ? lab.waitingText(game) : free ? "Throw again or stop?" : "Throw (this throw is forced).";
    if (over) lab.banner(game.winner === h ? "You have no sticks left \u2014 you win!" : ($("banner-text").textContent.includes(" wins")
      ? $("banner-text").textContent : them + " wins"), "over");
    $("coach-panel").hidden = !game.coach;
    if (game.coach) $("coach-now").innerHTML = game.coach_view ? "Chance to win if you <b>throw</b>: <span id='coach-throw'>" +
      pct(lab.coachValue(game.coach_view, "throw")) + "</span> &middot; if you <b>stop</b>: <span id='coach-stop'>" + pct(lab.coachValue(game.coach_view, "stop")) +
      "</span> &middot; best: <b id='coach-best'>" + game.coach_view.best + "</b>" : (over ? "Game over." : "A forced throw: no decision to coach.");
    if (over && game.summary) {
      const s = game.summary;
      $("summary").textContent = "Game summary: " + s.decisions + " decisions, " + s.optimal_decisions + " optimal; total win probability given away " + pct(s.total_lost) + "." +
        (s.worst ? " Worst: " + lab.actionText(s.worst.action) + " (move " + (s.worst.seq + 1) + ") instead of " + lab.actionText(s.worst.optimal) + ", costing " + pct(s.worst.p_lost) + "." : "");
      $("summary").hidden = false;
    } else { $("summary").hidden = true; }
    lab.track(game, token);  // My games, and the Review and Rematch buttons once the game is over
  }

  $("setup-form").addEventListener("submit", async (ev) => {
    ev.preventDefault(); $("setup-error").textContent = "";
    try {
      token = null;
      const r = await api("POST", "/api/games", { game: "supersix", sticks: parseInt($("sticks").value, 10),
        opponent: $("opponent").value, human_first: $("first").value === "human", coach: $("coach").checked });
      token = r.token; lab.remember(r);
      game = r.state;
      $("log").textContent = ""; $("coach-last").textContent = "";
      $("dice-human").textContent = ""; $("dice-bot").textContent = "";
      pits = [false, false, false, false, false]; lidCount = 0;
      busy = true; lab.showBoard("throw"); lab.banner("Your turn", "you");
      const after = game;
      game = { ...after, counts: after.counts.map(() => after.rules.sticks), pits: pits.slice(), lid: 0 };
      render();
      await play(r.events);
      game = after; busy = false; render();
    } catch (e) { busy = false; $("setup-error").textContent = e.message; }
  });
  async function move(action) {
    if (busy || !game) return;
    busy = true; $("move-error").textContent = ""; render();
    try {
      const r = await api("POST", "/api/games/" + game.id + "/moves", { action, expected_move: game.version, hint: lab.takeHint() });
      if (game.coach && r.events[0].p_lost !== null && r.events[0].p_lost !== undefined) $("coach-last").textContent = "Your last decision: " + (r.events[0].p_lost > 1e-9 ? "gave away " + pct(r.events[0].p_lost) + " of your chance to win (the best was to " + r.events[0].best + ")" : "the best move");
      await play(r.events, r.state);
      game = await api("GET", "/api/games/" + game.id);
    } catch (e) { $("move-error").textContent = e.message; }
    busy = false; render();
    if (game.status === "finished") $("new-game").focus();
  }
  // a game between people: the other person's throws as they happen, shown as the bot's are
  lab.onRemote(async (u) => {
    await lab.until(() => !busy);
    if (!game || u.state.id !== game.id || u.state.version < game.version) return;
    const records = u.events.filter((r) => r.seq >= game.version);
    busy = true;
    try { await play(records, u.state); } finally { busy = false; }
    game = u.state.status === "finished" ? await api("GET", "/api/games/" + game.id) : u.state;
    render();
  });
  lab.control("throw", () => move("throw"));
  lab.control("stop", () => move("stop"));
  lab.keys({ t: "throw", r: "throw", " ": "throw", s: "stop", h: "stop", "?": lab.hints(() => game, () => token) });
  $("new-game").addEventListener("click", () => { game = null; token = null; lab.showSetup(); });
  document.body.dataset.ready = "1";
  // a reopened game: its moves into the log, replayed from the empty lid
  function logAll(records) {
    let st = { pits: [false, false, false, false, false], lid: 0 };
    records.forEach((ev) => { const o = outcome(ev, st); st = o.after; lab.logLine(o.text + coachNote(ev), ev.actor); });
  }
  lab.resumeGame().then((r) => { if (r && !game) { token = r.token; game = r.game; logAll(game.moves || []); lab.showBoard("throw"); render(); } });
})();
