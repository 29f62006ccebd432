// dicelab web lab: what every page's script shares (base.html loads this first).
"use strict";
const lab = (function () {
  const $ = (id) => document.getElementById(id);
  const pct = (p, digits = 1) => (100 * p).toFixed(digits) + "%";

  // one call to the JSON API; `token` (when set) opens the game. Throws an Error with the server's message.
  async function api(method, url, body, token) {
    const headers = { "Content-Type": "application/json" };
    if (token) headers["X-Game-Token"] = token;
    const r = await fetch(url, { method, headers, body: body ? JSON.stringify(body) : undefined });
    let data = null;
    try { data = await r.json(); } catch (e) { data = null; }
    if (!r.ok) {
      let msg = data && data.detail ? data.detail : r.statusText;
      if (Array.isArray(msg)) msg = msg.map((d) => (d.loc || []).slice(-1)[0] + ": " + d.msg).join("; ");
      throw new Error(msg);
    }
    return data;
  }

  // add an entry to the move log and keep the newest move in view
  function appendLog(li) {
    $("log").appendChild(li);
    $("log").scrollTop = $("log").scrollHeight;
  }

  // back from the board to the setup form (the "New game" button)
  function showSetup() {
    history.replaceState(null, "", location.pathname);
    $("board").hidden = true;
    $("setup").hidden = false;
  }

  // the coach's value of `action` (as the game spells it: "roll", {"target": 25}, ...), or null
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  function coachValue(coach, action) {
    if (!coach || !coach.values) return null;
    const v = coach.values.find((x) => same(x.action, action));
    return v ? v.value : null;
  }

  // an action as people read it: "roll", "target 25", "bid 3 x 5", "dice 4"
  function actionText(a) {
    if (typeof a === "string") return a;
    if (a && typeof a === "object") return Object.entries(a).map(([k, v]) => k + " " + (Array.isArray(v) ? v.join(" \u00d7 ") : v)).join(", ");
    return String(a);
  }

  return { $, pct, api, appendLog, showSetup, coachValue, actionText, same };
})();
