// dicelab web lab: Super Six. The server throws the die and keeps the lid.
"use strict";
(function () {
  const { $, pct } = lab;
  let game = null, token = null, busy = false;
  const api = (method, url, body) => lab.api(method, url, body, token);
  // what a throw did, from its public event: the lid before and after, the die, whether the turn ended
  let lid = 0;
  function what(ev) {
    const e = ev.events[0], won = ev.events.some((x) => x.winner === ev.player);
    if (ev.action === "stop") return "stopped";
    let s = e.die === 6 ? "a 6: a stick into the hole" : e.lid > lid ? "a stick into the empty pit" : "the pit was full: stick back, turn over";
    lid = e.lid;
    return won ? s + "; no sticks left!" : s;
  }
  function log(ev) {
    const li = document.createElement("li"); li.className = ev.actor;
    const e = ev.events[0];
    li.textContent = (ev.actor === "human" ? "You " : "Bot ") + (ev.action === "throw" ? "threw " + e.die + ": " : "") + what(ev) +
      (game && game.coach && ev.actor === "human" && ev.p_lost !== null && ev.p_lost !== undefined ? (ev.p_lost > 1e-9 ? " \u2014 gave away " + pct(ev.p_lost) : " \u2014 optimal") : "");
    lab.appendLog(li);
  }
  function render() {
    const h = game.human_seat, over = game.status === "finished";
    $("sticks-human").textContent = game.counts[h]; $("sticks-bot").textContent = game.counts[1 - h];
    $("bot-name").textContent = "(" + game.opponents[0] + ")";
    lid = game.lid;
    $("lid").textContent = game.pits.map((f, n) => (f ? "\u25CF" : "\u25CB") + (n + 1)).join(" ");
    $("throw").disabled = over || busy;
    const free = game.legal_actions.includes("stop");
    $("stop").disabled = over || busy || !free;
    $("status").dataset.state = over ? "finished" : free ? "free" : "forced";
    $("status").textContent = over ? (game.winner === h ? "You win!" : "The bot wins.") :
      free ? "Throw again or stop?" : "Throw (this throw is forced).";
    $("coach-panel").hidden = !game.coach;
    if (game.coach) $("coach-now").innerHTML = game.coach_view ? "P(win) if you <b>throw</b>: <span id='coach-throw'>" +
      pct(lab.coachValue(game.coach_view, "throw")) + "</span> &middot; if you <b>stop</b>: <span id='coach-stop'>" + pct(lab.coachValue(game.coach_view, "stop")) +
      "</span> &middot; best: <b id='coach-best'>" + game.coach_view.best + "</b>" : (over ? "Game over." : "A forced throw: no decision to coach.");
    if (over && game.summary) {
      const s = game.summary;
      $("summary").textContent = "Game summary: " + s.decisions + " decisions, " + s.optimal_decisions + " optimal; total win probability given away " + pct(s.total_lost) + "." +
        (s.worst ? " Worst: " + lab.actionText(s.worst.action) + " (move " + (s.worst.seq + 1) + ") instead of " + lab.actionText(s.worst.optimal) + ", costing " + pct(s.worst.p_lost) + "." : "");
      $("summary").hidden = false;
    } else { $("summary").hidden = true; }
  }
  $("setup-form").addEventListener("submit", async (ev) => {
    ev.preventDefault(); $("setup-error").textContent = "";
    try {
      token = null;
      const r = await api("POST", "/api/games", { game: "supersix", sticks: parseInt($("sticks").value, 10),
        opponent: $("opponent").value, human_first: $("first").value === "human", coach: $("coach").checked });
      token = r.token; game = r.state; sessionStorage.setItem("dicelab-token-" + r.id, r.token);
      history.replaceState(null, "", "#" + r.id);
      $("log").innerHTML = ""; lid = 0; r.events.forEach(log); $("setup").hidden = true; $("board").hidden = false; render();
    } catch (e) { $("setup-error").textContent = e.message; }
  });
  async function move(action) {
    if (busy || !game) return;
    busy = true; $("move-error").textContent = ""; render();
    try {
      const r = await api("POST", "/api/games/" + game.id + "/moves", { action, expected_move: game.version });
      r.events.forEach(log);
      if (game.coach && r.events[0].p_lost !== null && r.events[0].p_lost !== undefined) $("coach-last").textContent = "Your last decision: " + (r.events[0].p_lost > 1e-9 ? "gave away " + pct(r.events[0].p_lost) : "optimal");
      game = await api("GET", "/api/games/" + game.id);
    } catch (e) { $("move-error").textContent = e.message; }
    busy = false; render();
  }
  $("throw").addEventListener("click", () => move("throw"));
  $("stop").addEventListener("click", () => move("stop"));
  $("new-game").addEventListener("click", () => { game = null; token = null; lab.showSetup(); });
  document.body.dataset.ready = "1";
})();
