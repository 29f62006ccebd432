// dicelab web lab: simultaneous Pig. The server rolls every die; the page only sends targets and
// then shows each player's rolls of the turn, one player at a time.
"use strict";
(function () {
  const { $, pct } = lab;
  let game = null, token = null, busy = false;
  let rows = {};  // seat -> {target, faces, total} of the last turn shown
  const api = (method, url, body) => lab.api(method, url, body, token);
  const name = (seat) => (lab.people(game) ? lab.seatName(game, seat) : seat === game.human_seat ? "You" : "Bot " + seat + " (" + lab.botName(game.opponents[seat < game.human_seat ? seat : seat - 1]) + ")");

  function rowText(seat, e) {
    return name(seat) + ": target " + e.target + ", rolled " + e.faces.join(" ") +
      (e.total === 0 ? " \u2014 a 1, nothing banked" : " \u2014 banked " + e.total);
  }

  function table(scores) {
    const t = $("scores");
    t.textContent = "";
    const head = t.insertRow();
    ["Player", "Score", "Target", "This turn"].forEach((h) => {
      const th = document.createElement("th"); th.scope = "col"; th.textContent = h; head.appendChild(th);
    });
    scores.forEach((sc, n) => {
      const tr = t.insertRow();
      tr.id = "row-" + n;
      tr.className = n === game.human_seat ? "you" : "bot";
      const cells = ["", sc, "", ""].map((v) => { const td = tr.insertCell(); td.textContent = v; return td; });
      cells[0].textContent = lab.people(game) ? lab.seatName(game, n) : n === game.human_seat ? "You" : "Bot " + n;
      const seat = lab.people(game) ? game.seats[n] : null;
      if (n !== game.human_seat && (!seat || seat.kind === "bot")) {
        const small = document.createElement("small");
        small.textContent = lab.botName(seat ? seat.bot : game.opponents[n < game.human_seat ? n : n - 1]);
        cells[0].append(document.createElement("br"), small);
      }
      cells[1].id = "score-" + n;
      const r = rows[n];
      if (seat && seat.kind !== "bot" && seat.chosen && game.status === "playing") {  // a secret choice: only yours shows
        cells[2].textContent = n === game.human_seat && game.your_choice ? lab.actionText(game.your_choice) + " (secret)" : "chosen";
      } else if (r) {
        cells[2].textContent = r.target;
        const box = document.createElement("div"); box.className = "tray";
        lab.showDice(box, r.faces, { owner: n === game.human_seat ? "human" : "bot", small: true, roll: r.fresh,
          label: (n === game.human_seat ? "your" : "bot " + n + "'s") + " die showing" });
        r.fresh = false;
        const sum = document.createElement("span");
        sum.className = "banked";
        sum.textContent = r.total === 0 ? "lost" : "= " + r.total;
        box.appendChild(sum);
        cells[3].appendChild(box);
      }
    });
  }

  function render() {
    table(game.scores);
    const over = game.status === "finished";
    const off = over || busy || !lab.myTurn(game);  // between people: not once you have chosen
    lab.setOff($("go"), off);
    lab.setOff($("hint"), off);
    if (game.legal_actions.length) {  // the legal targets are 1 .. goal - your score
      const top = game.legal_actions[game.legal_actions.length - 1].target;
      $("target").max = top;
      if (parseInt($("target").value, 10) > top) $("target").value = top;
    }
    $("status").dataset.state = over ? "finished" : "playing";
    $("status").textContent = over ? (game.returns[game.human_seat] > 0 ? (game.returns[game.human_seat] < 1 ? "You share the win!" : "You win!")
      : lab.people(game) ? name(game.winner) + " wins." : "A bot wins.") : busy ? "" : lab.myTurn(game) ? "Pick your target." : lab.waitingText(game);
    $("coach-panel").hidden = !game.coach;
    if (game.coach && game.coach_view) {
      const c = game.coach_view, k = parseInt($("target").value, 10);
      const mine = lab.coachValue(c, { target: k });
      let s = "Best target now: <b id='coach-best'>" + c.best.target + "</b> (chance to win " + pct(lab.coachValue(c, c.best)) + ")";
      if (mine !== null) s += "; your target " + k + ": <span id='coach-mine'>" + pct(mine) + "</span>";
      $("coach-now").innerHTML = s;
    } else if (game.coach) { $("coach-now").textContent = over ? "Game over." : ""; }
    if (over && game.summary) {
      const s = game.summary;
      $("summary").textContent = "Game summary: " + s.decisions + " targets, " + s.optimal_decisions +
        " optimal; total win probability given away " + pct(s.total_lost) + "." +
        (s.worst ? " Worst: " + lab.actionText(s.worst.action) + " (move " + (s.worst.seq + 1) + ") instead of " + lab.actionText(s.worst.optimal) + ", costing " + pct(s.worst.p_lost) + "." : "");
      $("summary").hidden = false;
    } else { $("summary").hidden = !over; if (over) $("summary").textContent = "Final scores: " + game.scores.join(" / "); }
    if (over) lab.banner($("status").textContent, "over");
    lab.track(game, token);  // My games, and the Review and Rematch buttons once the game is over
  }

  // one turn's records: every player's rolls, shown one player at a time
  async function play(records, scoresBefore) {
    const shown = scoresBefore.slice();
    let endScores = null;
    rows = {};
    const steps = records.map((r) => {
      const e = r.events.find((x) => x.faces) || r.events[0];
      const common = r.events.find((x) => x.scores && x.seat === undefined);
      if (common) endScores = common.scores;
      return { text: rowText(r.player, e), show: () => {
        rows[r.player] = { target: e.target, faces: e.faces, total: e.total, fresh: true };
        if (common) common.scores.forEach((v, n) => { shown[n] = v; });
        table(shown);
        lab.logLine(rowText(r.player, e) + (lab.hinted(r) ? " (after a hint)" : ""), r.actor);
      } };
    });
    const mine = records.find((r) => r.actor === "human");
    const e = mine ? mine.events.find((x) => x.faces) : null;
    let final = e ? (e.total === 0 ? "You rolled a 1 and banked nothing" : "You banked " + e.total) : "Turn over";
    if (endScores) final += "; scores " + endScores.join(" / ");
    await lab.reveal(steps, final + " \u2014 your turn", "Everybody rolls");
  }

  function log(events) {
    const me = events.find((r) => r.actor === "human");
    if (game && game.coach && me && me.p_lost !== null && me.p_lost !== undefined)
      $("coach-last").textContent = "Your last target: " + (me.p_lost > 1e-9 ? "gave away " + pct(me.p_lost) + " (best was " + me.best.target + ")" : "optimal");
  }

  $("setup-form").addEventListener("submit", async (ev) => {
    ev.preventDefault(); $("setup-error").textContent = "";
    try {
      token = null;
      const r = await api("POST", "/api/games", { game: "simpig", goal: parseInt($("goal").value, 10),
        players: parseInt($("players").value, 10), opponent: $("opponent").value, coach: $("coach").checked });
      token = r.token; game = r.state; lab.remember(r);
      rows = {}; $("log").textContent = ""; $("coach-last").textContent = "";
      lab.showBoard("target"); lab.banner("Your turn: pick a target", "you"); render();
    } catch (e) { $("setup-error").textContent = e.message; }
  });
  $("target").addEventListener("input", () => game && !busy && render());
  // bots that aim for a fixed turn total cannot play to a smaller goal: offered only where they can
  function fitBots() {
    const goal = parseInt($("goal").value, 10), sel = $("opponent");
    [...sel.options].forEach((o) => {
      const m = /hold:(\d+)/.exec(o.value);
      o.disabled = !!(m && goal >= 1 && parseInt(m[1], 10) > goal);
    });
    if (sel.options[sel.selectedIndex] && sel.options[sel.selectedIndex].disabled) {
      const ok = [...sel.options].find((o) => !o.disabled);
      if (ok) { sel.value = ok.value; sel.dispatchEvent(new Event("change")); }
    }
  }
  $("goal").addEventListener("input", fitBots);
  fitBots();

  async function go() {
    if (busy || !game || game.status !== "playing") return;
    const k = parseInt($("target").value, 10), top = parseInt($("target").max, 10);
    if (!(k >= 1) || (top && k > top)) {
      $("move-error").textContent = top ? "Pick a target from 1 to " + top + "." : "Pick a target of at least 1.";
      return;
    }
    busy = true; $("move-error").textContent = ""; render();
    try {
      const before = game.scores.slice();
      const r = await api("POST", "/api/games/" + game.id + "/moves", { action: "target", k, expected_move: game.version, hint: lab.takeHint() });
      log(r.events);
      if (r.events.length) await play(r.events, before);
      game = r.events.length ? await api("GET", "/api/games/" + game.id) : r.state;  // none: your choice waits, secret
      if (!r.events.length) lab.banner(lab.waitingText(game), "bot");
    } catch (e) { $("move-error").textContent = e.message; }
    busy = false; render();
    if (game.status === "finished") $("new-game").focus();
  }
  // a game between people: the turn is played when the last person has chosen (lab.onRemote)
  lab.onRemote(async (u) => {
    await lab.until(() => !busy);
    if (!game || u.state.id !== game.id || u.state.version < game.version) return;
    const records = u.events.filter((r) => r.seq >= game.version);
    busy = true;
    try {
      if (records.length) { log(records); await play(records, game.scores.slice()); }
      game = records.length ? await api("GET", "/api/games/" + game.id) : u.state;
    } catch (e) { game = u.state; }
    busy = false;
    render();
  });
  $("target-form").addEventListener("submit", (ev) => { ev.preventDefault(); if (!lab.isOff($("go"))) go(); else lab.skip(); });
  lab.keys({ r: go, " ": go, "?": lab.hints(() => game, () => token) });
  $("new-game").addEventListener("click", () => { game = null; token = null; lab.showSetup(); });
  document.body.dataset.ready = "1";
  // a reopened game: every turn's rows into the log
  function logAll(records) {
    records.forEach((r) => {
      const e = r.events.find((x) => x.faces) || r.events[0];
      if (e && Array.isArray(e.faces)) lab.logLine(rowText(r.player, e) + (lab.hinted(r) ? " (after a hint)" : ""), r.actor);
    });
  }
  lab.resumeGame().then((r) => { if (r && !game) { token = r.token; game = r.game; rows = {}; logAll(game.moves || []); lab.showBoard("target"); render(); } });
})();
