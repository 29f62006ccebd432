// dicelab web lab: what every page's script shares (base.html loads this first): the API call,
// SVG dice, the step-by-step reveal of the bots' moves, keyboard shortcuts, busy controls and the
// navigation menu. No page rolls dice: the server does; the pages only show what it answered.
"use strict";
const lab = (function () {
  const $ = (id) => document.getElementById(id);
  // one format for every coach number: a percentage with one decimal ("54.3%")
  const pct = (p) => (p === null || p === undefined || Number.isNaN(p) ? "\u2013" : (100 * p).toFixed(1) + "%");

  // ------------------------------------------------------------------ errors as sentences
  // (the server words every refusal, the request checks' findings included: dicelab.web.messages)
  function sentence(s) {
    s = String(s || "").trim();
    if (!s) return "Something went wrong; please try again.";
    s = s.charAt(0).toUpperCase() + s.slice(1);
    return /[.!?]$/.test(s) ? s : s + ".";
  }

  // one call to the JSON API; `token` (when set) opens the game. Throws an Error whose message is a sentence.
  // Starting a game (POST /api/games) shows the Start button busy until the answer, carries an
  // Idempotency-Key (the server makes one game of a repeated start) and refuses a second start
  // while one is pending (see the setup form's guard below).
  async function api(method, url, body, token) {
    if (method === "POST" && url === "/api/games") return startOnce(() => send(method, url, body, token));
    return send(method, url, body, token);
  }
  let starting = null;  // the pending game start, if any
  async function startOnce(run) {
    if (starting) return starting;
    const b = $("start"), label = b ? b.textContent : "";
    if (b) { b.disabled = true; b.setAttribute("aria-busy", "true"); b.textContent = "Starting\u2026"; }
    startKey = (window.crypto && crypto.randomUUID) ? crypto.randomUUID() : String(Date.now()) + Math.random();
    starting = run();
    try { return await starting; } finally {
      starting = null; startKey = null;
      if (b) { b.disabled = false; b.removeAttribute("aria-busy"); b.textContent = label; }
    }
  }
  let startKey = null;
  // a second submit of the setup form while a start is pending does nothing (runs before the page's own handler)
  if ($("setup-form")) $("setup-form").addEventListener("submit", (e) => {
    if (starting) { e.preventDefault(); e.stopImmediatePropagation(); }
  }, true);
  const SHED_TRIES = 8;  // sends in all while the server sheds load: about 7 s at its 1 s Retry-After
  async function send(method, url, body, token) {
    const headers = { "Content-Type": "application/json" };
    if (token) headers["X-Game-Token"] = token;
    if (startKey && method === "POST" && url === "/api/games") headers["Idempotency-Key"] = startKey;
    let r;
    for (let tries = 1; ; tries++) {
      try {
        r = await fetch(url, { method, headers, body: body ? JSON.stringify(body) : undefined });
      } catch (e) {
        throw new Error("The lab did not answer. Is the server still running?");
      }
      // turned away by the server's admission limit before any work (a busy moment): send it again
      // after Retry-After, as the server asks, a few times before saying so
      if (r.status !== 503 || !r.headers.get("X-Dicelab-Shed") || tries >= SHED_TRIES) break;
      const wait = Math.min(5, Math.max(0.2, Number(r.headers.get("Retry-After")) || 1));
      await new Promise((done) => setTimeout(done, 1000 * wait));
    }
    let data = null;
    try { data = await r.json(); } catch (e) { data = null; }
    if (!r.ok) {
      const d = data && data.detail ? data.detail : r.statusText;
      throw new Error(sentence(d));
    }
    return data;
  }

  // ------------------------------------------------------------------ the move log
  function appendLog(li) {
    $("log").appendChild(li);
    $("log").scrollTop = $("log").scrollHeight;
  }
  function logLine(text, cls) {
    const li = document.createElement("li");
    if (cls) li.className = cls;
    li.textContent = text;
    appendLog(li);
    return li;
  }

  // back from the board to the setup form (the "New game" button)
  function showSetup() {
    history.replaceState(null, "", location.pathname + location.search);
    $("board").hidden = true;
    $("setup").hidden = false;
    const first = $("setup").querySelector("input, select, button");
    if (first) first.focus();
  }
  function showBoard(focusId) {
    const was = $("board").hidden;
    $("setup").hidden = true;
    $("board").hidden = false;
    // the setup form is long: from its scroll position to the board's top, so the banner, the players
    // and the move buttons share a short screen (200 % zoom); the focus then moves without a jump
    if (was) $("board").scrollIntoView({ block: "start" });
    if (focusId && $(focusId)) { $(focusId).focus({ preventScroll: true }); keepInView(); }
  }

  // the coach's value of `action` (as the game spells it: "roll", {"target": 25}, ...), or null
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  function coachValue(coach, action) {
    if (!coach || !coach.values) return null;
    const v = coach.values.find((x) => same(x.action, action));
    return v ? v.value : null;
  }

  // an action as people read it: "roll", "target 25", "bid 3 × 5", "dice 4"
  function actionText(a) {
    if (typeof a === "string") return a;
    if (a && typeof a === "object") return Object.entries(a).map(([k, v]) => k + " " + (Array.isArray(v) ? v.join(" \u00d7 ") : v)).join(", ");
    return String(a);
  }

  // a bot's name for people, from the setup form's options (value = spec, text = name)
  function botName(spec) {
    const sel = $("opponent");
    const opt = sel ? [...sel.options].find((o) => o.value === spec) : null;
    return opt ? (opt.dataset.level || opt.textContent.trim()) : "Bot";
  }
  // the setup form's line under the bot choice: the chosen bot's description
  function describeBots() {
    const sel = $("opponent"), out = $("bot-about");
    if (!sel || !out) return;
    const show = () => { const o = sel.options[sel.selectedIndex]; out.textContent = o ? o.dataset.description || "" : ""; };
    sel.addEventListener("change", show);
    show();
  }

  // ------------------------------------------------------------------ SVG dice
  const SVG = "http://www.w3.org/2000/svg";
  const PIPS = { 1: [[50, 50]], 2: [[27, 27], [73, 73]], 3: [[27, 27], [50, 50], [73, 73]],
    4: [[27, 27], [73, 27], [27, 73], [73, 73]], 5: [[27, 27], [73, 27], [50, 50], [27, 73], [73, 73]],
    6: [[27, 24], [73, 24], [27, 50], [73, 50], [27, 76], [73, 76]] };
  // an SVG element with attributes (and text, when given): for the dice and every page's plots
  function svgEl(name, attrs, text) {
    const el = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, v);
    if (text !== undefined) el.textContent = text;
    return el;
  }
  // one die as an SVG image: pips for faces 1-6, the number for bigger dice; a coin for Piglet
  function die(face, opts = {}) {
    const s = svgEl("svg", { viewBox: "0 0 100 100", role: "img", class: "die" + (opts.owner ? " die-" + opts.owner : "") +
      (opts.small ? " small" : "") + (opts.mark ? " mark" : "") });
    const title = svgEl("title");
    if (opts.coin) {
      title.textContent = face ? "heads" : "tails";
      s.appendChild(title);
      s.appendChild(svgEl("circle", { cx: 50, cy: 50, r: 44, class: "face" }));
      const t = svgEl("text", { x: 50, y: 64, "text-anchor": "middle", class: "num" });
      t.textContent = face ? "H" : "T";
      s.appendChild(t);
    } else {
      title.textContent = (opts.label || "die showing") + " " + face;
      s.appendChild(title);
      s.appendChild(svgEl("rect", { x: 5, y: 5, width: 90, height: 90, rx: 16, class: "face" }));
      if (PIPS[face] && !opts.numbers) {
        PIPS[face].forEach(([x, y]) => s.appendChild(svgEl("circle", { cx: x, cy: y, r: 9, class: "pip" + (face === 1 ? " one" : "") })));
      } else {
        const t = svgEl("text", { x: 50, y: 66, "text-anchor": "middle", class: "num" });
        t.textContent = String(face);
        s.appendChild(t);
      }
    }
    s.setAttribute("aria-label", title.textContent);
    if (opts.roll && !reducedMotion()) s.classList.add("rolling");
    return s;
  }
  // dice faces into `box` (replacing what it showed unless `add`); `opts` as for die()
  function showDice(box, faces, opts = {}) {
    if (!opts.add) box.textContent = "";
    (faces || []).forEach((f) => box.appendChild(die(f, opts)));
  }
  const reducedMotion = () => window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;

  // ------------------------------------------------------------------ revealing the bots' moves
  // The time between two revealed moves: ?reveal=MS in the page's address, or localStorage
  // "dicelab-reveal-ms" (tests set 0: instant), else half a second.
  function revealDelay() {
    const q = new URLSearchParams(location.search).get("reveal");
    let v = q;
    if (v === null) { try { v = window.localStorage.getItem("dicelab-reveal-ms"); } catch (e) { v = null; } }
    return v !== null && /^\d{1,4}$/.test(v) ? parseInt(v, 10) : 500;
  }
  let skipNow = null;      // resolves the current pause early (the Skip button, Escape, any game key)
  let revealing = false;
  const sleep = (ms) => new Promise((resolve) => {
    const t = setTimeout(() => { skipNow = null; resolve(); }, ms);
    skipNow = () => { clearTimeout(t); skipNow = null; resolve(); };
  });
  let skipAll = false;
  function skip() {
    if (!revealing) return false;
    skipAll = true;
    if (skipNow) skipNow();
    return true;
  }
  // the banner above the board: who is to move and what just happened. It is the board's one live
  // region: each event is announced once (the same words again are not written, so not re-announced).
  function banner(text, state) {
    const b = $("turn-banner");
    if (!b) return;
    if ($("banner-text").textContent !== text) $("banner-text").textContent = text;
    b.dataset.state = state || "you";
    keepInView();
  }
  // the control that has the focus stays in view while the board changes around it (dice trays
  // grow, lines appear): at 200 % zoom the sticky banner, the dice and the focused button share the screen
  function keepInView() {
    const el = document.activeElement;
    if (el && el !== document.body && $("board") && $("board").contains(el)) el.scrollIntoView({ block: "nearest" });
  }
  // How long the result of your own move ("You banked 24") stays in the banner before the bots'
  // turn is shown: at least 1.5 s (Esc skips it), none when the reveal is instant (?reveal=0).
  const HOLD_MS = 1500;
  const holdDelay = () => (revealDelay() === 0 ? 0 : Math.max(HOLD_MS, revealDelay()));
  // Show `steps` ([{text, show()}]) one at a time under "Bot's turn", then `final` ("Bot banked 23 —
  // your turn"). Each step's text goes to the banner (announced) and its show() updates the board.
  // `mine`: the result of your own move, shown (and announced) first and held for holdDelay().
  async function reveal(steps, final, opening, mine) {
    if (mine) banner(mine, "you");
    if (!steps.length) { if (final) banner(final, "you"); return; }
    const ms = revealDelay();
    revealing = true; skipAll = ms === 0;
    const b = $("turn-banner");
    if ($("skip")) $("skip").hidden = skipAll;
    if (mine && !skipAll) {
      b.dataset.step = "mine";
      await sleep(holdDelay());
    }
    banner(opening || "Bot\u2019s turn", "bot");
    b.dataset.step = "0";
    b.dataset.steps = String(steps.length);
    if (!skipAll) await sleep(Math.min(ms, 400));
    for (let n = 0; n < steps.length; n++) {
      const lastStep = n === steps.length - 1;
      steps[n].show();
      banner(lastStep && final ? final : steps[n].text, "bot");  // the last move says whose turn it is now: one announcement
      b.dataset.step = String(n + 1);
      if (!skipAll && !lastStep) await sleep(ms);
    }
    if (!skipAll) await sleep(ms);
    revealing = false; skipNow = null;
    if ($("skip")) $("skip").hidden = true;
    banner(final || steps[steps.length - 1].text, "you");
    b.dataset.step = "done";
  }

  // ------------------------------------------------------------------ busy controls and keys
  // While a request or a reveal runs, the move controls say aria-disabled (so focus stays on them).
  function setOff(el, off) { if (el) el.setAttribute("aria-disabled", off ? "true" : "false"); }
  const isOff = (el) => !el || el.getAttribute("aria-disabled") === "true";
  // a move control: runs fn on click unless it is switched off
  function control(id, fn) {
    $(id).addEventListener("click", (e) => { if (isOff($(id))) { e.preventDefault(); return; } fn(); });
  }
  // Keyboard shortcuts while the board is shown: `map` from a key ("r", " ", "h", "1", ...) to a
  // control id or a function. Letters do nothing while typing in a field; Space on a move button
  // is the game's primary action (map[" "]); during a reveal any of these keys (or Escape) skips it.
  function keys(map) {
    const run = (what) => {
      if (typeof what === "function") return what();
      const el = $(what);
      if (el && !isOff(el)) el.click();
    };
    document.addEventListener("keydown", (e) => {
      if (e.ctrlKey || e.metaKey || e.altKey || !$("board") || $("board").hidden) return;
      const t = e.target;
      const k = e.key.length === 1 ? e.key.toLowerCase() : e.key;
      // in a number field only letters are shortcuts (digits, Enter, arrows and Space stay the field's)
      const typing = t && t.matches && (t.matches("select, textarea, input:not([type=number])") ||
        (t.matches("input[type=number]") && !/^[a-z?]$/.test(k)));
      if (k === "Escape") { if (skip()) e.preventDefault(); return; }
      if (typing || !(k in map)) return;
      // Space keeps its own meaning on links and on buttons other than the moves' (New game, Skip, Menu)
      if (k === " " && t.matches && t.matches("a, summary, button") && !t.closest(".actions, #target-form, #bid-form")) return;
      e.preventDefault();
      if (skip()) return;
      if (!e.repeat) run(map[k]);
    });
    // Space on a button would click it on key-up: the keydown above already acted
    document.addEventListener("keyup", (e) => {
      if (e.key === " " && map[" "] && $("board") && !$("board").hidden && e.target.matches && e.target.matches("button") &&
          e.target.closest(".actions, #target-form, #bid-form")) e.preventDefault();
    });
  }

  // ------------------------------------------------------------------ hints on demand
  // The Hint button (and "?"): the coach's view for your seat now, from the server, whether or not
  // the game has the coach on. The next move says it followed a hint (the study records it).
  let hinted = false;
  function hintText(c) {
    if (!c || !c.values || !c.values.length) return "No decision to make here: this move is forced.";
    const vals = c.values.filter((v) => typeof v.value === "number").slice().sort((a, b) => b.value - a.value);
    const top = vals.slice(0, 3).map((v) => actionText(v.action) + " " + pct(v.value)).join(", ") + (vals.length > 3 ? " and more" : "");
    const best = c.best !== null && c.best !== undefined ? "the best move is " + actionText(c.best) + ". " : "";
    // moves of an equilibrium's mix are worth the same: none of them is "the best"
    if (c.equal && c.equal.length > 1)
      return "Hint: these moves are worth the same (" + pct(coachValue(c, c.equal[0])) + " each): " + c.equal.map(actionText).join(", ") +
        ". Mixing them keeps the other player from reading your hand.";
    if (c.kind === "win probability") return "Hint: " + best + "Your chance to win after each move: " + top + ".";
    if (c.kind === "chance to win the round") return "Hint: " + best + "Your chance to win this round after each move: " + top + ".";
    if (c.kind && c.kind.startsWith("chance the bid holds")) {
      // the call, and for each face the highest bid more likely than not to hold (a low bid your own
      // dice already make sure of says nothing)
      const call = c.values.find((v) => v.action === "call");
      const byFace = {};
      c.values.filter((v) => v.action && v.action.bid && v.value >= 0.5).forEach((v) => {
        const f = v.action.bid[1];
        if (!byFace[f] || byFace[f].action.bid[0] < v.action.bid[0]) byFace[f] = v;
      });
      const high = Object.values(byFace).sort((a, b) => b.action.bid[0] - a.action.bid[0] || b.value - a.value).slice(0, 3);
      return "Hint, from your own dice: " + (call ? "a call wins with " + pct(call.value) + " (the chance the bid is a lie); " : "") +
        (high.length ? "the highest bids more likely than not to hold: " + high.map((v) => actionText(v.action) + " " + pct(v.value)).join(", ")
          : "no raise is more likely than not to hold") + ".";
    }
    return "Hint: " + best + (c.kind ? c.kind.charAt(0).toUpperCase() + c.kind.slice(1) : "Value") + " of each move: " + top + ".";
  }
  function hints(getGame, getToken) {
    const b = $("hint"), box = $("hint-box");
    if (!b || !box) return () => {};
    const ask = async () => {
      const g = getGame();
      if (!g || g.status !== "playing" || revealing || isOff(b)) return;
      setOff(b, true);
      try {
        const r = await api("GET", "/api/games/" + g.id + "/hint", null, getToken());
        hinted = true;
        box.textContent = hintText(r.coach);
      } catch (e) { box.textContent = e.message; }
      box.hidden = false;
      setOff(b, false);
    };
    b.addEventListener("click", ask);
    return ask;
  }
  // whether a move record followed a hint (its events say so)
  const hintedRecord = (rec) => (rec.events || []).some((e) => e && e.hint === true);
  // whether the move about to be sent follows a hint (and forget the hint: it was for this position)
  function takeHint() {
    const h = hinted;
    hinted = false;
    if ($("hint-box")) $("hint-box").hidden = true;
    return h;
  }

  // ------------------------------------------------------------------ my games, review, rematch
  // "My games": the games this browser played, kept in localStorage ("dicelab-games", newest
  // first, at most MAX_KEPT), each with its token (to reopen its review), its read-only share id
  // and the settings a rematch repeats.
  const ARCHIVE = "dicelab-games", REMATCH = "dicelab-rematch", MAX_KEPT = 200;
  function archive() {
    try { const a = JSON.parse(window.localStorage.getItem(ARCHIVE) || "[]"); return Array.isArray(a) ? a : []; } catch (e) { return []; }
  }
  function saveArchive(list) {
    try { window.localStorage.setItem(ARCHIVE, JSON.stringify(list.slice(0, MAX_KEPT))); } catch (e) { /* storage full or off */ }
  }
  // the settings of `game` (a public state or a review) for a rematch
  const settingsOf = (game) => ({ game: game.game, rules: game.rules || {}, opponents: game.opponents || [],
    human_first: game.human_seat === 0, coach: !!game.coach });
  function resultOf(game) {
    if (game.status === "playing") return "playing";
    if (game.status !== "finished") return game.status;
    const r = game.returns ? game.returns[game.human_seat] : (game.winner === game.human_seat ? 1 : 0);
    return r >= 1 ? "won" : r > 0 ? "shared" : "lost";
  }
  // the token this browser keeps for game `id` (this tab's session, else My games), or null
  function tokenOf(id) {
    let t = null;
    try { t = window.sessionStorage.getItem("dicelab-token-" + id); } catch (e) { t = null; }
    if (t) return t;
    const e = archive().find((x) => x.id === id);
    return e && e.token ? e.token : null;
  }
  // A game's address is its page with #<share id> (the game's id, a dot, the read-only signature:
  // dicelab.web.service.share_id), so the address copied into another browser can offer the
  // read-only view there; the id alone (older addresses) still reopens the game.
  const gameId = () => decodeURIComponent(location.hash.slice(1)).split(".")[0];
  // keep a new game's token for this tab and put the game in the address
  function remember(r) {
    try { window.sessionStorage.setItem("dicelab-token-" + r.id, r.token); } catch (e) { /* My games keeps it too */ }
    const shared = r.state && r.state.share_id;
    history.replaceState(null, "", location.search + "#" + (shared || r.id));
  }
  // The game named in the page's address when this browser holds its token: {game, token}, else
  // null. Every game page calls it on load, so a game's URL reopens the game, not the setup; in a
  // browser without the token the setup form says why in one sentence and offers the read-only view.
  async function resumeGame() {
    const id = gameId();
    if (!id) return null;
    const token = tokenOf(id);
    if (!token) { elsewhere(); return null; }
    try { return { game: await api("GET", "/api/games/" + encodeURIComponent(id), undefined, token), token }; } catch (e) {
      elsewhere(e.message);
      return null;
    }
  }
  function elsewhere(error) {
    const setup = $("setup");
    if (!setup || $("elsewhere")) return;
    const sid = decodeURIComponent(location.hash.slice(1));
    const p = document.createElement("p");
    p.id = "elsewhere"; p.className = "note";
    if (error) p.textContent = "This game could not be reopened: " + error + " ";
    else p.textContent = "This game is being played in another browser, which keeps its key, so only that browser can move in it" +
      (sid.includes(".") ? "; you can follow it here read-only: " : "; ask its player for the game's share link to follow it. ");
    if (!error && sid.includes(".")) {
      const a = document.createElement("a");
      a.id = "elsewhere-share"; a.href = "/share/" + encodeURIComponent(sid); a.textContent = "open the read-only view";
      p.append(a, ".");
    }
    const why = document.createElement("span");
    why.textContent = " Or start a game of your own below.";
    p.appendChild(why);
    setup.prepend(p);
  }
  let current = null;  // the game the page shows (for the Rematch button)
  // Record `game` in My games and show its Review and Rematch buttons once it is over. Every game
  // page calls this after each render.
  function track(game, token) {
    current = game;
    if (!game || !game.id) return;
    const list = archive();
    const old = list.find((x) => x.id === game.id);
    const entry = { ...(old || { started: new Date().toISOString() }), id: game.id, game: game.game, title: game.title,
      result: resultOf(game), moves: game.version, share_id: game.share_id || (old && old.share_id) || null,
      token: token || (old && old.token) || null, settings: settingsOf(game) };
    saveArchive([entry, ...list.filter((x) => x.id !== game.id)]);
    // the game's own sentence while its bot plays a fallback (a trained strategy not ready yet)
    let note = $("game-notice");
    if (game.notice && !note && $("board")) {
      note = document.createElement("p");
      note.id = "game-notice"; note.className = "hint-line game-notice";
      $("board").prepend(note);
    }
    if (note) { note.textContent = game.notice || ""; note.hidden = !game.notice; }
    const over = game.status !== "playing";
    if ($("review-link")) { $("review-link").hidden = !over; $("review-link").href = "/review/" + encodeURIComponent(game.id); }
    if ($("rematch")) $("rematch").hidden = !over;
  }
  // Keep a finished game's accuracy (its review's summary: dicelab.core.accuracy) with its entry in
  // My games, so the list shows it without asking the server again.
  function noteAccuracy(rv) {
    if (!rv || !rv.id || rv.status !== "finished") return;
    const list = archive();
    const e = list.find((x) => x.id === rv.id);
    if (!e) return;
    const s = rv.summary;
    e.accuracy = s && typeof s.accuracy === "number" ? { accuracy: s.accuracy, inaccuracies: s.inaccuracies,
      mistakes: s.mistakes, blunders: s.blunders } : { accuracy: null };
    saveArchive(list);
  }
  // Start a game with `settings` (settingsOf): on its own page by filling in the setup form and
  // submitting it (the page's own start), else by going to that page, which does so on load.
  function rematch(settings) {
    const form = $("setup-form");
    const here = form && location.pathname === "/play/" + settings.game;
    if (!here) {
      try { window.sessionStorage.setItem(REMATCH, JSON.stringify(settings)); } catch (e) { /* nothing to carry */ }
      location.href = "/play/" + encodeURIComponent(settings.game);
      return;
    }
    const field = (name) => $(name) || form.querySelector("[data-rule='" + name + "']");
    for (const [name, value] of Object.entries(settings.rules || {})) {
      const el = field(name);
      if (el && value !== null && value !== undefined) el.value = String(value);
    }
    if ($("opponent") && settings.opponents && settings.opponents.length) $("opponent").value = settings.opponents[0];
    if ($("first")) $("first").value = settings.human_first ? "human" : "bot";
    if ($("coach")) $("coach").checked = !!settings.coach;
    if ($("study")) { $("study").checked = false; $("study").dispatchEvent(new Event("change")); }
    if ($("board")) $("board").hidden = true;
    if ($("setup")) $("setup").hidden = false;
    form.requestSubmit();
  }
  if ($("rematch")) $("rematch").addEventListener("click", () => { if (current) rematch(settingsOf(current)); });
  // a rematch asked for on another page (a review, My games): start it once this page's script is ready
  window.addEventListener("load", () => {
    let pending = null;
    try { pending = JSON.parse(window.sessionStorage.getItem(REMATCH) || "null"); window.sessionStorage.removeItem(REMATCH); } catch (e) { pending = null; }
    if (pending && pending.game && location.pathname === "/play/" + pending.game && $("setup-form")) rematch(pending);
  });

  // ------------------------------------------------------------------ page furniture
  function setupNav() {
    const b = $("nav-toggle"), nav = $("nav");
    if (!b || !nav) return;
    b.addEventListener("click", () => {
      const open = b.getAttribute("aria-expanded") !== "true";
      b.setAttribute("aria-expanded", open ? "true" : "false");
      nav.classList.toggle("open", open);
    });
  }
  setupNav();
  describeBots();
  if ($("skip")) $("skip").addEventListener("click", () => skip());

  return { $, pct, api, svgEl, appendLog, logLine, showSetup, showBoard, coachValue, actionText, same, sentence,
    botName, die, showDice, reveal, banner, revealDelay, skip, setOff, isOff, control, keys, hints, hintText, takeHint, hinted: hintedRecord,
    archive, saveArchive, track, rematch, settingsOf, resultOf, tokenOf, resumeGame, remember, gameId, noteAccuracy,
    get revealing() { return revealing; } };
})();
