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
      const acc = document.createElement("span");
      acc.className = "accuracy";
      acc.textContent = accuracyText(g);
      if (g.accuracy && typeof g.accuracy.accuracy === "number") acc.dataset.accuracy = g.accuracy.accuracy.toFixed(1);
      li.append(acc);
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
  // a finished game's accuracy and its inaccuracies, mistakes and blunders (from its review, kept here)
  function accuracyText(g) {
    const a = g.accuracy;
    if (!a || typeof a.accuracy !== "number") return "";
    const many = (n, one, more) => n + " " + (n === 1 ? one : more);
    return " \u00b7 accuracy " + Math.round(a.accuracy) + "% (" + many(a.inaccuracies, "inaccuracy", "inaccuracies") + ", " +
      many(a.mistakes, "mistake", "mistakes") + ", " + many(a.blunders, "blunder", "blunders") + ")";
  }
  // the finished games without a kept accuracy: ask their reviews, a few at a time, newest first
  async function fillAccuracy() {
    const todo = lab.archive().filter((g) => g.result !== "playing" && g.token && g.accuracy === undefined).slice(0, 20);
    for (const g of todo) {
      try {
        lab.noteAccuracy(await lab.api("GET", "/api/games/" + encodeURIComponent(g.id) + "/review", null, g.token));
      } catch (e) {
        const list = lab.archive(); const x = list.find((y) => y.id === g.id);
        if (x) { x.accuracy = { accuracy: null }; lab.saveArchive(list); }
      }
    }
    if (todo.length) render();
    document.body.dataset.accuracy = "1";
  }
  render();
  fillAccuracy();
})();
