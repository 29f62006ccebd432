// dicelab web lab: the strategy explorer (plots are rendered on the server).
"use strict";
(function () {
  const { $ } = lab;
  function query(form) {
    const p = new URLSearchParams();
    for (const [k, v] of new FormData(form).entries()) if (v !== "") p.set(k, v);
    return p;
  }
  function showRules(ev) {
    if (ev) ev.preventDefault();
    const p = query($("rules-form"));
    const k = p.get("k") || "0";
    p.delete("k");
    $("plot-boundary").src = "/explorer/plot/pig-boundary.png?" + p;
    $("plot-winprob").src = "/explorer/plot/pig-winprob.png?" + p + "&k=" + k;
    $("json-pig").href = "/api/explorer/pig?" + p;
  }
  async function getJSON(url) {
    const r = await fetch(url);
    const d = await r.json();
    if (!r.ok) throw new Error(typeof d.detail === "string" ? d.detail : JSON.stringify(d.detail));
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
      $("eval-plot").src = "/explorer/plot/evaluate.png?" + p; $("eval-plot").hidden = false;
      $("eval-json").href = "/api/explorer/evaluate?" + p; $("eval-json").hidden = false;
    } catch (e) { $("eval-out").textContent = "error: " + e.message; }
  });
  if ($("tour-form")) $("tour-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const p = rulesParams();
    p.set("specs", new FormData($("tour-form")).get("specs"));
    try {
      $("tour-out").textContent = JSON.stringify(await getJSON("/api/explorer/tournament?" + p), null, 2);
      $("tour-plot").src = "/explorer/plot/tournament.png?" + p; $("tour-plot").hidden = false;
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
      $("simpig-plot").src = "/explorer/plot/simpig-curve.png?" + p; $("simpig-plot").hidden = false;
      $("simpig-json").href = "/api/explorer/simpig-curve?" + p; $("simpig-json").hidden = false;
    } catch (e) { $("simpig-out").textContent = "error: " + e.message; }
  });
})();
