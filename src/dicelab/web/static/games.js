// dicelab web lab: "My games", the games this browser played (kept in its localStorage by every
// game page, see lab.track in common.js), newest first, each opening at its review.
"use strict";
(function () {
  const { $ } = lab;
  const WORDS = { won: "You won", lost: "You lost", shared: "You shared the win", playing: "Still being played", closed: "Closed" };
  function when(iso) {
    const d = new Date(iso);
    return Number.isNaN(d.getTime()) ? "" : d.toLocaleString([], { dateStyle: "medium", timeStyle: "short" });
  }
  function render() {
    const list = lab.archive();
    const ul = $("games-list");
    ul.textContent = "";
    $("games-empty").hidden = list.length > 0;
    $("forget").hidden = list.length === 0;
    for (const g of list) {
      const li = document.createElement("li");
      li.className = "game-entry";
      li.dataset.id = g.id;
      const a = document.createElement("a");
      a.href = "/review/" + encodeURIComponent(g.id);
      a.className = "review-open";
      a.textContent = (g.title || g.game) + " \u2014 " + (WORDS[g.result] || g.result || "");
      const meta = document.createElement("span");
      meta.className = "hint-line";
      meta.textContent = " " + when(g.started) + (typeof g.moves === "number" ? " \u00b7 " + g.moves + " moves" : "");
      li.append(a, meta);
      if (g.share_id) {
        const s = document.createElement("a");
        s.href = "/share/" + encodeURIComponent(g.share_id);
        s.className = "share-open";
        s.textContent = "share link";
        li.append(" \u00b7 ", s);
      }
      if (g.settings && g.settings.game) {
        const b = document.createElement("button");
        b.type = "button"; b.className = "secondary small"; b.textContent = "Rematch";
        b.addEventListener("click", () => lab.rematch(g.settings));
        li.append(" ", b);
      }
      ul.appendChild(li);
    }
    document.body.dataset.ready = "1";
  }
  $("forget").addEventListener("click", () => { lab.saveArchive([]); render(); });
  render();
})();
