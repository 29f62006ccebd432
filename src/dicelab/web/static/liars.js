// dicelab web lab: Liar's Dice. Hands are dealt on the server; the page sees only yours, and the
// others' hands only in the public event of a call (the cups lift then).
"use strict";
(function () {
  const { $, pct } = lab;
  let game = null, token = null, busy = false;
  const api = (method, url, body) => lab.api(method, url, body, token);
  const who = (p) => (lab.people(game) ? lab.seatName(game, p) : p === game.human_seat ? "You" : "Bot " + p);
  const whose = (p) => (p === game.human_seat ? "your" : who(p).replace(/^Your f/, "your f") + "\u2019s");
  const bidText = (b) => b[0] + " \u00d7 " + b[1] + "s";
  const faces = () => game.rules.faces || 6;

  // a cup: yours open to you, the others closed (only their number of dice shows)
  function cup(p, hand, count, opts = {}) {
    const d = document.createElement("div");
    d.className = "cup" + (opts.lifted ? " lifted" : "") + (count === 0 ? " out" : "");
    d.id = (opts.prefix || "cup-") + p;
    const h = document.createElement("h4");
    h.textContent = who(p);
    d.appendChild(h);
    if (count === 0) { const s = document.createElement("div"); s.textContent = "out of dice"; d.appendChild(s); return d; }
    if (hand) {
      const tray = document.createElement("div"); tray.className = "tray";
      if (!opts.prefix && p === game.human_seat) tray.id = "hand";
      hand.forEach((f) => tray.appendChild(lab.die(f, { owner: p === game.human_seat ? "human" : "bot", small: hand.length > 4,
        mark: opts.face !== undefined && (f === opts.face || (opts.wild && f === 1)),
        numbers: faces() > 6, label: (p === game.human_seat ? "your" : "bot " + p + "'s") + " die showing", roll: opts.roll })));
      d.appendChild(tray);
    } else {
      const shell = document.createElement("div"); shell.className = "shell";
      shell.textContent = count + (count === 1 ? " die, hidden" : " dice, hidden");
      d.appendChild(shell);
    }
    return d;
  }

  let hand = [];  // your dice in the round shown
  function table(counts, bid, bidder) {
    const box = $("cups");
    box.textContent = "";
    counts.forEach((n, p) => box.appendChild(cup(p, p === game.human_seat ? hand : null, n)));
    $("counts").textContent = counts.reduce((a, b) => a + b, 0);
    $("bid").textContent = bid ? bidText(bid) + " (" + who(bidder) + ")" : "none yet";
  }

  // the cups of a called round lift: every hand, the dice that match the bid marked
  function showdown(e) {
    const box = $("showdown-cups");
    box.textContent = "";
    const wild = game.rules.wild === "ones";
    e.hands.forEach((hand, p) => box.appendChild(cup(p, hand, hand.length, { lifted: true, prefix: "shown-", face: e.bid[1], wild, roll: true })));
    $("showdown-title").textContent = who(e.seat) + (e.seat === game.human_seat ? " call " : " calls ") + whose(e.bidder) +
      " bid of " + bidText(e.bid);
    $("showdown-text").textContent = showdownText(e);
    $("showdown").hidden = false;
  }
  function showdownText(e) {
    return e.matched + (e.matched === 1 ? " die shows " : " dice show ") + e.bid[1] + (game.rules.wild === "ones" ? " (ones wild)" : "") +
      ": the bid " + (e.matched >= e.bid[0] ? "holds" : "was a lie") + " \u2014 " + loses(e) + ".";
  }
  // who loses a die, and whether it was their last (then they are out of the game)
  function loses(e) {
    const you = e.loser === game.human_seat, out = Array.isArray(e.hands) && e.hands[e.loser] && e.hands[e.loser].length === 1;
    if (out) return you ? "you lose your last die and are out of the game" : who(e.loser) + " loses its last die and is out of the game";
    return you ? "you lose a die" : who(e.loser) + " loses a die";
  }

  // what your decisions of this round gave away by the duel coach's numbers (said when the cups lift)
  let roundLost = [];
  const TINY = 0.0005;  // less than this rounds to 0.0%: not worth a word
  const moveWords = (a) => (a === "call" ? "your call" : "your bid of " + bidText(a.bid));
  function roundReview() {
    if (!roundLost.length) return "";
    const total = roundLost.reduce((t, x) => t + x.lost, 0), worst = roundLost.reduce((w, x) => (x.lost > w.lost ? x : w));
    roundLost = [];
    return total < TINY ? " Your decisions this round were as good as the policy's." :
      " Your decisions this round gave away " + pct(total) + " of your chance to win the round" +
      (worst.lost >= TINY ? " (most: " + moveWords(worst.action) + ", " + pct(worst.lost) + "; the policy's choice was " +
        (worst.best === "call" ? "to call" : bidText(worst.best.bid)) + ")" : "") + ".";
  }
  // one record as words, and what it does to the board
  function step(rec, handAfter) {
    const call = rec.events.find((e) => e.action === "call");
    const fresh = rec.events.find((e) => e.round !== undefined);
    const won = rec.events.find((e) => e.winner !== undefined && e.winner !== null);
    const rated = rec.actor === "human" && typeof rec.p_lost === "number" && rec.best !== null && rec.best !== undefined;
    if (rated) roundLost.push({ action: rec.action, lost: rec.p_lost, best: rec.best });
    let text;
    if (call) text = who(rec.player) + (rec.actor === "human" ? " call " : " calls ") + whose(call.bidder) + " bid of " + bidText(call.bid) + ". " + showdownText(call) + roundReview();
    else text = who(rec.player) + (rec.actor === "human" ? " bid " : " bids ") + bidText(rec.action.bid);
    if (won) text += " " + (won.winner === game.human_seat ? "You win!" : who(won.winner) + " wins.");
    else if (fresh) text += " New round: " + who(fresh.starter) + (fresh.starter === game.human_seat ? " start." : " starts.");
    const note = rated ? (rec.p_lost >= TINY ? " (gave away " + pct(rec.p_lost) + " of your chance to win the round)" : " (as good as the policy's choice)")
      : rec.actor === "human" && !call && typeof rec.value === "number" ? " (holds with " + pct(rec.value) + ", given your dice)" : "";
    const line = text + (lab.hinted(rec) ? " (after a hint)" : "") + note;
    return { text, line, show: () => {
      if (call) { showdown(call); hand = handAfter || []; table(fresh ? fresh.dice_counts : game.dice_counts.map((n, p) => (p === call.loser ? n - 1 : n)), null, null); }
      else table(curCounts, rec.action.bid, rec.player);
      if (fresh) curCounts = fresh.dice_counts;
      lab.logLine(line, rec.actor);
    } };
  }
  let curCounts = [];

  async function play(records, next) {
    curCounts = game.dice_counts.slice();
    // after a call, your new hand: from the next call of this answer (its hands are public), else the new state
    const calls = records.map((r, n) => (r.events.some((e) => e.action === "call") ? n : -1)).filter((n) => n >= 0);
    const handAfter = (n) => {
      const later = calls.find((m) => m > n);
      return later === undefined ? next.hand : records[later].events.find((e) => e.action === "call").hands[game.human_seat];
    };
    const mine = records.filter((r) => r.actor === "human"), bots = records.filter((r) => r.actor !== "human");
    let last;
    mine.forEach((r) => { const s = step(r, handAfter(records.indexOf(r))); s.show(); last = s.text; });
    if (!bots.length) { if (last) lab.banner(last, "you"); return; }
    const steps = bots.map((r) => step(r, handAfter(records.indexOf(r))));
    await lab.reveal(steps, steps[steps.length - 1].text.replace(/\.$/, "") + (lab.myTurn(next) ? " \u2014 your turn" : ""),
      lab.people(game) ? "The others\u2019 turn" : game.dice_counts.length > 2 ? "Bots\u2019 turn" : "Bot\u2019s turn", last);
  }

  function render() {
    const over = game.status === "finished";
    hand = game.hand;
    table(game.dice_counts, game.bid, game.bidder);
    const off = over || busy || !lab.myTurn(game);  // between people: not while another person bids
    lab.setOff($("raise"), off);
    lab.setOff($("call"), off || !game.bid);
    lab.setOff($("hint"), off);
    $("face").max = faces();
    $("quantity").max = game.dice_counts.reduce((a, b) => a + b, 0);
    $("status").dataset.state = over ? "finished" : "playing";
    $("status").textContent = over ? (game.winner === game.human_seat ? "You win!" : who(game.winner) + " wins.") : busy ? ""
      : lab.myTurn(game) ? "Your move." : lab.waitingText(game);
    if (over) lab.banner($("status").textContent, "over");
    coachPanel(game.coach_view, over);
    lab.track(game, token);  // My games, and the Review and Rematch buttons once the game is over
  }
  // the coach panel: in a two-player round with a duel policy, what the near-equilibrium policy
  // plays and your chance to win the round after each move; otherwise the chance the bid holds
  const moveText = (a) => (a === "call" ? "Call" : "Bid " + bidText(a.bid));
  const sameMove = lab.same;
  function coachPanel(c, over) {
    const box = $("coach-now");
    box.textContent = "";
    const line = (text, cls) => { const p = document.createElement("p"); p.textContent = text; if (cls) p.className = cls; box.appendChild(p); return p; };
    const holds = c && c.current_bid_holds !== null && c.current_bid_holds !== undefined
      ? "Given your dice, the current bid holds with probability " + pct(c.current_bid_holds) + "." : null;
    if (!c || (c.kind !== "win probability" && c.kind !== "chance to win the round")) {
      line(holds || (over ? "" : "No bid to judge yet: open with a bid your own dice support."));
      return;
    }
    const val = (a) => c.values.find((x) => sameMove(x.action, a)) || {};
    const prob = (a) => { const v = c.policy.find((x) => sameMove(x.action, a)); return v ? v.prob : 0; };
    const game1 = c.kind === "win probability";
    const winWord = game1 ? "you win the game" : "you win the round";
    line("Two players in this round, " + c.duel.dice[0] + " v " + c.duel.dice[1] + " dice: the coach assumes both of you play " +
      "the trained near-equilibrium policy from here, and weighs the bot's hidden dice by its bids.");
    const equal = c.equal || [];
    let head;
    if (equal.length > 1) {
      head = line("These moves are worth the same at equilibrium (" + winWord + " with about " + pct(val(equal[0]).value) + " whichever you play): " +
        equal.map(moveText).join(", ") + ". Mixing them keeps the bot from reading your hand; what differs is the risk, in the table.", "coach-equal");
    } else {
      head = line("The policy\u2019s choice: " + moveText(c.best) + " \u2014 " + winWord + " with " + pct(val(c.best).value) + ".", "coach-best");
    }
    head.id = equal.length > 1 ? "coach-equal" : "coach-best";
    // the moves worth the same (or the best), the policy's call and its top raises
    const shown = [];
    const add = (a) => { if (!shown.some((x) => sameMove(x, a))) shown.push(a); };
    (equal.length > 1 ? equal : [c.best]).forEach(add);
    if (c.values.some((x) => x.action === "call")) add("call");
    c.policy_top_raises.forEach((x) => add(x.action));
    const t = document.createElement("table");
    t.className = "grid coach-table"; t.id = "coach-policy";
    const head2 = t.createTHead().insertRow();
    ["Move", "Policy plays it", "The bid holds", "Bot calls it at once", game1 ? "You win the game" : "You win the round"].forEach((h) => {
      const th = document.createElement("th"); th.scope = "col"; th.textContent = h; head2.appendChild(th); });
    const body = t.createTBody();
    shown.forEach((a) => {
      const r = body.insertRow(), v = val(a);
      if (equal.some((x) => sameMove(x, a)) || (equal.length < 2 && sameMove(a, c.best))) r.className = "best";
      [moveText(a), pct(prob(a)), pct(v.holds), a === "call" ? "\u2013" : pct(v.called), pct(v.value)].forEach((x) => { r.insertCell().textContent = x; });
    });
    box.appendChild(t);
    line("\u201cThe bid holds\u201d: for a call, the chance the standing bid holds (then your call loses); for a raise, the chance it holds " +
      "if it is called. \u201cBot calls it at once\u201d: how often the bot calls that raise.", "hint-line");
    if (holds) line(holds);
  }
  // a bid ready in the form (so Enter bids it): the smallest legal bid on the face you hold most
  // (wild dice counted; ties to the higher face), at least as many as you hold; never 1 x 1s
  function suggest() {
    const bids = game.legal_actions.filter((a) => a && a.bid).map((a) => a.bid);
    if (!bids.length) return;
    const wild = game.rules.wild === "ones" ? 1 : game.rules.wild === "highest" ? faces() : 0;
    const count = (f) => (game.hand || []).filter((d) => d === f || (wild && d === wild && f !== wild)).length;
    let face = 0, most = -1;
    for (let f = 1; f <= faces(); f++) if (f !== wild && count(f) >= most) { most = count(f); face = f; }
    const onFace = bids.filter((b) => b[1] === face);
    const pick = onFace.find((b) => b[0] >= Math.max(1, most)) || onFace[0] || bids.find((b) => b[1] !== 1) || bids[0];
    $("quantity").value = pick[0]; $("face").value = pick[1];
  }
  // why a bid is not allowed, in words: the real constraint (the dice on the table, or the raise)
  function whyNot(q, f) {
    const total = game.dice_counts.reduce((a, b) => a + b, 0);
    if (q > total) return "There are only " + total + " dice on the table: bid at most " + total + ".";
    if (!game.bid) return "That bid is not allowed here.";
    const [bq, bf] = game.bid, top = faces();
    const more = bq < total ? (bq + 1) + " or more dice of any face" : null;
    const same = bf < top ? bq + " dice with a face above " + bf + " (" + (bf + 1 === top ? bq + " \u00d7 " + top + "s" : bq + " \u00d7 " + (bf + 1) + "s to " + bq + " \u00d7 " + top + "s") + ")" : null;
    if (!more && !same) return "No bid is higher than " + bidText(game.bid) + " with " + total + " dice on the table: call it.";
    return "Raise the bid: " + [same, more].filter(Boolean).join(", or ") + ".";
  }

  $("setup-form").addEventListener("submit", async (ev) => {
    ev.preventDefault(); $("setup-error").textContent = "";
    try {
      token = null;
      const r = await api("POST", "/api/games", { game: "liars", players: parseInt($("players").value, 10),
        dice: parseInt($("dice").value, 10), wild: $("wild").value, opponent: $("opponent").value, coach: true });
      token = r.token; game = r.state; lab.remember(r);
      $("log").textContent = ""; $("showdown").hidden = true;
      lab.showBoard("quantity"); lab.banner("Your turn: open the bidding", "you"); render(); suggest();
    } catch (e) { $("setup-error").textContent = e.message; }
  });
  async function move(body) {
    if (busy || !game || game.status !== "playing") return;
    busy = true; $("move-error").textContent = ""; render();
    try {
      const r = await api("POST", "/api/games/" + game.id + "/moves", { ...body, expected_move: game.version, hint: lab.takeHint() });
      const next = r.state;
      await play(r.events, next);
      game = next.status === "playing" ? next : await api("GET", "/api/games/" + game.id);
      busy = false; render(); suggest();
    } catch (e) { $("move-error").textContent = e.message; busy = false; render(); }
    if (game.status === "finished") $("new-game").focus();
  }
  // a game between people: the other people's bids and calls as they happen (lab.onRemote)
  lab.onRemote(async (u) => {
    await lab.until(() => !busy);
    if (!game || u.state.id !== game.id || u.state.version < game.version) return;
    const records = u.events.filter((r) => r.seq >= game.version);
    busy = true;
    try { if (records.length) await play(records, u.state); } finally { busy = false; }
    game = u.state.status === "finished" ? await api("GET", "/api/games/" + game.id) : u.state;
    render(); suggest();
  });
  function bid() {
    const q = parseInt($("quantity").value, 10), f = parseInt($("face").value, 10);
    if (!(q >= 1)) { $("move-error").textContent = "Bid at least one die."; return; }
    if (!(f >= 1 && f <= faces())) { $("move-error").textContent = "Pick a face from 1 to " + faces() + "."; return; }
    const legal = game.legal_actions.some((a) => a && a.bid && a.bid[0] === q && a.bid[1] === f);
    if (!legal) { $("move-error").textContent = whyNot(q, f); return; }
    move({ action: "bid", quantity: q, face: f });
  }
  $("bid-form").addEventListener("submit", (ev) => { ev.preventDefault(); if (lab.isOff($("raise"))) { lab.skip(); return; } bid(); });
  lab.control("call", () => move({ action: "call" }));
  lab.keys({ c: "call", b: () => $("quantity").focus(), "?": lab.hints(() => game, () => token) });
  $("new-game").addEventListener("click", () => { game = null; token = null; lab.showSetup(); });
  document.body.dataset.ready = "1";
  lab.resumeGame().then((r) => {
    if (!r || game) return;
    token = r.token; game = r.game;
    (game.moves || []).forEach((m) => lab.logLine(step(m).line, m.actor));  // a reload keeps the table talk
    lab.showBoard("quantity"); render(); suggest();
  });
})();
