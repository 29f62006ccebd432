// dicelab web lab: the start page's block on the background builder (dicelab.web.ahead): how many
// opponents, levels and trained strategies are ready, polled until all are. Hidden when the lab
// does not build ahead (dicelab serve --no-warm) or once everything is ready at the first look.
"use strict";
(function () {
  const { $ } = lab;
  const box = $("ready-block");
  if (!box) return;
  let shown = false;
  async function poll() {
    let p;
    try { p = await lab.api("GET", "/api/ready"); } catch (e) { return; }
    if (!p.running || (p.ready && !shown)) { box.hidden = true; box.dataset.state = p.ready ? "ready" : "off"; return; }
    shown = true;
    box.hidden = false;
    box.dataset.state = p.ready ? "ready" : "building";
    $("ready-bar").max = Math.max(1, p.total);
    $("ready-bar").value = p.done;
    $("ready-count").textContent = p.ready ? "All " + p.total + " ready." : p.done + " of " + p.total + " ready";
    const games = p.games.filter((g) => g.done < g.total).map((g) => g.title + " " + g.done + " of " + g.total);
    $("ready-text").textContent = p.ready ? "Every opponent is ready." :
      (p.now ? "Now: " + p.now + ". " : "") + (games.length ? "Still to come: " + games.join(", ") + ". " : "") +
      "You can play already: a bot whose trained strategy is not ready yet plays by simpler rules, and its game page says so.";
    if (!p.ready) setTimeout(poll, 2000);
  }
  poll();
})();
