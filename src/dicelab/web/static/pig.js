// dicelab web lab: the Pig page. Talks to the JSON API; never rolls dice itself.
"use strict";
(function () {
  const { $, pct } = lab;
  const store = window.sessionStorage;
  let game = null;   // the public state from the server
  let token = null;
  let busy = false;

  const api = (method, url, body) => lab.api(method, url, body, token);

  function faceText(faces) {
    if (!faces) return "";
    if (game.rules.variant === "piglet") return faces.map((f) => (f ? "heads" : "tails")).join(" ");
    const pips = ["", "\u2680", "\u2681", "\u2682", "\u2683", "\u2684", "\u2685"];
    return faces.map((f) => (game.rules.sides === 6 ? pips[f] + " " : "") + f).join("  ");
  }

  // one action record of the API: {seq, player, actor, action, events: [the public events], p_lost}
  function describe(ev) {
    const who = ev.actor === "human" ? "You" : "Bot";
    const e = (ev.events || [])[0] || {};
    const won = (ev.events || []).some((x) => x.winner === ev.player);
    let s = who + " " + (ev.action === "roll" ? "rolled " + faceText(e.faces) : "held");
    if (e.result === "bust") s += ": pig! turn total lost";
    else if (e.result === "reset") s += ": two ones! banked score reset to 0";
    else if (won) s += ": reached the goal";
    if (ev.action === "hold" && e.scores) s += " (score now " + e.scores[ev.player] + ")";
    if (game.coach && ev.actor === "human" && ev.p_lost !== null && ev.p_lost !== undefined)
      s += ev.p_lost > 1e-9 ? " \u2014 gave away " + pct(ev.p_lost) : " \u2014 optimal";
    return s;
  }

  function addLog(ev) {
    const li = document.createElement("li");
    li.className = ev.actor;
    li.textContent = describe(ev);
    lab.appendLog(li);  // keeps the newest move in view
    const e = (ev.events || [])[0] || {};
    if (e.faces) $("dice").textContent = faceText(e.faces);
  }

  function render() {
    const h = game.human_seat, b = 1 - h;
    $("score-human").textContent = game.scores[h];
    $("score-bot").textContent = game.scores[b];
    $("turn-total").textContent = game.turn_total;
    $("goal-shown").textContent = game.rules.goal;
    $("bot-name").textContent = "(" + game.opponents[0] + ")";
    const over = game.status === "finished";
    $("roll").disabled = over || busy;
    $("hold").disabled = over || busy;
    $("p-human").classList.toggle("to-move", !over && game.to_move.includes(h));
    $("status").textContent = over ? (game.winner === h ? "You win!" : "The bot wins.") : "Your move.";
    $("status").dataset.state = over ? "finished" : "playing";
    $("coach-panel").hidden = !game.coach;
    if (game.coach && game.coach_view) {
      const c = game.coach_view;
      $("coach-now").innerHTML = "";
      const t = document.createElement("div");
      t.innerHTML = "P(win) if you <b>roll</b>: <span id='coach-roll'>" + pct(lab.coachValue(c, "roll")) +
        "</span> &middot; if you <b>hold</b>: <span id='coach-hold'>" + pct(lab.coachValue(c, "hold")) +
        "</span> &middot; best: <b id='coach-best'>" + c.best + "</b>";
      $("coach-now").appendChild(t);
    } else if (game.coach) {
      $("coach-now").textContent = over ? "Game over." : "";
    }
    if (over && game.summary) {
      const s = game.summary;
      let txt = "Game summary: " + s.decisions + " decisions, " + s.optimal_decisions +
        " optimal; total win probability given away " + pct(s.total_lost) + ".";
      if (s.worst) txt += " Worst decision: " + lab.actionText(s.worst.action) + " (move " + (s.worst.seq + 1) +
        ") instead of " + lab.actionText(s.worst.optimal) + ", costing " + pct(s.worst.p_lost) + ".";
      $("summary").textContent = txt;
      $("summary").hidden = false;
    } else if (over) {
      $("summary").textContent = game.winner === h ? "You reached the goal first." : "Better luck next time.";
      $("summary").hidden = false;
    } else {
      $("summary").hidden = true;
    }
  }

  function showBoard() {
    $("setup").hidden = true;
    $("board").hidden = false;
  }

  async function start(ev) {
    ev.preventDefault();
    $("setup-error").textContent = "";
    const f = $("setup-form");
    const first = $("first").value;
    const body = {
      game: "pig",
      variant: $("variant").value,
      goal: parseInt($("goal").value, 10),
      opponent: $("opponent").value,
      human_first: first === "human" ? true : first === "bot" ? false : null,
      coach: $("coach").checked,
    };
    if ($("sides").value) body.sides = parseInt($("sides").value, 10);
    if ($("study").checked) {
      const pick = (n) => { const el = f.querySelector("input[name=" + n + "]:checked"); return el ? el.value : null; };
      if (!$("consent").checked) {
        $("setup-error").textContent = "Please read the consent text and tick it to take part (or untick the study).";
        return;
      }
      body.questionnaire = { risk_preference: pick("risk_preference"), q2: pick("q2"), q3: pick("q3"), consent: true };
      if ($("participant").value) body.questionnaire.participant = $("participant").value;
      if (!body.questionnaire.risk_preference || !body.questionnaire.q2 || !body.questionnaire.q3) {
        $("setup-error").textContent = "Please answer all three questions (or untick the study).";
        return;
      }
    }
    try {
      token = null;
      const r = await api("POST", "/api/games", body);
      token = r.token;
      store.setItem("dicelab-token-" + r.id, r.token);
      history.replaceState(null, "", "#" + r.id);
      game = r.state;
      $("log").innerHTML = "";
      r.events.forEach(addLog);
      showBoard();
      render();
    } catch (e) {
      $("setup-error").textContent = e.message;
    }
  }

  async function move(action) {
    if (busy || !game) return;
    busy = true;
    $("move-error").textContent = "";
    render();
    try {
      const r = await api("POST", "/api/games/" + game.id + "/moves", { action, expected_move: game.version });
      r.events.forEach(addLog);
      if (r.events.length) $("coach-last").textContent = game.coach && r.events[0].p_lost !== null
        ? "Your last move: " + (r.events[0].p_lost > 1e-9 ? "gave away " + pct(r.events[0].p_lost) : "optimal") : "";
      game = r.state;
      if (game.status === "finished") game = await api("GET", "/api/games/" + game.id);
    } catch (e) {
      $("move-error").textContent = e.message;
      try { game = await api("GET", "/api/games/" + game.id); } catch (e2) { /* keep the old view */ }
    }
    busy = false;
    render();
  }

  async function resume() {
    const id = location.hash.slice(1);
    if (!id) return;
    token = store.getItem("dicelab-token-" + id);
    if (!token) return;
    try {
      game = await api("GET", "/api/games/" + id);
      (game.moves || []).forEach((m) => addLog({ ...m, p_lost: m.p_lost }));
      showBoard();
      render();
    } catch (e) { token = null; }
  }

  $("study").addEventListener("change", () => { $("questionnaire").hidden = !$("study").checked; });
  $("setup-form").addEventListener("submit", start);
  $("roll").addEventListener("click", () => move("roll"));
  $("hold").addEventListener("click", () => move("hold"));
  $("new-game").addEventListener("click", () => {
    game = null; token = null;
    lab.showSetup();
  });
  document.body.dataset.ready = "1";
  resume();
})();
