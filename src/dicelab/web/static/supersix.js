// dicelab web lab: Super Six. The server throws the die and keeps the lid.
"use strict";
(function () {
  const { $, pct } = lab;
  let game = null, token = null, busy = false;
  const api = (method, url, body) => lab.api(method, url, body, token);
  const words = { six: "a 6: a stick into the hole", pit: "a stick into the empty pit", hit: "the pit was full: stick back, turn over", win: "no sticks left!", stop: "stopped" };
  function log(ev) {
    const li = document.createElement("li"); li.className = ev.actor;
    li.textContent = (ev.actor === "human" ? "You " : "Bot ") + (ev.action === "throw" ? "threw " + ev.die + ": " : "") + words[ev.result] +
      (game && game.coach && ev.actor === "human" && ev.p_lost !== null && ev.p_lost !== undefined ? (ev.p_lost > 1e-9 ? " \u2014 gave away " + pct(ev.p_lost) : " \u2014 optimal") : "");
    lab.appendLog(li);
  }
  function render() {
    const h = game.human_seat, over = game.status === "finished";
    $("sticks-human").textContent = game.counts[h]; $("sticks-bot").textContent = game.counts[1 - h];
    $("bot-name").textContent = "(" + game.opponent + ")";
    $("lid").textContent = game.pits.map((f, n) => (f ? "\u25CF" : "\u25CB") + (n + 1)).join(" ");
    $("throw").disabled = over || busy;
    $("stop").disabled = over || busy || game.phase !== "free";
    $("status").dataset.state = over ? "finished" : game.phase;
    $("status").textContent = over ? (game.winner === h ? "You win!" : "The bot wins.") :
      game.phase === "free" ? "Throw again or stop?" : "Throw (this throw is forced).";
    $("coach-panel").hidden = !game.coach;
    if (game.coach) $("coach-now").innerHTML = game.coach_view ? "P(win) if you <b>throw</b>: <span id='coach-throw'>" +
      pct(game.coach_view.p_throw) + "</span> &middot; if you <b>stop</b>: <span id='coach-stop'>" + pct(game.coach_view.p_stop) +
      "</span> &middot; best: <b id='coach-best'>" + game.coach_view.best + "</b>" : (over ? "Game over." : "A forced throw: no decision to coach.");
    if (over && game.summary) {
      const s = game.summary;
      $("summary").textContent = "Game summary: " + s.decisions + " decisions, " + s.optimal_decisions + " optimal; total win probability given away " + pct(s.total_lost) + "." +
        (s.worst ? " Worst: " + s.worst.action + " at lid/you/bot " + s.worst.state.join("/") + " instead of " + s.worst.optimal + ", costing " + pct(s.worst.p_lost) + "." : "");
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
      $("log").innerHTML = ""; r.events.forEach(log); $("setup").hidden = true; $("board").hidden = false; render();
    } catch (e) { $("setup-error").textContent = e.message; }
  });
  async function move(action) {
    if (busy || !game) return;
    busy = true; $("move-error").textContent = ""; render();
    try {
      const r = await api("POST", "/api/games/" + game.id + "/moves", { action, expected_move: game.version });
      r.events.forEach(log);
      if (game.coach && r.events[0].p_lost !== null) $("coach-last").textContent = "Your last decision: " + (r.events[0].p_lost > 1e-9 ? "gave away " + pct(r.events[0].p_lost) : "optimal");
      game = await api("GET", "/api/games/" + game.id);
    } catch (e) { $("move-error").textContent = e.message; }
    busy = false; render();
  }
  $("throw").addEventListener("click", () => move("throw"));
  $("stop").addEventListener("click", () => move("stop"));
  $("new-game").addEventListener("click", () => { game = null; token = null; lab.showSetup(); });
  document.body.dataset.ready = "1";
})();
