// dicelab web lab: simultaneous Pig. The server rolls every die; the page only sends targets.
"use strict";
(function () {
  const $ = lab.$;
  let game = null, token = null, busy = false;
  const pct = (p) => lab.pct(p, 2);
  const api = (method, url, body) => lab.api(method, url, body, token);
  function name(seat) { return seat === 0 ? "You" : "Bot " + seat + " (" + game.opponents[seat - 1] + ")"; }
  function render() {
    const t = $("scores");
    t.innerHTML = "<tr><th>player</th><th>score</th></tr>";
    game.scores.forEach((s, n) => {
      const tr = document.createElement("tr");
      tr.innerHTML = "<td></td><td id='score-" + n + "'></td>";
      tr.children[0].textContent = name(n); tr.children[1].textContent = s;
      t.appendChild(tr);
    });
    const over = game.status === "finished";
    $("go").disabled = over || busy;
    if (game.legal_actions.length) {  // the legal targets are 1 .. goal - your score
      const top = game.legal_actions[game.legal_actions.length - 1].target;
      $("target").max = top;
      if (parseInt($("target").value, 10) > top) $("target").value = top;
    }
    $("status").dataset.state = over ? "finished" : "playing";
    $("status").textContent = over ? (game.returns[0] > 0 ? (game.returns[0] < 1 ? "You share the win!" : "You win!") : "A bot wins.") : "Pick your target.";
    $("coach-panel").hidden = !game.coach;
    if (game.coach && game.coach_view) {
      const c = game.coach_view, k = parseInt($("target").value, 10);
      const mine = lab.coachValue(c, { target: k });
      let s = "Best target now: <b id='coach-best'>" + c.best.target + "</b> (P(win) " + pct(lab.coachValue(c, c.best)) + ")";
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
  }
  function log(events) {
    const li = document.createElement("li");
    li.textContent = events.map((r) => {
      const e = r.events[0];
      return name(r.player) + ": target " + e.target + ", rolled " + e.faces.join(" ") + (e.total === 0 ? " (pig!)" : " = " + e.total);
    }).join("; ");
    lab.appendLog(li);
    const me = events.find((r) => r.actor === "human");
    if (game && game.coach && me && me.p_lost !== null && me.p_lost !== undefined)
      $("coach-last").textContent = "Your last target: " + (me.p_lost > 1e-9 ? "gave away " + pct(me.p_lost) + " (best was " + lab.actionText(me.best) + ")" : "optimal");
  }
  $("setup-form").addEventListener("submit", async (ev) => {
    ev.preventDefault(); $("setup-error").textContent = "";
    try {
      token = null;
      const r = await api("POST", "/api/games", { game: "simpig", goal: parseInt($("goal").value, 10),
        players: parseInt($("players").value, 10), opponent: $("opponent").value, coach: $("coach").checked });
      token = r.token; game = r.state; sessionStorage.setItem("dicelab-token-" + r.id, r.token);
      history.replaceState(null, "", "#" + r.id);
      $("log").innerHTML = ""; $("setup").hidden = true; $("board").hidden = false; render();
    } catch (e) { $("setup-error").textContent = e.message; }
  });
  $("target").addEventListener("input", () => game && render());
  $("go").addEventListener("click", async () => {
    if (busy || !game) return;
    busy = true; $("move-error").textContent = ""; render();
    try {
      const r = await api("POST", "/api/games/" + game.id + "/moves",
        { action: "target", k: parseInt($("target").value, 10), expected_move: game.version });
      game = await api("GET", "/api/games/" + game.id);
      log(r.events);
    } catch (e) { $("move-error").textContent = e.message; }
    busy = false; render();
  });
  $("new-game").addEventListener("click", () => { game = null; token = null; lab.showSetup(); });
  document.body.dataset.ready = "1";
})();
