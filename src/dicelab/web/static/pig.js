// dicelab web lab: the Pig page. Talks to the JSON API; never rolls dice itself.
"use strict";
(function () {
  const { $, pct } = lab;
  let game = null;   // the public state from the server
  let token = null;
  let busy = false;

  const api = (method, url, body) => lab.api(method, url, body, token);

  const piglet = () => game.rules.variant === "piglet";
  // three or four players: the bots (or friends) are named by seat, "Bot 3", each with its own score line
  const seats = () => (game && game.scores ? game.scores.length : 2);
  const many = () => seats() > 2;
  const others = () => [...Array(seats()).keys()].filter((s) => s !== game.human_seat);
  function who(seat) {
    if (seat === game.human_seat) return "You";
    if (lab.people(game)) return lab.seatName(game, seat);
    return many() ? "Bot " + (others().indexOf(seat) + 1) : "Bot";  // as the review names them
  }
  const whoOf = (seat) => who(seat);
  function specOf(seat) {  // a bot seat's spec: the opponents in seat order, the reader's seat left out
    const n = others().indexOf(seat);
    return game.opponents[n] !== undefined ? game.opponents[n] : game.opponents[0];
  }
  // every score: yours, and the bot's (two players) or one line per other seat, the mover's marked
  function showScores(scores, mover) {
    const h = game.human_seat;
    $("score-human").textContent = scores[h];
    $("score-bot").hidden = many(); $("bot-banked").hidden = many();
    $("bot-seats").hidden = !many();
    if (many()) $("p-bot").querySelector(".tray-label").textContent = "The others\u2019 dice, their last turns";
    if (!many()) { $("score-bot").textContent = scores[1 - h]; return; }
    const list = $("bot-seats");
    list.textContent = "";
    others().forEach((s) => {
      const li = document.createElement("li");
      const name = lab.people(game) ? "" : " (" + lab.botName(specOf(s)) + ")";
      li.textContent = who(s) + name + ": " + scores[s] + " banked" + (s === mover ? " — its turn" : "");
      if (s === mover) { li.classList.add("to-move"); li.setAttribute("aria-current", "true"); }
      list.appendChild(li);
    });
  }
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
    const who = you ? "You" : (many() ? whoOf(ev.player) : lab.seatName(game, ev.player, "Bot"));
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
      if (e.scores && !won) s += " (score " + e.scores[ev.player] + ")";
    }
    // a roll that reaches the goal banks at once: the turn total is then 0 and not worth saying
    if (won && ev.action === "roll") s = who + (piglet() ? " tossed " : " rolled ") + faceText(e.faces);
    if (won) s += " and reached the goal" + (e.scores ? " with " + e.scores[ev.player] : "");
    return s;
  }
  function coachNote(ev) {
    if (lab.hinted(ev)) return " (after a hint)" + coachNote({ ...ev, events: [] });
    if (!game.coach || ev.actor !== "human" || ev.p_lost === null || ev.p_lost === undefined) return "";
    return ev.p_lost > 1e-9 ? " \u2014 gave away " + pct(ev.p_lost) : " \u2014 the best move";
  }

  // your tray: the dice of your turn (fresh at each new turn of yours); while the bot plays it says
  // that it shows your last turn
  function yourTurnStarts() {
    myRolls = []; myTurnOver = false;
    $("dice-human").textContent = "";
    $("tray-human-label").textContent = "Your dice this turn";
  }
  // a record's dice into its owner's tray (a new turn starts a fresh row)
  function showRoll(ev, animate) {
    const e = (ev.events || [])[0] || {};
    const you = ev.actor === "human";
    if (ev.action === "roll" && e.faces) {
      if (you) { if (myTurnOver) yourTurnStarts(); myRolls.push(e.faces); }
      else botRolls.push(e.faces);
      const box = $(you ? "dice-human" : "dice-bot");
      box.textContent = "";
      const rows = you ? myRolls : botRolls;
      rows.forEach((faces, n) => lab.showDice(box, faces, { ...dieOpts(you ? "human" : "bot", animate && n === rows.length - 1), add: true,
        small: n < rows.length - 1 }));
    }
    if (you && (ev.action === "hold" || e.result === "bust" || e.result === "reset")) {
      myTurnOver = true;
      $("tray-human-label").textContent = "Your dice, your last turn";
    }
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
        if (e.scores) showScores(e.scores, ev.player);
        $("turn-owner").textContent = many() || lab.people(game) ? who(ev.player) + "'s" : "Bot's"; $("turn-total").textContent = e.turn_total !== undefined ? e.turn_total : 0;
        $("p-bot").classList.add("to-move"); $("p-human").classList.remove("to-move");
      } };
    });
    const end = steps[steps.length - 1].text;
    const won = bots.flatMap((ev) => ev.events || []).find((x) => x.winner !== undefined && x.winner !== null);
    const over = !!won;
    const other = many() ? who(over ? won.winner : bots[bots.length - 1].player) : lab.seatName(game, 1 - game.human_seat, "the bot");
    await lab.reveal(steps, over ? end + " \u2014 " + other.replace(/^Your/, "your") + " wins"
      : !next || lab.myTurn(next) ? end + " \u2014 your turn" : end, lab.people(game) ? other + "\u2019s turn" : many() ? "The bots\u2019 turns" : undefined,
    last || undefined);
    if (!over && (!next || lab.myTurn(next))) yourTurnStarts();
  }

  // the records of a reopened game, into the log at once (what each hold banked from the scores)
  function logAll(records) {
    const scores = game.scores.map(() => 0);
    records.forEach((ev) => {
      const e = (ev.events || [])[0] || {};
      const banked = ev.action === "hold" && e.scores ? e.scores[ev.player] - scores[ev.player] : undefined;
      if (e.scores) scores.splice(0, scores.length, ...e.scores);
      lab.logLine(describe(ev, banked) + coachNote(ev), ev.actor);
    });
  }

  function render() {
    const h = game.human_seat, b = 1 - h;
    const mover = game.status === "playing" && !busy ? game.to_move[0] : undefined;
    showScores(game.scores, mover === h ? undefined : mover);
    $("turn-owner").textContent = !lab.people(game) || game.to_move.includes(h) ? "Your" : who(game.to_move[0]) + "'s";
    $("turn-total").textContent = game.turn_total;
    $("goal-shown").textContent = game.rules.goal;
    $("bot-name").textContent = many() ? "" : lab.people(game) ? lab.seatName(game, b) : lab.botName(game.opponents[0]);
    const head = $("bot-name").parentNode.firstChild;  // "Bot: " before the name, not for a person
    if (head && head.nodeType === 3) head.textContent = many() ? (lab.people(game) ? "The others" : "The bots") : lab.people(game) ? "" : "Bot: ";
    const over = game.status === "finished";
    const off = over || busy || !lab.myTurn(game);  // in a game between people: not while the other moves
    lab.setOff($("roll"), off);
    lab.setOff($("hold"), off || (Array.isArray(game.legal_actions) && !game.legal_actions.includes("hold")));
    lab.setOff($("hint"), off);
    $("p-human").classList.toggle("to-move", !over && !busy && game.to_move.includes(h));
    $("p-bot").classList.toggle("to-move", !over && !busy && game.to_move.includes(b) && !!lab.people(game));
    const winner = many() ? who(game.winner) : lab.seatName(game, b, "The bot");
    $("status").textContent = over ? (game.winner === h ? "You win!" : winner + " wins.")
      : busy ? "" : lab.myTurn(game) ? "Your move." : lab.waitingText(game);
    $("status").dataset.state = over ? "finished" : "playing";
    if (over) lab.banner(game.winner === h ? "You reached the goal \u2014 you win!" : ($("banner-text").textContent.includes(" wins")
      ? $("banner-text").textContent : winner + " wins"), "over");
    $("coach-panel").hidden = !game.coach;
    if (game.coach) coachNow(over);
    if (over && game.summary) {
      const s = game.summary;
      let txt = "Game summary: " + s.decisions + " decisions, " + s.optimal_decisions +
        " of them the best move; chance to win given away in all: " + pct(s.total_lost) + ".";
      if (s.worst) txt += " The costliest: " + lab.actionText(s.worst.action) + " at move " + (s.worst.seq + 1) + ", where " +
        lab.actionText(s.worst.optimal) + " was best (" + pct(s.worst.p_lost) + ").";
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

  // the coach's numbers for the position you are to decide in; none while the bot's turn is shown
  function coachNow(over) {
    const box = $("coach-now"), c = game.coach_view;
    box.textContent = "";
    $("coach-seats").textContent = "";
    if (over) { box.textContent = "Game over."; return; }
    if (busy || !c) { box.textContent = "The coach gives its numbers when it is your move."; return; }
    const t = document.createElement("div");
    t.innerHTML = "Your chance to win if you <b>roll</b>: <span id='coach-roll'></span> &middot; if you <b>hold</b>: " +
      "<span id='coach-hold'></span> &middot; best: <b id='coach-best'></b>";
    box.appendChild(t);
    $("coach-roll").textContent = pct(lab.coachValue(c, "roll"));
    const hold = lab.coachValue(c, "hold");
    $("coach-hold").textContent = typeof hold === "number" ? pct(hold) : "not allowed (a turn total of 0 must roll)";
    $("coach-best").textContent = c.equal ? "either: both are worth the same" : c.best;
    if (Array.isArray(c.chances)) {  // three or four players: every seat's chance after the best move
      $("coach-seats").textContent = "Each player's chance to win with best play from here: " +
        c.chances.map((p, s) => who(s) + " " + pct(p)).join(" \u00b7 ") + ".";
    }
  }

  // Roll takes the focus without the browser's own jump (which may centre it and push the players' dice
  // off a short screen); scrolled only as far as needed, clear of the sticky banner (scroll-margin).
  function focusRoll() {
    const roll = $("roll");
    roll.focus({ preventScroll: true });
    roll.scrollIntoView({ block: "nearest", inline: "nearest" });
  }
  const showBoard = () => lab.showBoard();  // the form hidden, the board shown from its top (common.js)

  async function start(ev) {
    ev.preventDefault();
    $("setup-error").textContent = "";
    const f = $("setup-form");
    const first = $("first").value;
    const body = {
      game: "pig",
      variant: $("variant").value,
      goal: parseInt($("goal").value, 10),
      players: parseInt($("players").value, 10),
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
      lab.remember(r);
      game = r.state;
      $("log").innerHTML = ""; myRolls = []; botRolls = []; myTurnOver = false;
      $("dice-human").textContent = ""; $("dice-bot").textContent = "";
      $("coach-last").textContent = "";
      busy = true;
      showBoard();
      render();
      focusRoll();
      lab.banner("Your turn", "you");
      await play(r.events, true, game.scores.map(() => 0));
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
        ? "Your last move: " + (mine.p_lost > 1e-9 ? "gave away " + pct(mine.p_lost) + " of your chance to win (the best move was to " + mine.best + ")" : "the best move") : "";
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
    const r = await lab.resumeGame();
    if (!r || game) return;
    token = r.token; game = r.game;
    logAll(game.moves || []);
    myRolls = game.turn_rolls || [];
    myTurnOver = false;
    lab.showDice($("dice-human"), [].concat(...myRolls), dieOpts("human", false));
    showBoard();
    render();
    focusRoll();
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
  // three or four players: two dice and the best responses (to one opponent) are for two players
  function playersChanged() {
    const n = parseInt($("players").value, 10), more = n > 2;
    const off = (sel, test) => Array.from(sel.options).forEach((o) => { o.disabled = more && test(o.value); });
    off($("opponent"), (v) => v.startsWith("best-response:"));
    off($("variant"), (v) => v === "two-dice");
    [$("opponent"), $("variant")].forEach((sel) => {
      if (sel.selectedOptions[0] && sel.selectedOptions[0].disabled) sel.value = Array.from(sel.options).find((o) => !o.disabled).value;
    });
    $("goal").max = n === 4 ? "40" : "100";
    $("players-about").textContent = !more ? "" : "Every bot plays the chosen opponent (the levels' strengths are measured for two players)" +
      (n === 4 ? "; four players play up to goal 40" : "") + ".";
  }
  $("players").addEventListener("change", playersChanged);
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
