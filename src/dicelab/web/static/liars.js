// dicelab web lab: Liar's Dice. Hands are dealt on the server; the page sees only yours.
"use strict";
(function () {
  const { $, pct } = lab;
  let game = null, token = null, busy = false;
  const api = (method, url, body) => lab.api(method, url, body, token);
  const who = (p) => (p === 0 ? "You" : "Bot " + p);
  function line(text) { const li = document.createElement("li"); li.textContent = text; lab.appendLog(li); }
  function render() {
    const over = game.status === "finished";
    $("hand").textContent = game.hand.join(" ") || "(none)";
    $("counts").textContent = game.dice_counts.map((n, p) => who(p) + " " + n).join(", ");
    $("bid").textContent = game.bid ? game.bid[0] + " \u00d7 " + game.bid[1] + "s (" + who(game.bidder) + ")" : "none yet";
    $("raise").disabled = over || busy; $("call").disabled = over || busy || !game.bid;
    $("status").dataset.state = over ? "finished" : "playing";
    $("status").textContent = over ? (game.winner === 0 ? "You win!" : who(game.winner) + " wins.") : "Your move.";
    const c = game.coach_view;
    $("coach-now").textContent = c && c.current_bid_holds !== null ? "Given your dice, the current bid holds with probability " + pct(c.current_bid_holds) + "." : "";
  }
  $("setup-form").addEventListener("submit", async (ev) => {
    ev.preventDefault(); $("setup-error").textContent = "";
    try {
      token = null;
      const r = await api("POST", "/api/games", { game: "liars", players: parseInt($("players").value, 10),
        dice: parseInt($("dice").value, 10), wild: $("wild").value, opponent: $("opponent").value, coach: true });
      token = r.token; game = r.state; history.replaceState(null, "", "#" + r.id);
      $("log").innerHTML = ""; $("setup").hidden = true; $("board").hidden = false; render();
    } catch (e) { $("setup-error").textContent = e.message; }
  });
  async function move(body) {
    if (busy || !game) return;
    busy = true; $("move-error").textContent = ""; render();
    try {
      const r = await api("POST", "/api/games/" + game.id + "/moves", { ...body, expected_move: game.version });
      r.events.forEach((rec) => {
        const bid = rec.action === "call" ? null : rec.action.bid;
        line(who(rec.player) + (bid ? " bid " + bid[0] + " \u00d7 " + bid[1] + "s" : " called!") +
          (rec.actor === "human" && bid && rec.value !== null && rec.value !== undefined ? " (holds with " + pct(rec.value) + ")" : ""));
        rec.events.filter((e) => e.action === "call").forEach((rd) => {
          line("Hands: " + rd.hands.map((h, p) => who(p) + " [" + h.join(" ") + "]").join(", ") + " \u2014 " + rd.matched +
            " matching; " + who(rd.loser) + " lose" + (rd.loser === 0 ? "" : "s") + " a die.");
        });
      });
      game = await api("GET", "/api/games/" + game.id);
    } catch (e) { $("move-error").textContent = e.message; }
    busy = false; render();
  }
  $("raise").addEventListener("click", () => move({ action: "bid", quantity: parseInt($("quantity").value, 10), face: parseInt($("face").value, 10) }));
  $("call").addEventListener("click", () => move({ action: "call" }));
  $("new-game").addEventListener("click", () => { game = null; token = null; lab.showSetup(); });
  document.body.dataset.ready = "1";
})();
