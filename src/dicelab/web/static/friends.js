// dicelab web lab: games between people (issue 22). Loaded after common.js on every page; adds to
// `lab`: the invite block on a game's setup form, the seat links, the panel of who sits where, the
// other people's moves as they happen (Server-Sent Events read with fetch, so the seat's token goes
// in a header, never in an address; polling when a stream cannot be kept open) and the rematch of
// the same people. Each game page registers how it shows a batch of moves (lab.onRemote) and asks
// lab.myTurn / lab.seatName; nothing here knows a game's rules.
"use strict";
(function () {
  const { $ } = lab;
  const store = window.sessionStorage;
  const keep = (k, v) => { try { store.setItem(k, v); } catch (e) { /* storage off: the link still works in this tab */ } };
  const read = (k) => { try { return store.getItem(k); } catch (e) { return null; } };

  // ------------------------------------------------------------------ a seat link: #seat=<game id>.<token>
  // The part after # never reaches the server. The token is kept in this tab (and in My games once
  // the page tracks the game); the address keeps only the game's id. (A game's own address,
  // #<share id>, is read by common.js: it opens nothing but the read-only view.)
  const link = /^#seat=([\w-]{8,40})\.([\w-]{16,100})$/.exec(location.hash);
  if (link) {
    keep("dicelab-token-" + link[1], link[2]);
    history.replaceState(null, "", location.pathname + location.search + "#" + link[1]);
  }

  // ------------------------------------------------------------------ who sits where
  const people = (game) => (game && Array.isArray(game.seats) ? game.seats : null);
  // a seat's name for people: You, Your friend (Friend 1, 2, ... with several), Bot, or the page's own
  function seatName(game, seat, fallback) {
    const seats = people(game);
    if (!seats) return fallback !== undefined ? fallback : (seat === game.human_seat ? "You" : "Bot");
    const s = seats[seat];
    if (!s) return "Seat " + (seat + 1);
    if (s.kind === "you") return "You";
    const others = seats.filter((x) => x.kind === "person");
    if (s.kind === "person") {
      const name = others.length > 1 ? "Friend " + (others.indexOf(s) + 1) : "Your friend";
      return s.handed ? name + "\u2019s bot" : name;
    }
    return "Bot" + (seats.filter((x) => x.kind === "bot").length > 1 ? " " + (seat + 1) : "");
  }
  // whether the page may offer a move now: the reader's seat is to move, its person plays it, and
  // it has not made its secret choice yet
  function myTurn(game) {
    if (!game || game.status !== "playing") return false;
    const seats = people(game);
    const mine = seats ? seats[game.human_seat] : null;
    return game.to_move.includes(game.human_seat) && (!mine || (!mine.handed && !mine.chosen)) &&
      (game.legal_actions ? game.legal_actions.length > 0 : true);
  }
  // the line a page shows while it is not the reader's move
  function waitingText(game) {
    const seats = people(game);
    if (!seats || game.status !== "playing") return "";
    const me = seats[game.human_seat];
    if (me.handed) return "A bot took over your seat after you were idle; you can follow the game.";
    const waiting = game.to_move.filter((s) => s !== game.human_seat && seats[s].kind === "person" && !seats[s].chosen);
    if (me.chosen && game.your_choice !== undefined)
      return "You chose " + lab.actionText(game.your_choice) + " (secret until everybody has chosen). Waiting for " +
        waiting.map((s) => seatName(game, s).replace(/^Your f/, "your f")).join(" and ") + ".";
    if (waiting.length) return "Waiting for " + waiting.map((s) => seatName(game, s).replace(/^Your f/, "your f")).join(" and ") + " to move.";
    return "";
  }
  const until = (cond) => new Promise((resolve) => {
    const check = () => (cond() ? resolve() : setTimeout(check, 40));
    check();
  });

  // ------------------------------------------------------------------ the invite block on a setup form
  function seatsOnForm(form) {
    const f = $("players") || form.querySelector("[data-rule='players']");
    const n = f ? parseInt(f.value, 10) : 2;
    return n >= 2 && n <= 4 ? n : 2;
  }
  function inviteBlock() {
    const form = $("setup-form");
    if (!form || $("people")) return;
    const fs = document.createElement("fieldset");
    fs.id = "invite";
    fs.className = "invite";
    fs.innerHTML = "<legend>Invite a friend</legend>" +
      "<label>Who plays <select id='people'><option value='1'>me against the bots</option>" +
      "<option value='2'>me and a friend</option><option value='3'>me and two friends</option>" +
      "<option value='4'>me and three friends</option></select></label>" +
      "<label>If a friend does not move <select id='idle'><option value=''>wait for them</option>" +
      "<option value='60'>a bot takes their seat after 1 minute</option>" +
      "<option value='300'>a bot takes their seat after 5 minutes</option>" +
      "<option value='3600'>a bot takes their seat after an hour</option></select></label>" +
      "<p class='hint-line' id='invite-about'>You get a link for each friend's seat: whoever opens it plays that seat and sees only what it may see. The bot you pick plays any other seat.</p>";
    // before the row that holds the Start button (a direct child of the form, as insertBefore needs)
    const submit = form.querySelector("button[type=submit]");
    let at = submit;
    while (at && at.parentNode !== form) at = at.parentNode;
    form.insertBefore(fs, at);
    const fit = () => {
      const n = seatsOnForm(form);
      [...$("people").options].forEach((o) => { o.disabled = parseInt(o.value, 10) > n; });
      if (parseInt($("people").value, 10) > n) $("people").value = "1";
      $("idle").disabled = $("people").value === "1";
      if ($("study") && $("people").value !== "1" && $("study").checked) {
        $("study").checked = false; $("study").dispatchEvent(new Event("change"));
      }
    };
    form.addEventListener("input", fit);
    form.addEventListener("change", fit);
    fit();
  }
  inviteBlock();
  // The page's own start request gets the invite fields; its answer's seat links are kept in this
  // tab (the creator sends them) and shown on the board.
  const plainApi = lab.api;
  lab.api = async function (method, url, body, token) {
    if (method === "POST" && url === "/api/games" && body && $("people") && $("people").value !== "1") {
      body = { ...body, people: parseInt($("people").value, 10) };
      if ($("idle").value) body.idle_s = parseInt($("idle").value, 10);
      delete body.questionnaire;  // the study records games against bots only
    }
    const r = await plainApi(method, url, body, token);
    if (r && r.invites) keep("dicelab-invites-" + r.id, JSON.stringify(r.invites));
    return r;
  };

  // ------------------------------------------------------------------ the panel of seats on the board
  function panel() {
    let p = $("people-panel");
    if (p || !$("board")) return p;
    p = document.createElement("section");
    p.id = "people-panel";
    p.className = "people";
    p.setAttribute("aria-labelledby", "people-title");
    p.innerHTML = "<h2 id='people-title' class='small-title'>Players</h2><ul id='people-list'></ul>" +
      "<div id='invite-links'></div><p id='people-status' role='status' aria-live='polite'></p>" +
      "<p><button id='people-rematch' type='button' class='secondary' hidden>Rematch with the same people</button> " +
      "<a id='rematch-join' class='button' href='#' hidden>Join the rematch</a></p>";
    const banner = $("turn-banner");
    if (banner && banner.parentNode === $("board")) banner.after(p); else $("board").prepend(p);
    $("people-rematch").addEventListener("click", startRematch);
    return p;
  }
  function copyButton(input) {
    const b = document.createElement("button");
    b.type = "button"; b.className = "secondary small"; b.textContent = "Copy";
    b.setAttribute("aria-label", "Copy " + input.getAttribute("aria-label"));
    b.addEventListener("click", async () => {
      input.select();
      try { await navigator.clipboard.writeText(input.value); b.textContent = "Copied"; } catch (e) {
        try { document.execCommand("copy"); b.textContent = "Copied"; } catch (e2) { b.textContent = "Select and copy"; }
      }
    });
    return b;
  }
  let shownFor = null;
  function showPanel(game) {
    const seats = people(game);
    const p = $("people-panel");
    if (!seats) { if (p) p.hidden = true; return; }
    panel().hidden = false;
    const list = $("people-list");
    list.textContent = "";
    seats.forEach((s) => {
      const li = document.createElement("li");
      let text = "Seat " + (s.seat + 1) + ": " + seatName(game, s.seat);
      if (s.kind === "person") text += s.handed ? " (a bot took the seat: idle too long)" : s.joined ? " (joined)" : " (has not opened the link yet)";
      if (s.kind !== "bot" && s.chosen && game.status === "playing") text += " \u2014 has chosen";
      li.textContent = text;
      li.dataset.seat = String(s.seat);
      list.appendChild(li);
    });
    let invites = [];
    try { invites = JSON.parse(read("dicelab-invites-" + game.id) || "[]"); } catch (e) { invites = []; }
    const box = $("invite-links");
    if (shownFor !== game.id) {
      box.textContent = "";
      invites.forEach((inv) => {
        const row = document.createElement("div");
        row.className = "invite-link";
        const input = document.createElement("input");
        input.type = "text"; input.readOnly = true; input.id = "invite-" + inv.seat;
        input.value = location.origin + inv.link;
        input.setAttribute("aria-label", "link to seat " + (inv.seat + 1));
        const label = document.createElement("label");
        label.htmlFor = input.id; label.textContent = "Send your friend the link to seat " + (inv.seat + 1) + ": ";
        row.append(label, input, copyButton(input));
        box.appendChild(row);
      });
      shownFor = game.id;
    }
    box.hidden = game.status !== "playing" || !invites.length;
    $("people-status").textContent = game.status === "playing" ? waitingText(game) : "";
    const over = game.status !== "playing";
    $("people-rematch").hidden = !over || !!game.rematch_id;
    $("rematch-join").hidden = !over || !game.rematch_id;
    if (game.rematch_id) $("rematch-join").href = "/play/" + encodeURIComponent(game.game) + "#" + game.rematch_id;
    if ($("rematch")) $("rematch").hidden = true;  // the page's own Rematch starts a game against bots
  }

  // ------------------------------------------------------------------ rematch with the same people
  async function startRematch() {
    const g = current, token = g ? lab.tokenOf(g.id) : null;
    if (!g || !token) return;
    try {
      const r = await plainApi("POST", "/api/games/" + g.id + "/rematch", null, token);
      openGame(g.game, r.id, token);
    } catch (e) { $("people-status").textContent = e.message; }
  }
  // the same token opens the person's seat in the rematch
  function openGame(name, id, token) {
    keep("dicelab-token-" + id, token);
    const here = location.pathname === "/play/" + name;
    location.href = "/play/" + encodeURIComponent(name) + "#" + id;
    if (here) location.reload();
  }
  document.addEventListener("click", (e) => {
    const t = e.target;
    if (t && t.id === "rematch-join" && current) {
      e.preventDefault();
      openGame(current.game, current.rematch_id, lab.tokenOf(current.id));
    }
  });

  // ------------------------------------------------------------------ the other people's moves, live
  let handler = null;        // the page's: async (update) => show update.events and update.state
  let following = null;      // {id, stop}
  let queue = Promise.resolve();
  function deliver(update) {
    window.dispatchEvent(new CustomEvent("dicelab-update", { detail: update }));  // for other scripts (and tests)
    queue = queue.then(() => (handler ? handler(update) : null)).catch(() => {});
  }
  function parseBlocks(buf, onData) {
    let i;
    while ((i = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, i);
      buf = buf.slice(i + 2);
      const data = block.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).replace(/^ /, "")).join("\n");
      if (data) { try { onData(JSON.parse(data)); } catch (e) { /* a damaged event: the next one repairs the view */ } }
    }
    return buf;
  }
  // One stream at a time, for the game the page shows: reconnects after a drop (from the version the
  // page has), and after three failed tries in a row polls the game every few seconds instead.
  function follow(game, token) {
    if (following && following.id === game.id) return;
    if (following) following.stop();
    const me = { id: game.id, stopped: false, ctrl: null };
    me.stop = () => { me.stopped = true; if (me.ctrl) me.ctrl.abort(); };
    following = me;
    const after = () => (current && current.id === me.id ? current.version : game.version);
    const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
    (async () => {
      let fails = 0;
      while (!me.stopped && fails < 3) {
        me.ctrl = new AbortController();
        let got = false;
        try {
          const r = await fetch("/api/events/" + encodeURIComponent(me.id) + "?after=" + after(),
            { headers: { "X-Game-Token": token, Accept: "text/event-stream" }, cache: "no-store", signal: me.ctrl.signal });
          if (r.status === 403 || r.status === 404) return;
          if (!r.ok || !r.body) throw new Error("no stream");
          const reader = r.body.getReader(), dec = new TextDecoder();
          let buf = "";
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            buf = parseBlocks(buf + dec.decode(value, { stream: true }), (u) => { got = true; fails = 0; deliver(u); });
          }
        } catch (e) { /* dropped: try again */ }
        if (me.stopped) return;
        if (!got) fails += 1;
        if (fails >= 3) break;  // poll at once: no wait after the last try
        await sleep(Math.min(8000, 500 * 2 ** fails));
      }
      document.body.dataset.following = "polling";
      while (!me.stopped) {  // the fallback: the game's own read, every few seconds
        try {
          const g = await plainApi("GET", "/api/games/" + encodeURIComponent(me.id), undefined, token);
          const from = after();
          deliver({ events: (g.moves || []).filter((m) => m.seq >= from), state: g });
        } catch (e) { /* the lab did not answer: try later */ }
        await sleep(3000);
      }
    })();
  }
  function onRemote(fn) { handler = fn; }
  // Every page calls lab.track(game, token) after each render: the panel follows, and a game
  // between people is followed live.
  const plainTrack = lab.track;
  let current = null;  // the game the page shows
  lab.track = function (game, token) {
    current = game;
    plainTrack(game, token);
    if (!game || !game.id) return;
    showPanel(game);
    if (people(game) && token) follow(game, token);
    else if (following && following.id !== game.id) { following.stop(); following = null; }
  };
  // the page's New game button leaves the game: stop following it
  document.addEventListener("click", (e) => {
    if (e.target && e.target.id === "new-game" && following) { following.stop(); following = null; }
  }, true);

  Object.assign(lab, { seatName, myTurn, waitingText, until, onRemote, people });
})();
