// Two systems side by side: the questions where their scores on one metric differ most, largest first;
// "Show" puts both answers next to each other with the words only one of them has marked.
"use strict";

(function () {
  const { load, el, fmt, digits, params, setParams, questionHref, fail } = window.WHQA;
  const PAGE = 50;
  const $ = (id) => document.getElementById(id);
  const status = $("status");
  let site, index, shown = PAGE, rows = [];

  function tokens(text) {
    return (text || "").match(/\S+/g) || [];
  }

  // Which words of a and of b are outside their longest common subsequence (word-level diff).
  function lcsMarks(a, b) {
    const n = a.length, m = b.length;
    const table = Array.from({ length: n + 1 }, () => new Uint16Array(m + 1));
    for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--)
      table[i][j] = a[i] === b[j] ? table[i + 1][j + 1] + 1 : Math.max(table[i + 1][j], table[i][j + 1]);
    const onlyA = new Array(n).fill(true), onlyB = new Array(m).fill(true);
    let i = 0, j = 0;
    while (i < n && j < m) {
      if (a[i] === b[j]) { onlyA[i] = false; onlyB[j] = false; i++; j++; }
      else if (table[i + 1][j] >= table[i][j + 1]) i++;
      else j++;
    }
    return [onlyA, onlyB];
  }

  // The words in order, each run of words only this answer has in one <mark>.
  function marked(words, only, label) {
    const p = el("p", { className: "diff-text" });
    let k = 0;
    while (k < words.length) {
      let end = k;
      while (end < words.length && only[end] === only[k]) end++;
      const text = words.slice(k, end).join(" ");
      p.appendChild(only[k] ? el("mark", { className: "only", title: "only in " + label }, text) : document.createTextNode(text));
      if (end < words.length) p.appendChild(document.createTextNode(" "));
      k = end;
    }
    return p;
  }

  async function showAnswers(i, tr, button) {
    const next = tr.nextElementSibling;
    if (next && next.classList.contains("answers-row")) {
      next.remove();
      button.setAttribute("aria-expanded", "false");
      button.textContent = "Show";
      return;
    }
    const id = index.ids[i];
    const data = await load("q/" + (((id % site.shards) + site.shards) % site.shards));
    const record = data[String(id)];
    const a = site.systems[+$("sys-a").value], b = site.systems[+$("sys-b").value];
    const textOf = (name) => ((record.answers.find((x) => x.system === name) || {}).text || "");
    const wa = tokens(textOf(a)), wb = tokens(textOf(b));
    const [onlyA, onlyB] = lcsMarks(wa.map((w) => w.toLowerCase()), wb.map((w) => w.toLowerCase()));
    const cell = el("td", { colSpan: 6 },
      el("div", { className: "pair" },
        el("section", { "aria-label": "Answer of A: " + a }, el("h3", {}, "A: " + a), marked(wa, onlyA, "A")),
        el("section", { "aria-label": "Answer of B: " + b }, el("h3", {}, "B: " + b), marked(wb, onlyB, "B"))),
      el("p", { className: "note" }, "Marked: words only that answer has (case ignored)."));
    cell.setAttribute("colspan", "6");
    tr.after(el("tr", { className: "answers-row" }, cell));
    button.setAttribute("aria-expanded", "true");
    button.textContent = "Hide";
  }

  function render() {
    const body = $("diffs-body");
    body.textContent = "";
    const a = +$("sys-a").value, b = +$("sys-b").value;
    const places = digits(site.metrics[+$("metric").value]);
    for (const [i, x, y, d] of rows.slice(0, shown)) {
      const button = el("button", { type: "button", "aria-expanded": "false" }, "Show");
      const better = d > 0 ? "A" : d < 0 ? "B" : "tie";
      const tr = el("tr", { className: d > 0 ? "a-better" : d < 0 ? "b-better" : "" },
        el("th", { scope: "row" }, el("a", { href: questionHref(index.ids[i]) }, index.q[i])),
        el("td", { className: "n" + (d > 0 ? " win" : "") }, fmt(x, places)),
        el("td", { className: "n" + (d < 0 ? " win" : "") }, fmt(y, places)),
        el("td", { className: "n delta" }, (d > 0 ? "+" : "") + fmt(d, places)),
        el("td", {}, better === "tie" ? "tie" : better + " (" + site.systems[better === "A" ? a : b] + ")"),
        el("td", {}, button));
      button.addEventListener("click", () => showAnswers(i, tr, button).catch((e) => fail(status, e)));
      body.appendChild(tr);
    }
    $("more").hidden = rows.length <= shown;
  }

  async function update() {
    const a = +$("sys-a").value, b = +$("sys-b").value, k = $("metric").value;
    setParams({ a: site.systems[a], b: site.systems[b], m: k === "" ? "" : site.metrics[+k].label });
    shown = PAGE;
    if (k === "" || a === b) {
      rows = [];
      status.textContent = a === b ? "Choose two different systems." : "No scores to compare (no evaluation report).";
      render();
      return;
    }
    const scores = await load("scores/" + k);
    rows = [];
    const va = scores.values[a], vb = scores.values[b];
    for (let i = 0; i < index.ids.length; i++) {
      if (va[i] === null || vb[i] === null) continue;
      rows.push([i, va[i], vb[i], va[i] - vb[i]]);
    }
    rows.sort((r, s) => Math.abs(s[3]) - Math.abs(r[3]) || index.ids[r[0]] - index.ids[s[0]]);
    const wins = rows.filter((r) => r[3] > 0).length, losses = rows.filter((r) => r[3] < 0).length;
    status.textContent = rows.length + " questions scored for both on " + scores.label + ": A higher on " + wins +
      ", B higher on " + losses + ", equal on " + (rows.length - wins - losses) + "; largest difference first.";
    render();
  }

  async function start() {
    site = await load("site");
    index = await load("index");
    for (const id of ["sys-a", "sys-b"]) site.systems.forEach((s, k) => $(id).appendChild(el("option", { value: String(k) }, s)));
    site.metrics.forEach((m, k) => $("metric").appendChild(el("option", { value: String(k) }, m.label)));
    if (!site.metrics.length) $("metric").appendChild(el("option", { value: "" }, "no scores"));
    const p = params();
    const pick = (name, fallback) => { const k = site.systems.indexOf(p.get(name)); return String(k >= 0 ? k : fallback); };
    if (site.systems.length) {
      $("sys-a").value = pick("a", 0);
      $("sys-b").value = pick("b", Math.min(1, site.systems.length - 1));
    }
    const m = site.metrics.findIndex((x) => x.label === (p.get("m") || "R-L"));
    if (site.metrics.length) $("metric").value = String(m >= 0 ? m : 0);
    for (const id of ["sys-a", "sys-b", "metric"]) $(id).addEventListener("change", () => update().catch((e) => fail(status, e)));
    $("pick").addEventListener("submit", (event) => event.preventDefault());
    $("more").addEventListener("click", () => { shown += PAGE; render(); });
    await update();
    document.body.dataset.ready = "1";
    performance.mark("wikihowqa-ready");  // benchmarks/view.py reads when the first view was drawn
  }

  start().catch((e) => fail(status, e));
})();
