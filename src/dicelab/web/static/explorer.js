// dicelab web lab: the strategy explorer (plots are rendered on the server).
"use strict";
(function () {
  const { $ } = lab;
  function query(form) {
    const p = new URLSearchParams();
    for (const [k, v] of new FormData(form).entries()) if (v !== "") p.set(k, v);
    return p;
  }
  // a plot that cannot be drawn now (503: the explorer's queue is full) says so instead of a broken image
  function plot(id, url) {
    const img = $(id);
    img.onerror = () => { img.alt = "no plot: the explorer is busy (or refused the input); try again in a few seconds"; };
    img.src = url; img.hidden = false;
  }
  function showRules(ev) {
    if (ev) ev.preventDefault();
    const p = query($("rules-form"));
    const k = p.get("k") || "0";
    p.delete("k");
    plot("plot-boundary", "/explorer/plot/pig-boundary.png?" + p);
    plot("plot-winprob", "/explorer/plot/pig-winprob.png?" + p + "&k=" + k);
    $("json-pig").href = "/api/explorer/pig?" + p;
  }
  async function getJSON(url) {
    const r = await fetch(url);
    const d = await r.json();
    if (!r.ok) throw new Error((typeof d.detail === "string" ? d.detail : JSON.stringify(d.detail))
                               + (r.status === 503 ? " (busy: try again in " + (r.headers.get("Retry-After") || "a few") + " s)" : ""));
    return d;
  }
  function rulesParams() { const p = query($("rules-form")); p.delete("k"); return p; }
  $("rules-form").addEventListener("submit", showRules);
  showRules();
  if ($("eval-form")) $("eval-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const p = rulesParams();
    for (const [k, v] of new FormData($("eval-form")).entries()) p.set(k, v);
    try {
      $("eval-out").textContent = JSON.stringify(await getJSON("/api/explorer/evaluate?" + p), null, 2);
      plot("eval-plot", "/explorer/plot/evaluate.png?" + p);
      $("eval-json").href = "/api/explorer/evaluate?" + p; $("eval-json").hidden = false;
    } catch (e) { $("eval-out").textContent = "error: " + e.message; }
  });
  if ($("tour-form")) $("tour-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const p = rulesParams();
    p.set("specs", new FormData($("tour-form")).get("specs"));
    try {
      $("tour-out").textContent = JSON.stringify(await getJSON("/api/explorer/tournament?" + p), null, 2);
      plot("tour-plot", "/explorer/plot/tournament.png?" + p);
      $("tour-json").href = "/api/explorer/tournament?" + p; $("tour-json").hidden = false;
    } catch (e) { $("tour-out").textContent = "error: " + e.message; }
  });
  if ($("simpig-form")) $("simpig-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const p = query($("simpig-form"));
    $("simpig-out").textContent = "computing...";
    try {
      const d = await getJSON("/api/explorer/simpig-curve?" + p);
      $("simpig-out").textContent = "local minima: " + d.local_minima.join(", ");
      plot("simpig-plot", "/explorer/plot/simpig-curve.png?" + p);
      $("simpig-json").href = "/api/explorer/simpig-curve?" + p; $("simpig-json").hidden = false;
    } catch (e) { $("simpig-out").textContent = "error: " + e.message; }
  });
})();
