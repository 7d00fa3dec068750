// The assessor's page: one task at a time, by the server's assignment. Task text is untrusted and is only
// ever set through textContent (see text.js); the access token comes from the URL fragment and is sent
// as a Bearer header, never in a URL the server sees.
"use strict";

(function () {
  const { indexMaps, el } = window.WQ;
  const TOKEN_KEY = "wq-token";
  const PENDING_KEY = "wq-pending";
  const LABEL_NAMES = { useful: "Useful", misleading: "Misleading" };

  // ------------------------------------------------------------------ session and API

  function takeToken() {
    const fragment = location.hash.slice(1);
    if (fragment) {
      sessionStorage.setItem(TOKEN_KEY, fragment);
      history.replaceState(null, "", location.pathname + location.search);
    }
    return sessionStorage.getItem(TOKEN_KEY);
  }

  const token = takeToken();
  // Another link opened in this tab changes only the fragment: start again as that assessor.
  window.addEventListener("hashchange", () => location.reload());

  async function api(path, options) {
    const opts = options || {};
    const headers = { Authorization: "Bearer " + token };
    if (opts.body !== undefined) headers["Content-Type"] = "application/json";
    const response = await fetch(path, { method: opts.method || "GET", headers, body: opts.body, cache: "no-store" });
    let data = null;
    try {
      data = await response.json();
    } catch (e) {
      data = null;
    }
    if (!response.ok) {
      const err = new Error((data && data.error) || "the server answered " + response.status);
      err.status = response.status;
      throw err;
    }
    return data;
  }

  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  function randomId() {
    const bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes); // works on plain http too, unlike crypto.randomUUID
    return "j-" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  // ------------------------------------------------------------------ page frame

  const main = document.getElementById("main");
  const questionBar = document.getElementById("question");
  const progressBar = document.getElementById("progress");
  const toast = document.getElementById("toast");

  function showError(message) {
    toast.textContent = message;
    toast.hidden = false;
    clearTimeout(showError.timer);
    showError.timer = setTimeout(() => (toast.hidden = true), 8000);
  }

  // Time the page is visible, per task (assessors switching tabs is part of "time spent").
  const visible = {
    total: 0,
    since: document.visibilityState === "visible" ? performance.now() : null,
    now() {
      return this.total + (this.since === null ? 0 : performance.now() - this.since);
    },
  };
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") visible.since = performance.now();
    else if (visible.since !== null) {
      visible.total += performance.now() - visible.since;
      visible.since = null;
    }
  });

  const { TextView, popup, views } = window.WQ.views;

  // ------------------------------------------------------------------ form pieces

  function likert(name, legend, scale, onChange) {
    const options = el("div", { class: "options" });
    scale.labels.forEach((label, i) => {
      const value = scale.min + i;
      const input = el("input", { type: "radio", name, value: String(value) });
      input.addEventListener("change", () => onChange(value));
      options.append(el("label", { class: "option" }, input, el("span", { class: "value", text: String(value) }), el("span", { class: "label", text: label })));
    });
    return el("fieldset", { class: "likert", "data-name": name }, el("legend", { text: legend }), options);
  }

  function choices(name, legend, items, onChange) {
    const options = el("div", { class: "options" });
    for (const [value, label] of items) {
      const input = el("input", { type: "radio", name, value });
      input.addEventListener("change", () => onChange(value));
      options.append(el("label", { class: "option" }, input, el("span", { class: "label", text: label })));
    }
    return el("fieldset", { class: "choice", "data-name": name }, el("legend", { text: legend }), options);
  }

  function spanList(view, empty) {
    const list = el("ul", { class: "spans" });
    const update = () => {
      const items = view.spans.map((s) => {
        const text = view.text.slice(view.maps.c2u[s.start], view.maps.c2u[s.end]);
        return el(
          "li",
          { class: "span-" + (s.label || "plain") },
          s.label ? el("span", { class: "tag", text: LABEL_NAMES[s.label] }) : null,
          el("q", { text: text.length > 90 ? text.slice(0, 87) + "…" : text }),
          el("button", { type: "button", class: "remove", "aria-label": "remove", onclick: () => view.remove(s) }, "×")
        );
      });
      list.replaceChildren(...(items.length ? items : [el("li", { class: "empty", text: empty })]));
    };
    update();
    return { list, update };
  }

  function keyboardHelp(mode, opens) {
    const keys = ["←/→ move", "Shift+←/→ extend"];
    if (mode === "labelled") keys.push("U useful", "M misleading", "X clear");
    if (mode === "plain") keys.push("H or Enter highlight", "X clear");
    if (opens) keys.push("Enter open sentence");
    return el("p", { class: "keys", text: "Keyboard (click into the text first): " + keys.join(" · ") });
  }

  // ------------------------------------------------------------------ passages

  class PassagePanel {
    constructor(entries, onEvent) {
      this.entries = entries || {};
      this.onEvent = onEvent;
      this.root = el("section", { class: "passages", "aria-label": "Passages" });
      this.observer = null;
      this.root.append(el("p", { class: "hint", text: "Click a sentence of the answer to see passages from its sources here." }));
    }

    show(side, sentence, sentenceText) {
      const list = this.entries[side === null ? "" : side] || [];
      const entry = list.find((x) => x.sentence === sentence);
      if (this.observer) this.observer.disconnect();
      const head = el(
        "header",
        {},
        el("h2", { text: "Passages for sentence " + (sentence + 1) + (side ? " of answer " + side : "") }),
        el("blockquote", { text: sentenceText })
      );
      const body = [head];
      const groups = (entry && entry.groups) || [];
      if (!groups.length) body.push(el("p", { class: "none", text: "No passage was found for this sentence." }));
      const seen = new Set();
      this.observer = new IntersectionObserver(
        (items) => {
          for (const item of items) {
            const pid = item.target.dataset.pid;
            if (item.isIntersecting && !seen.has(pid)) {
              seen.add(pid);
              this.onEvent({ kind: "passage_view", sentence, side, passage_id: pid });
            }
          }
        },
        { threshold: 0.5 } // the viewport, clipped by the scrolling column: what the assessor can see
      );
      for (const group of groups) {
        const doc = el(
          "article",
          { class: "doc" },
          el("h3", { text: group.title || "Untitled page" }),
          el("p", { class: "url", text: group.url || "" })
        );
        for (const p of group.passages) {
          const maps = indexMaps(p.text);
          const node = el("p", { class: "passage", dataset: { pid: p.passage_id } });
          const h = p.highlight;
          if (h && h.start >= 0 && h.end <= maps.length && h.start < h.end) {
            node.append(
              p.text.slice(0, maps.c2u[h.start]),
              el("mark", { text: p.text.slice(maps.c2u[h.start], maps.c2u[h.end]) }),
              p.text.slice(maps.c2u[h.end])
            );
          } else node.textContent = p.text;
          doc.append(node);
        }
        body.push(doc);
      }
      this.root.replaceChildren(...body);
      if (this.root.parentElement) this.root.parentElement.scrollTop = 0;
      for (const node of this.root.querySelectorAll(".passage")) this.observer.observe(node);
    }
  }

  // The errors page (errors.js) builds on these.
  window.WQ.app = { TextView, PassagePanel, keyboardHelp, sentenceText: (b, i) => sentenceText(b, i), views, popup };

  // ------------------------------------------------------------------ one task

  function sentenceText(block, i) {
    const maps = indexMaps(block.text);
    const s = block.sentences[i];
    return block.text.slice(maps.c2u[s.start], maps.c2u[s.end]);
  }

  function renderTask(next, me) {
    views.clear();
    popup.close();
    const task = next.task;
    const t0 = performance.now() - (next.elapsed_ms || 0);
    const active0 = visible.now();
    const events = [];
    const answers = {};
    let attention = null;
    const log = (e) => events.push({ t_ms: Math.max(0, Math.round(performance.now() - t0)), ...e });

    questionBar.textContent = task.question;
    progressBar.textContent = "Task " + (next.done + 1) + " of " + next.total;

    const status = el("p", { class: "status", role: "status" });
    const submitButton = el("button", { type: "submit", class: "submit", disabled: true }, "Submit and continue");
    const required = [];
    const update = () => {
      const missing = required.filter(([, ok]) => !ok()).map(([name]) => name);
      submitButton.disabled = missing.length > 0;
      status.textContent = missing.length ? "Still to do: " + missing.join(", ") + "." : "Ready to submit.";
    };

    // The attentiveness check comes first: the task itself stays hidden until it is answered.
    const gated = Boolean(task.attention_check);
    const body = el("div", { class: "task-body", hidden: gated });
    const reveal = () => form.querySelectorAll(".gated").forEach((node) => (node.hidden = false));
    const intro = el("p", { class: "instructions", text: me.instructions });
    let check = null;
    if (task.attention_check) {
      const c = task.attention_check;
      check = choices("attention", "First: " + c.prompt, c.options.map((o) => [o, o]), (value) => {
        attention = value;
        reveal();
        check.classList.add("answered");
        update();
      });
      check.classList.add("attention");
      check.prepend(el("p", { class: "check-question", text: "“" + task.question + "”" }));
      required.push(["the category", () => attention !== null]);
    }

    let collect;
    const form = el("form", { class: "task task-" + task.type, novalidate: true });
    body.classList.add("gated");
    if (task.type === "relevance") {
      const doc = task.document;
      const view = new TextView(doc.text, { mode: "plain", label: "Document", onChange: () => list.update() });
      const list = spanList(view, "Nothing highlighted yet: select words in the document with the mouse.");
      const answerView = new TextView(task.answer.text, { mode: "none", label: "Answer" });
      const rating = likert("relevance", "How relevant is the document to the answer?", me.scales.relevance, (v) => {
        answers.relevance = v;
        update();
      });
      required.push(["the relevance rating", () => answers.relevance !== undefined]);
      const left = el("div", { class: "col col-left" }, intro, check);
      body.append(el("div", { class: "card" }, el("h2", { text: "Answer" }), answerView.root), rating, el("div", { class: "card" }, el("h2", { text: "Your highlights" }), list.list), el("div", { class: "actions" }, submitButton, status));
      left.append(body);
      const right = el(
        "div",
        { class: "col col-right doc-col gated", hidden: gated },
        el("h2", { text: doc.title || "Document" }),
        el("p", { class: "url", text: doc.url || "" }),
        keyboardHelp("plain", false),
        view.root
      );
      form.append(left, right);
      collect = () => ({ relevance: answers.relevance, highlights: view.spans.map((s) => ({ start: s.start, end: s.end })) });
    } else if (task.type === "answer") {
      const withPassages = task.passages !== null && task.passages !== undefined;
      const panel = withPassages ? new PassagePanel({ "": task.passages }, log) : null;
      const view = new TextView(task.answer.text, {
        mode: "labelled",
        label: "Answer",
        sentences: task.answer.sentences,
        onChange: () => list.update(),
        onSentence: withPassages
          ? (i) => {
              view.setActive(i);
              log({ kind: "sentence_open", sentence: i, side: null });
              panel.show(null, i, sentenceText(task.answer, i));
            }
          : null,
      });
      const list = spanList(view, "Nothing marked yet: select words in the answer with the mouse.");
      const familiarity = likert("familiarity", "How familiar are you with the question’s topic?", me.scales.familiarity, (v) => {
        answers.familiarity = v;
        update();
      });
      const usefulness = likert("usefulness", "How useful is the answer?", me.scales.usefulness, (v) => {
        answers.usefulness = v;
        update();
      });
      required.push(["familiarity", () => answers.familiarity !== undefined], ["usefulness", () => answers.usefulness !== undefined]);
      body.append(
        el("div", { class: "card" }, el("h2", { text: "Answer" }), keyboardHelp("labelled", withPassages), view.root),
        el("div", { class: "card" }, el("h2", { text: "Marked parts" }), list.list),
        familiarity,
        usefulness,
        el("div", { class: "actions" }, submitButton, status)
      );
      const left = el("div", { class: "col col-left" }, intro, check, body);
      form.append(left);
      if (panel) form.append(el("div", { class: "col col-right gated", hidden: gated }, panel.root));
      else form.classList.add("single");
      collect = () => ({
        familiarity: answers.familiarity,
        usefulness: answers.usefulness,
        spans: view.spans.map((s) => ({ start: s.start, end: s.end, label: s.label })),
      });
    } else if (task.type === "errors") {
      collect = window.WQErrors.render({ task, me, form, body, intro, check, required, update, log, submitButton, status, gated });
    } else {
      const panel = new PassagePanel(task.passages || {}, log);
      const side = (name) => {
        const block = task.answers[name];
        const view = new TextView(block.text, {
          mode: "none",
          label: "Answer " + name,
          sentences: block.sentences,
          onSentence: (i) => {
            for (const v of views) v.setActive(-1);
            view.setActive(i);
            log({ kind: "sentence_open", sentence: i, side: name });
            panel.show(name, i, sentenceText(block, i));
          },
        });
        return el("div", { class: "card answer-" + name }, el("h2", { text: "Answer " + name }), view.root);
      };
      const choice = choices(
        "choice",
        "Which answer is more useful?",
        [
          ["A", "Answer A"],
          ["B", "Answer B"],
          ["tie", "Equally useful (tie)"],
        ],
        (v) => {
          answers.choice = v;
          update();
        }
      );
      required.push(["your choice", () => answers.choice !== undefined]);
      body.append(el("div", { class: "pair" }, side("A"), side("B")), choice, el("div", { class: "actions" }, submitButton, status));
      form.append(
        el("div", { class: "col col-left wide" }, intro, check, body),
        el("div", { class: "col col-right gated", hidden: gated }, panel.root)
      );
      collect = () => ({ choice: answers.choice });
    }

    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      update();
      if (submitButton.disabled) return;
      submitButton.disabled = true;
      const judgment = {
        format_version: 2,
        judgment_id: randomId(),
        task_id: task.task_id,
        attention,
        duration_ms: Math.max(0, Math.round(performance.now() - t0)),
        active_ms: Math.max(0, Math.round(visible.now() - active0)),
        events,
        ...collect(),
      };
      const ok = await submit(judgment, status);
      if (ok) await loadNext(me);
      else submitButton.disabled = false;
    });

    update();
    main.replaceChildren(form);
    window.scrollTo(0, 0);
  }

  // ------------------------------------------------------------------ submitting (retried, never twice)

  async function submit(judgment, status) {
    sessionStorage.setItem(PENDING_KEY, JSON.stringify(judgment));
    let delay = 500;
    for (;;) {
      if (status) status.textContent = "Saving…";
      try {
        await api("/api/judgments", { method: "POST", body: JSON.stringify(judgment) });
        sessionStorage.removeItem(PENDING_KEY);
        return true;
      } catch (err) {
        const retry = !err.status || err.status >= 500 || err.status === 408 || err.status === 429;
        if (!retry) {
          sessionStorage.removeItem(PENDING_KEY);
          showError("Not saved: " + err.message);
          if (status) status.textContent = "Not saved: " + err.message;
          return false;
        }
        if (status) status.textContent = "Connection problem: retrying…";
        await sleep(delay);
        delay = Math.min(delay * 2, 8000);
      }
    }
  }

  function renderDone(next) {
    views.clear();
    popup.close();
    questionBar.textContent = next.finished ? "Thank you!" : "Nothing to do right now";
    progressBar.textContent = next.done + " of " + next.total + " done";
    const box = el("section", { class: "notice" }, el("h1", { text: next.message }));
    if (next.completion_code) {
      box.append(el("p", { text: "Your completion code:" }), el("output", { class: "code", text: next.completion_code }));
      let url = null;
      try {
        url = next.completion_url ? new URL(next.completion_url) : null;
      } catch (e) {
        url = null;
      }
      if (url && (url.protocol === "https:" || url.protocol === "http:")) {
        box.append(el("p", {}, el("a", { href: url.href, rel: "noopener noreferrer", class: "button" }, "Return to the study platform")));
      }
    } else if (!next.finished) {
      box.append(el("p", { text: "Please come back later, or close this page." }));
    }
    main.replaceChildren(box);
  }

  async function loadNext(me) {
    const next = await api("/api/next");
    if (next.task) renderTask(next, me);
    else renderDone(next);
  }

  async function boot() {
    if (!token) {
      questionBar.textContent = "No access";
      main.replaceChildren(el("section", { class: "notice" }, el("h1", { text: "Open the link you were given to start." })));
      return;
    }
    try {
      const me = await api("/api/me");
      const pending = sessionStorage.getItem(PENDING_KEY);
      if (pending) await submit(JSON.parse(pending), null); // a submit cut off by a reload: same id, stored once
      await loadNext(me);
    } catch (err) {
      questionBar.textContent = "Cannot start";
      main.replaceChildren(el("section", { class: "notice" }, el("h1", { text: err.message })));
    }
  }

  boot();
})();
