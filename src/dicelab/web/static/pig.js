// dicelab web lab: the Pig page. Talks to the JSON API; never rolls dice itself.
"use strict";
(function () {
  const { $, pct } = lab;
  const store = window.sessionStorage;
  let game = null;   // the public state from the server
  let token = null;
  let busy = false;

  const api = (method, url, body) => lab.api(method, url, body, token);

  const piglet = () => game.rules.variant === "piglet";
  const dieOpts = (owner, roll) => ({ owner, roll, coin: piglet(),
    label: owner === "bot" ? "bot's die showing" : "your die showing" });
  function faceText(faces) {
    if (!faces) return "";
    if (piglet()) return faces.map((f) => (f ? "heads" : "tails")).join(" and ");
    return faces.join(" and ");
  }
  let myRolls = [], botRolls = [], myTurnOver = false;

  // one action record of the API: {seq, player, actor, action, events: [the public events], p_lost}
  function describe(ev, banked) {
    const you = ev.actor === "human";
    const who = you ? "You" : lab.seatName(game, ev.player, "Bot");
    const e = (ev.events || [])[0] || {};
    const won = (ev.events || []).some((x) => x.winner === ev.player);
    let s;
    if (ev.action === "roll") {
      const verb = piglet() ? " tossed " : " rolled ";
      if (e.result === "bust") s = who + verb + (piglet() ? "tails" : "a 1") + " \u2014 " + (you ? "your" : "its") + " turn total is lost";
      else if (e.result === "reset") s = who + verb + "two ones \u2014 " + (you ? "your" : "its") + " banked score goes back to 0";
      else s = who + verb + faceText(e.faces) + " \u2014 turn total " + e.turn_total;
    } else {
      s = who + " banked " + (banked !== undefined ? banked : "the turn total");
      if (e.scores) s += " (score " + e.scores[ev.player] + ")";
    }
    if (won) s += " and reached the goal";
    return s;
  }
  function coachNote(ev) {
    if (lab.hinted(ev)) return " (after a hint)" + coachNote({ ...ev, events: [] });
    if (!game.coach || ev.actor !== "human" || ev.p_lost === null || ev.p_lost === undefined) return "";
    return ev.p_lost > 1e-9 ? " \u2014 gave away " + pct(ev.p_lost) : " \u2014 optimal";
  }

  // a record's dice into its owner's tray (a new turn starts a fresh row)
  function showRoll(ev, animate) {
    const e = (ev.events || [])[0] || {};
    const you = ev.actor === "human";
    if (ev.action === "roll" && e.faces) {
      if (you) { if (myTurnOver) { myRolls = []; myTurnOver = false; } myRolls.push(e.faces); }
      else botRolls.push(e.faces);
      const box = $(you ? "dice-human" : "dice-bot");
      box.textContent = "";
      const rows = you ? myRolls : botRolls;
      rows.forEach((faces, n) => lab.showDice(box, faces, { ...dieOpts(you ? "human" : "bot", animate && n === rows.length - 1), add: true,
        small: n < rows.length - 1 }));
    }
    if (you && (ev.action === "hold" || e.result === "bust" || e.result === "reset")) myTurnOver = true;
  }

  // the records of one answer: yours at once, the bot's (or your friend's) one at a time under
  // "Bot's turn"; `next`: the state after them, when they came from the other person (lab.onRemote)
  async function play(records, animate, before, next) {
    const scores = before.slice();
    const bank = (ev) => { const e = (ev.events || [])[0] || {}; if (!e.scores) return undefined;
      const b = e.scores[ev.player] - scores[ev.player]; scores.splice(0, scores.length, ...e.scores); return b; };
    const mine = records.filter((r) => r.actor === "human"), bots = records.filter((r) => r.actor !== "human");
    let last = "";
    mine.forEach((ev) => { const t = describe(ev, bank(ev)); last = t; lab.logLine(t + coachNote(ev), "human"); showRoll(ev, animate); });
    if (!bots.length) { if (last) lab.banner(last, "you"); return; }
    botRolls = [];
    $("dice-bot").textContent = "";
    const steps = bots.map((ev) => {
      const text = describe(ev, bank(ev));
      return { text, show: () => {
        lab.logLine(text, "bot"); showRoll(ev, animate);
        const e = (ev.events || [])[0] || {};
        if (e.scores) { $("score-human").textContent = e.scores[game.human_seat]; $("score-bot").textContent = e.scores[1 - game.human_seat]; }
        $("turn-owner").textContent = lab.people(game) ? lab.seatName(game, ev.player) + "'s" : "Bot's"; $("turn-total").textContent = e.turn_total !== undefined ? e.turn_total : 0;
        $("p-bot").classList.add("to-move"); $("p-human").classList.remove("to-move");
      } };
    });
    const end = steps[steps.length - 1].text;
    const over = bots.some((ev) => (ev.events || []).some((x) => x.winner !== undefined && x.winner !== null));
    if (mine.length) lab.banner(last, "you");
    const other = lab.seatName(game, 1 - game.human_seat, "the bot");
    await lab.reveal(steps, over ? end + " \u2014 " + other.replace(/^Your/, "your") + " wins"
      : !next || lab.myTurn(next) ? end + " \u2014 your turn" : end, lab.people(game) ? other + "\u2019s turn" : undefined);
  }

  function addLog(ev) {  // a finished record, shown at once (a reopened game)
    lab.logLine(describe(ev) + coachNote(ev), ev.actor);
  }

  function render() {
    const h = game.human_seat, b = 1 - h;
    $("score-human").textContent = game.scores[h];
    $("score-bot").textContent = game.scores[b];
    $("turn-owner").textContent = !lab.people(game) || game.to_move.includes(h) ? "Your" : lab.seatName(game, b) + "'s";
    $("turn-total").textContent = game.turn_total;
    $("goal-shown").textContent = game.rules.goal;
    $("bot-name").textContent = lab.people(game) ? lab.seatName(game, b) : lab.botName(game.opponents[0]);
    const head = $("bot-name").parentNode.firstChild;  // "Bot: " before the name, not for a person
    if (head && head.nodeType === 3) head.textContent = lab.people(game) ? "" : "Bot: ";
    const over = game.status === "finished";
    const off = over || busy || !lab.myTurn(game);  // in a game between people: not while the other moves
    lab.setOff($("roll"), off);
    lab.setOff($("hold"), off);
    lab.setOff($("hint"), off);
    $("p-human").classList.toggle("to-move", !over && !busy && game.to_move.includes(h));
    $("p-bot").classList.toggle("to-move", !over && !busy && game.to_move.includes(b) && !!lab.people(game));
    $("status").textContent = over ? (game.winner === h ? "You win!" : lab.seatName(game, b, "The bot") + " wins.")
      : busy ? "" : lab.myTurn(game) ? "Your move." : lab.waitingText(game);
    $("status").dataset.state = over ? "finished" : "playing";
    if (over) lab.banner(game.winner === h ? "You reached the goal \u2014 you win!" : ($("banner-text").textContent.includes("bot wins")
      ? $("banner-text").textContent : "The bot wins"), "over");
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
    lab.track(game, token);  // My games, and the Review and Rematch buttons once the game is over
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
      history.replaceState(null, "", location.search + "#" + r.id);
      game = r.state;
      $("log").innerHTML = ""; myRolls = []; botRolls = []; myTurnOver = false;
      $("dice-human").textContent = ""; $("dice-bot").textContent = "";
      $("coach-last").textContent = "";
      busy = true;
      showBoard();
      render();
      $("roll").focus();
      lab.banner("Your turn", "you");
      await play(r.events, true, [0, 0]);
      busy = false;
      render();
    } catch (e) {
      busy = false;
      $("setup-error").textContent = e.message;
    }
  }

  async function move(action) {
    if (busy || !game) return;
    busy = true;
    $("move-error").textContent = "";
    render();
    try {
      const r = await api("POST", "/api/games/" + game.id + "/moves", { action, expected_move: game.version, hint: lab.takeHint() });
      const before = game.scores.slice();
      const mine = r.events.find((x) => x.actor === "human");
      if (mine) $("coach-last").textContent = game.coach && mine.p_lost !== null && mine.p_lost !== undefined
        ? "Your last move: " + (mine.p_lost > 1e-9 ? "gave away " + pct(mine.p_lost) + " (optimal play would " + mine.best + ")" : "optimal") : "";
      await play(r.events, true, before);
      game = r.state;
      if (game.status === "finished") game = await api("GET", "/api/games/" + game.id);
    } catch (e) {
      $("move-error").textContent = e.message;
      try { game = await api("GET", "/api/games/" + game.id); } catch (e2) { /* keep the old view */ }
    }
    busy = false;
    render();
    if (game.status === "finished") $("new-game").focus();
  }

  async function resume() {
    const id = location.hash.slice(1);
    if (!id) return;
    token = lab.tokenOf(id);
    if (!token) return;
    try {
      game = await api("GET", "/api/games/" + id);
      (game.moves || []).forEach((m) => addLog({ ...m, p_lost: m.p_lost }));
      myRolls = game.turn_rolls || [];
      lab.showDice($("dice-human"), [].concat(...myRolls), dieOpts("human", false));
      showBoard();
      render();
      $("roll").focus();
    } catch (e) { token = null; }
  }

  // a game between people: the other person's moves as they happen, shown as the bot's are
  lab.onRemote(async (u) => {
    await lab.until(() => !busy);
    if (!game || u.state.id !== game.id || u.state.version < game.version) return;
    const records = u.events.filter((r) => r.seq >= game.version);
    busy = true;
    try { await play(records, true, game.scores.slice(), u.state); } finally { busy = false; }
    game = u.state.status === "finished" ? await api("GET", "/api/games/" + game.id) : u.state;
    render();
  });

  $("study").addEventListener("change", () => { $("questionnaire").hidden = !$("study").checked; });
  $("setup-form").addEventListener("submit", start);
  lab.control("roll", () => move("roll"));
  lab.control("hold", () => move("hold"));
  lab.keys({ r: "roll", " ": "roll", h: "hold", "?": lab.hints(() => game, () => token) });
  $("new-game").addEventListener("click", () => {
    game = null; token = null;
    lab.showSetup();
  });
  document.body.dataset.ready = "1";
  resume();
})();
