// dicelab web lab: the study page. The data need the researcher key: the page asks for it, keeps it
// in this tab's sessionStorage and sends it in the X-Admin-Key header (never in a URL). The filters
// (game, goal, participant) go in the address, so a reload keeps them.
"use strict";
(function () {
  const { $ } = lab;
  const KEY = "dicelab-admin-key";
  const store = window.sessionStorage;
  const urls = [];  // blob: URLs of the plots shown, freed when the data are reloaded

  async function fetchWithKey(url, key) {
    const r = await fetch(url, { headers: { "X-Admin-Key": key } });
    if (!r.ok) {
      let msg = r.status === 401 ? "The researcher key is needed." : r.status === 403 ? "That is the wrong researcher key." : "";
      if (!msg) {
        try {
          const d = (await r.json()).detail;
          msg = Array.isArray(d) ? "A filter value is not allowed; please choose again from the lists." : lab.sentence(d);
        } catch (e) { msg = "The lab could not open the study's data (" + r.status + "); please try again."; }
      }
      const err = new Error(msg);
      err.status = r.status;
      throw err;
    }
    return r;
  }

  // the plots: fetched with the key, shown from blob: URLs
  async function showPlots(key) {
    for (const img of $("study").querySelectorAll("img[data-src]")) {
      const blob = await (await fetchWithKey(img.dataset.src, key)).blob();
      const url = URL.createObjectURL(blob);
      urls.push(url);
      img.src = url;
    }
  }

  // the export links: a click downloads the file with the key in the header
  function wireDownloads(key) {
    for (const a of $("study").querySelectorAll("a[download]")) {
      a.addEventListener("click", async (ev) => {
        ev.preventDefault();
        try {
          const blob = await (await fetchWithKey(a.getAttribute("href"), key)).blob();
          const url = URL.createObjectURL(blob);
          const tmp = document.createElement("a");
          tmp.href = url;
          tmp.download = a.getAttribute("download");
          document.body.appendChild(tmp);
          tmp.click();
          tmp.remove();
          setTimeout(() => URL.revokeObjectURL(url), 60000);
        } catch (e) { $("key-error").textContent = e.message; }
      });
    }
  }

  // the filters from the form (or the address), empty ones left out
  function filterQuery(form) {
    const p = new URLSearchParams();
    const src = form ? new FormData(form).entries() : new URLSearchParams(location.search).entries();
    for (const [k, v] of src) if (["game", "goal", "participant"].includes(k) && v !== "") p.set(k, v);
    return p.toString();
  }

  function wireFilters(key) {
    const form = $("filter-form");
    if (!form) return;
    const go = (ev) => {
      if (ev) ev.preventDefault();
      const q = filterQuery(form);
      history.replaceState(null, "", "/analysis" + (q ? "?" + q : ""));
      openStudy(key, q);
    };
    form.addEventListener("submit", go);
    // another game has other goals: ask for its default goal
    $("filter-game").addEventListener("change", () => { $("filter-goal").replaceChildren(); go(); });
    $("filter-goal").addEventListener("change", () => go());
    $("filter-participant").addEventListener("change", () => go());
  }

  async function openStudy(key, query) {
    $("key-error").textContent = "";
    if (query === undefined) query = filterQuery(null);
    document.body.dataset.study = "loading";
    try {
      const html = await (await fetchWithKey("/analysis" + (query ? "?" + query : ""), key)).text();
      store.setItem(KEY, key);
      const fresh = new DOMParser().parseFromString(html, "text/html").getElementById("study");
      urls.splice(0).forEach((u) => URL.revokeObjectURL(u));
      $("study").replaceWith(document.importNode(fresh, true));
      wireDownloads(key);
      wireFilters(key);
      await showPlots(key);
      document.body.dataset.study = "shown";
    } catch (e) {
      if (e.status === 401 || e.status === 403) store.removeItem(KEY);
      $("key-error").textContent = e.message;
    }
  }

  $("key-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    openStudy($("admin-key").value);
  });
  document.body.dataset.ready = "1";
  const saved = store.getItem(KEY);
  if (saved) openStudy(saved);
})();
