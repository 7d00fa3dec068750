// The questions page: every question with every system's score on one metric, searchable and filtered by
// split, category, system and score range; the filters live in the address (#q=…) so a view can be shared.
"use strict";

(function () {
  const { load, el, fmt, digits, params, setParams, questionHref, fail } = window.WHQA;
  const PAGE = 100;
  const $ = (id) => document.getElementById(id);
  const status = $("status");
  let site, index, scores = null, lower = [], shown = PAGE, sortKey = null, sortDescending = false;

  function options(select, values, labels) {
    values.forEach((v, k) => select.appendChild(el("option", { value: String(v) }, labels ? labels[k] : String(v))));
  }

  function words(text) {
    return text.toLowerCase().split(/\s+/).filter(Boolean);
  }

  function matching() {
    const terms = words($("search").value);
    const split = $("split").value;
    const category = $("category").value;
    const system = $("system").value;
    const min = $("min").value === "" ? null : parseFloat($("min").value);
    const max = $("max").value === "" ? null : parseFloat($("max").value);
    const out = [];
    for (let i = 0; i < index.ids.length; i++) {
      if (split !== "" && index.split[i] !== +split) continue;
      if (category !== "" && index.cat[i] !== +category) continue;
      if (terms.length && !terms.every((t) => lower[i].includes(t))) continue;
      if (scores && (system !== "" || min !== null || max !== null)) {
        const systems = system === "" ? scores.values.map((_, s) => s) : [+system];
        const ok = systems.some((s) => {
          const v = scores.values[s][i];
          return v !== null && (min === null || v >= min) && (max === null || v <= max);
        });
        if (!ok) continue;
      }
      out.push(i);
    }
    if (sortKey !== null) {
      const key = (i) => (sortKey === "question" ? lower[i] : sortKey === "split" ? site.splits[index.split[i]]
        : sortKey === "category" ? site.categories[index.cat[i]] : scores ? scores.values[sortKey][i] : null);
      out.sort((a, b) => {
        const x = key(a), y = key(b);
        if (x === null || x === undefined) return y === null || y === undefined ? 0 : 1;
        if (y === null || y === undefined) return -1;
        const order = x < y ? -1 : x > y ? 1 : 0;
        return sortDescending ? -order : order;
      });
    }
    return out;
  }

  function header() {
    const row = $("questions-head");
    row.textContent = "";
    const columns = [["question", "Question"], ["split", "Split"], ["category", "Category"]];
    site.systems.forEach((name, s) => columns.push([s, name]));
    for (const [key, label] of columns) {
      const th = el("th", { scope: "col", "aria-sort": sortKey === key ? (sortDescending ? "descending" : "ascending") : "none",
        className: typeof key === "number" ? "n" : "" });
      const button = el("button", { type: "button" }, label);
      button.addEventListener("click", () => {
        sortDescending = sortKey === key ? !sortDescending : typeof key === "number";
        sortKey = key;
        header();
        render();
      });
      th.appendChild(button);
      row.appendChild(th);
    }
  }

  function render() {
    const rows = matching();
    const body = $("questions-body");
    body.textContent = "";
    const fragment = document.createDocumentFragment();
    for (const i of rows.slice(0, shown)) {
      const tr = el("tr", {},
        el("th", { scope: "row" }, el("a", { href: questionHref(index.ids[i]) }, index.q[i])),
        el("td", {}, site.splits[index.split[i]]),
        el("td", {}, site.categories[index.cat[i]]));
      const d = scores ? digits(site.metrics[+$("metric").value]) : undefined;
      site.systems.forEach((_, s) => {
        const v = scores ? scores.values[s][i] : null;
        tr.appendChild(el("td", { className: "n" }, fmt(v, d)));
      });
      fragment.appendChild(tr);
    }
    body.appendChild(fragment);
    const metric = scores ? " · scores: " + scores.label : "";
    status.textContent = rows.length.toLocaleString("en") + " of " + index.ids.length.toLocaleString("en") + " questions" + (rows.length > shown ? ", the first " + shown + " shown" : "") + metric;
    $("more").hidden = rows.length <= shown;
    setParams({ q: $("search").value, split: $("split").value, cat: $("category").value, m: $("metric").value,
      sys: $("system").value, min: $("min").value, max: $("max").value });
  }

  async function chooseMetric() {
    const k = $("metric").value;
    scores = k === "" ? null : await load("scores/" + k);
    render();
  }

  async function start() {
    site = await load("site");
    index = await load("index");
    lower = index.q.map((q) => q.toLowerCase());
    options($("split"), site.splits.map((_, k) => k), site.splits);
    options($("category"), site.categories.map((_, k) => k), site.categories);
    options($("system"), site.systems.map((_, k) => k), site.systems);
    if (!site.metrics.length) $("metric").appendChild(el("option", { value: "" }, "no scores (no report)"));
    options($("metric"), site.metrics.map((_, k) => k), site.metrics.map((m) => m.label));
    const p = params();
    const ids = { q: "search", split: "split", cat: "category", m: "metric", sys: "system", min: "min", max: "max" };
    for (const [key, id] of Object.entries(ids)) if (p.has(key)) $(id).value = p.get(key);
    if (!p.has("m") && site.metrics.length) {
      const rl = site.metrics.findIndex((m) => m.label === "R-L");
      $("metric").value = String(rl >= 0 ? rl : 0);
    }
    header();
    for (const id of ["search", "min", "max"]) $(id).addEventListener("input", () => { shown = PAGE; render(); });
    for (const id of ["split", "category", "system"]) $(id).addEventListener("change", () => { shown = PAGE; render(); });
    $("metric").addEventListener("change", () => chooseMetric().catch((e) => fail(status, e)));
    $("filters").addEventListener("submit", (event) => event.preventDefault());
    $("more").addEventListener("click", () => { shown += PAGE; render(); });
    await chooseMetric();
    document.body.dataset.ready = "1";
    performance.mark("wikihowqa-ready");  // benchmarks/view.py reads when the first view was drawn
  }

  start().catch((e) => fail(status, e));
})();
