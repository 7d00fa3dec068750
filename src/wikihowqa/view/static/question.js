// One question: the gold answer and every system's answer cut into the sentences grounding scored, and
// the question's documents cut into their passages. A sentence chosen highlights the passages grounding
// found for it (best first); a passage chosen highlights the sentences whose passages include it.
"use strict";

(function () {
  const { load, el, fmt, digits, params, link, fail } = window.WHQA;
  const $ = (id) => document.getElementById(id);
  const status = $("status");
  const TAGS = new Set("p h1 h2 h3 h4 h5 h6 ul ol li blockquote pre code em strong s a hr br table thead tbody tr th td".split(" "));
  let record, shard, site, selected = null;
  const sentenceInfo = new Map();  // sentence element -> {passages: [[pid, score]], ...}

  function clear() {
    for (const node of document.querySelectorAll(".hl")) node.classList.remove("hl");
    for (const node of document.querySelectorAll("[aria-pressed='true']")) node.setAttribute("aria-pressed", "false");
    for (const node of document.querySelectorAll(".passage[data-rank]")) delete node.dataset.rank;
    $("detail").hidden = true;
    selected = null;
  }

  function passageNode(pid) {
    return document.querySelector('.passage[data-pid="' + CSS.escape(pid) + '"]');
  }

  function chooseSentence(button) {
    const again = selected === button;
    clear();
    if (again) return;
    selected = button;
    button.setAttribute("aria-pressed", "true");
    button.classList.add("hl");
    const info = sentenceInfo.get(button);
    const found = [];
    info.p.forEach(([pid], rank) => {
      const node = passageNode(pid);
      if (node) {
        node.classList.add("hl");
        node.dataset.rank = String(rank + 1);
        found.push(node);
      }
    });
    showDetail(info, found);
    if (found.length) found[0].scrollIntoView({ block: "nearest" });
    status.textContent = "Sentence of " + info.system + ": " + found.length + " supporting passage(s) highlighted.";
  }

  function choosePassage(node) {
    const again = selected === node;
    clear();
    if (again) return;
    selected = node;
    node.setAttribute("aria-pressed", "true");
    node.classList.add("hl");
    let n = 0;
    for (const [button, info] of sentenceInfo) {
      if (info.p.some(([pid]) => pid === node.dataset.pid)) {
        button.classList.add("hl");
        n += 1;
      }
    }
    status.textContent = "Passage " + node.dataset.pid + " supports " + n + " answer sentence(s), highlighted.";
    const first = document.querySelector(".sentence.hl");
    if (first) first.scrollIntoView({ block: "nearest" });
  }

  function showDetail(info, found) {
    const body = $("detail-body");
    body.textContent = "";
    body.appendChild(el("p", {}, el("q", {}, info.s), " — " + info.system + "; support " + fmt(info.v, 3) +
      (info.ok ? " (supported)" : " (not supported)")));
    const list = el("ol", { className: "support" });
    for (const [pid, score] of info.p) {
      const button = el("button", { type: "button", className: "linkish" }, "passage " + pid);
      button.addEventListener("click", () => {
        const node = passageNode(pid);
        if (node) node.focus();
      });
      list.appendChild(el("li", {}, button, " score " + fmt(score, 3)));
    }
    body.appendChild(el("p", {}, "Its passages, best first (" + found.length + " in the documents below):"));
    body.appendChild(list);
    if (info.e.length) {
      const evidence = el("ul", { className: "evidence" });
      for (const [clause, pid, sentence, precision, clashes] of info.e) {
        evidence.appendChild(el("li", {}, el("q", {}, clause), " → ",
          sentence ? el("q", {}, sentence) : "no passage sentence shares its words",
          pid ? " (" + pid + ", precision " + fmt(precision, 2) + ")" : "",
          clashes.length ? el("strong", { className: "clash" }, " failed: " + clashes.join(", ")) : ""));
      }
      body.appendChild(el("p", {}, "Clauses and the passage sentences they align to:"));
      body.appendChild(evidence);
    }
    $("detail").hidden = false;
  }

  function scoreList(scores) {
    const entries = Object.entries(scores || {});
    if (!entries.length) return null;
    const dl = el("dl", { className: "scores" });
    for (const [label, value] of entries) {
      const metric = site.metrics.find((m) => m.label === label);
      dl.appendChild(el("div", {}, el("dt", {}, label), el("dd", {}, fmt(value, digits(metric)))));
    }
    return dl;
  }

  // Assessors' error spans (a study's errors part) beside grounding's flag on the sentences they touch.
  function errorList(spans, sentences, buttons) {
    const simulated = spans.some((e) => e[5]);
    const box = el("div", { className: "error-spans" });
    box.appendChild(el("p", { className: "note" }, "Assessors' error spans" +
      (simulated ? " (simulated assessors, not real people)" : "") + ", beside grounding's flag:"));
    const list = el("ul", {});
    for (const [text, type, severity, assessor, part, , touched] of spans) {
      for (const k of touched) if (buttons[k]) buttons[k].classList.add("marked");
      const flags = touched.map((k) => sentences[k] ? (sentences[k][2] ? "supported" : "unsupported") : "?");
      const grounding = !touched.length ? "no grounded sentence"
        : flags.includes("unsupported") ? "flagged unsupported" : "not flagged (supported)";
      list.appendChild(el("li", { className: "error-span", dataset: { type: type, severity: severity } },
        el("q", {}, text), " — " + type + ", " + severity + " (" + assessor + ", " + part + "); grounding: " + grounding));
    }
    box.appendChild(list);
    return box;
  }

  function answerCard(system, text, scores, sentences, gold, spans) {
    const card = el("section", { className: "answer" + (gold ? " gold" : ""), "aria-label": "Answer of " + system });
    card.appendChild(el("h3", {}, system));
    const list = scoreList(scores);
    if (list) card.appendChild(list);
    const buttons = [];
    if (sentences && sentences.length) {
      const p = el("p", { className: "sentences" });
      sentences.forEach(([s, v, ok, passages, evidence], k) => {
        const button = el("button", { type: "button", className: "sentence" + (ok ? " supported" : " unsupported"),
          "aria-pressed": "false", dataset: { system: system, k: k } }, s);
        button.setAttribute("aria-describedby", ok ? "legend-ok" : "legend-no");
        sentenceInfo.set(button, { s, v, ok, p: passages, e: evidence, system });
        buttons.push(button);
        button.addEventListener("click", () => chooseSentence(button));
        p.appendChild(button);
        p.appendChild(document.createTextNode(" "));
      });
      card.appendChild(p);
    } else {
      card.appendChild(el("p", { className: "plain" }, text || "(no answer)"));
      if (!gold) card.appendChild(el("p", { className: "note" }, "No per-sentence grounding recorded for this answer."));
    }
    if (spans && spans.length) card.appendChild(errorList(spans, sentences || [], buttons));
    return card;
  }

  function mdNode(item) {
    if (typeof item === "string") return document.createTextNode(item);
    const [tag, ...rest] = item;
    if (!TAGS.has(tag)) return document.createTextNode("");
    if (tag === "a") {
      const [href, ...children] = rest;
      const node = link(href, "");
      for (const c of children) node.appendChild(mdNode(c));
      return node;
    }
    const node = document.createElement(tag);
    for (const c of rest) node.appendChild(mdNode(c));
    return node;
  }

  function documentCard(doc, d) {
    const card = el("section", { className: "doc", "aria-labelledby": "doc-h-" + d });
    card.appendChild(el("h3", { id: "doc-h-" + d }, "Document " + (d + 1) + ": " + (doc.title || doc.url)));
    card.appendChild(el("p", { className: "meta" }, "Page type " + doc.type + " · ", link(doc.href, "original page"),
      " · ", doc.archive ? link(doc.archive, "archived capture") : el("span", {}, "archived capture: " + doc.archive_text)));
    const text = el("div", { className: "doc-text" });
    for (const piece of doc.pieces) {
      if (typeof piece === "string") {
        text.appendChild(document.createTextNode(piece));
        continue;
      }
      const [k, passage] = piece;
      const pid = record.id + ":" + d + ":" + k;
      const node = el("span", { className: "passage", role: "button", tabIndex: 0, "aria-pressed": "false",
        dataset: { pid } }, passage);
      node.addEventListener("click", () => choosePassage(node));
      node.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          choosePassage(node);
        }
      });
      text.appendChild(node);
    }
    card.appendChild(text);
    const details = el("details", { className: "md" }, el("summary", {}, "Read as parsed Markdown"));
    const holder = el("div", { className: "md-body" });
    details.appendChild(holder);
    details.addEventListener("toggle", () => {
      if (!details.open || holder.childNodes.length) return;
      load("md/" + shard).then((md) => {
        for (const item of (md[String(record.id)] || [])[d] || []) holder.appendChild(mdNode(item));
      }).catch((e) => fail(status, e));
    });
    card.appendChild(details);
    return card;
  }

  async function start() {
    const id = params().get("id");
    site = await load("site");
    if (!id || !/^-?\d+$/.test(id)) {
      status.textContent = "No question chosen: open one from the questions page.";
      return;
    }
    shard = ((+id % site.shards) + site.shards) % site.shards;
    const data = await load("q/" + shard);
    record = data[id];
    if (!record) {
      status.textContent = "No question with id " + id + " in this site.";
      return;
    }
    document.title = record.question + " · wikihowqa explorer";
    $("q-title").textContent = record.question;
    $("q-meta").textContent = "Question " + record.id + " · split " + record.split + " · category " + record.category;
    const answers = $("answer-list");
    answers.appendChild(el("p", { className: "legend" },
      el("span", { id: "legend-ok", className: "supported" }, "supported sentence"), " · ",
      el("span", { id: "legend-no", className: "unsupported" }, "sentence below the support threshold")));
    answers.appendChild(answerCard("gold answer (human)", record.answer, record.gold ? record.gold.scores : null,
      record.gold ? record.gold.s : null, true));
    for (const a of record.answers) answers.appendChild(answerCard(a.system, a.text, a.scores, a.s, false, a.err));
    const docs = $("document-list");
    if (!record.docs.length) docs.appendChild(el("p", { className: "note" }, "This question has no documents."));
    record.docs.forEach((doc, d) => docs.appendChild(documentCard(doc, d)));
    document.addEventListener("keydown", (event) => { if (event.key === "Escape") clear(); });
    $("columns").hidden = false;
    status.textContent = record.answers.length + " system answer(s), " + record.docs.length + " document(s).";
    document.body.dataset.ready = "1";
    performance.mark("wikihowqa-ready");  // benchmarks/view.py reads when the first view was drawn
  }

  start().catch((e) => fail(status, e));
})();
