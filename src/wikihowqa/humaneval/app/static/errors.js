// The error-span page (task type "errors", parts errors_a and errors_b): mark every error in an answer,
// with a type from the study's taxonomy, a severity, an optional note and, for the types that ask for
// one, an antecedent (a span in the answer or in a passage). Built on assessor.js's text views; task text
// only ever goes in through textContent. Every added, changed and removed span is logged as an event.
"use strict";

(function () {
  const { el, indexMaps, setLabel } = window.WQ;
  const SEVERITIES = ["minor", "major", "critical"];

  function quote(text) {
    return text.length > 90 ? text.slice(0, 87) + "…" : text;
  }

  function render(ctx) {
    const { TextView, sentenceText } = window.WQ.app;
    const { task, me, form, body, intro, check, required, update, log, submitButton, status, gated } = ctx;
    const taxonomy = me.error_taxonomy || { types: [], severities: [] };
    const info = Object.fromEntries(taxonomy.types.map((t) => [t.name, t]));
    const rules = Object.fromEntries(task.error_types.map((t) => [t.name, t]));
    const severityInfo = Object.fromEntries((taxonomy.severities || []).map((s) => [s.name, s.definition]));
    const withPassages = task.passages !== null && task.passages !== undefined;
    const passageText = {};
    for (const entry of task.passages || []) for (const g of entry.groups) for (const p of g.passages) passageText[p.passage_id] = p.text;

    const errors = [];
    let draft = null; // {start, end, type, severity, note, antecedent, replacing}
    let picking = false;

    const slice = (text, s, e) => {
      const maps = indexMaps(text);
      return text.slice(maps.c2u[s], maps.c2u[e]);
    };
    const spanEvent = (kind, s) => log({ kind, start: s.start, end: s.end, error_type: s.type || null });

    // ---------------------------------------------------------------- the answer and the passages

    const answer = new TextView(task.answer.text, {
      mode: "pick",
      label: "Answer",
      sentences: task.answer.sentences,
      onPick: (view) => picked(view, null),
      onKey: (e, view) => key(e, view, null),
      onSentence: withPassages
        ? (i) => {
            answer.setActive(i);
            log({ kind: "sentence_open", sentence: i, side: null });
            showPassages(i);
          }
        : null,
    });

    const passagePanel = el("section", { class: "passages", "aria-label": "Passages" },
      el("p", { class: "hint", text: "Click a sentence of the answer to see passages from its sources here." }));
    let observer = null;
    function showPassages(sentence) {
      const entry = (task.passages || []).find((x) => x.sentence === sentence);
      if (observer) observer.disconnect();
      const seen = new Set();
      observer = new IntersectionObserver((items) => {
        for (const item of items) {
          const pid = item.target.dataset.pid;
          if (item.isIntersecting && !seen.has(pid)) {
            seen.add(pid);
            log({ kind: "passage_view", sentence, side: null, passage_id: pid });
          }
        }
      }, { threshold: 0.5 });
      const parts = [el("header", {}, el("h2", { text: "Passages for sentence " + (sentence + 1) }),
        el("blockquote", { text: sentenceText(task.answer, sentence) }))];
      const groups = (entry && entry.groups) || [];
      if (!groups.length) parts.push(el("p", { class: "none", text: "No passage was found for this sentence." }));
      for (const group of groups) {
        const doc = el("article", { class: "doc" }, el("h3", { text: group.title || "Untitled page" }), el("p", { class: "url", text: group.url || "" }));
        for (const p of group.passages) {
          const view = new TextView(p.text, {
            mode: "pick",
            label: "Passage",
            marks: p.highlight ? [p.highlight] : [],
            onPick: (v) => picked(v, p.passage_id),
            onKey: (e, v) => key(e, v, p.passage_id),
          });
          view.root.classList.add("passage");
          view.root.dataset.pid = p.passage_id;
          doc.append(view.root);
        }
        parts.push(doc);
      }
      passagePanel.replaceChildren(...parts);
      for (const node of passagePanel.querySelectorAll(".passage")) observer.observe(node);
    }

    // A finished selection: the antecedent while picking one, else a new error (answer only).
    function picked(view, passageId) {
      const range = view.pending;
      if (!range) return;
      if (picking && draft) {
        setAntecedent(passageId === null ? { source: "answer", start: range[0], end: range[1] }
          : { source: "passage", passage_id: passageId, start: range[0], end: range[1] });
        view.pending = null;
        view.render();
      } else if (passageId === null) {
        openDraft({ start: range[0], end: range[1], type: null, severity: null, note: "", antecedent: null, replacing: -1 });
        view.pending = null;
        view.render();
      } else {
        view.pending = null;
        view.render();
      }
    }

    // Keys in a text: E marks the selected words as an error, A takes them as the antecedent, Esc cancels.
    function key(e, view, passageId) {
      const lower = e.key.toLowerCase();
      if (!view.pending) return false;
      if ((lower === "e" && passageId === null && !picking) || (lower === "a" && picking)) {
        e.preventDefault();
        picked(view, passageId);
        return true;
      }
      return false;
    }

    // ---------------------------------------------------------------- the error being marked

    const typeSelect = el("select", { id: "error-type", "aria-label": "Error type" },
      el("option", { value: "", text: "Choose the type of error…" }),
      ...task.error_types.map((t) => el("option", { value: t.name, text: (info[t.name] && info[t.name].label) || t.name })));
    const typeHelp = el("p", { class: "type-help" });
    const severities = el("div", { class: "options" });
    for (const [k, s] of SEVERITIES.entries()) {
      const input = el("input", { type: "radio", name: "severity", value: s, id: "severity-" + s });
      input.addEventListener("change", () => {
        draft.severity = s;
        refresh();
      });
      severities.append(el("label", { class: "option", title: severityInfo[s] || "" }, input,
        el("span", { class: "value", text: String(k + 1) }), el("span", { class: "label", text: s[0].toUpperCase() + s.slice(1) })));
    }
    const note = el("input", { type: "text", id: "error-note", maxlength: "200", placeholder: "Optional: why, in one line", "aria-label": "Note" });
    note.addEventListener("input", () => draft && (draft.note = note.value));
    const anteText = el("q", { class: "antecedent-text" });
    const pickButton = el("button", { type: "button", id: "pick-antecedent", onclick: () => startPicking() }, "Select antecedent");
    const clearAnte = el("button", { type: "button", id: "clear-antecedent", onclick: () => setAntecedent(null) }, "Clear");
    const anteRow = el("div", { class: "antecedent" }, el("span", { class: "tag", text: "Antecedent: " }), anteText, pickButton, clearAnte);
    const addButton = el("button", { type: "button", id: "add-error", onclick: () => save() }, "Add error");
    const cancelButton = el("button", { type: "button", id: "cancel-error", onclick: () => closeDraft() }, "Cancel");
    const draftQuote = el("blockquote", { class: "draft-text" });
    const problem = el("p", { class: "draft-problem", role: "status" });
    const draftCard = el("div", { class: "card error-form", hidden: true, "aria-label": "The error" },
      el("h2", { text: "This error" }), draftQuote, typeSelect, typeHelp,
      el("fieldset", { class: "likert severity" }, el("legend", { text: "How bad is it? (keys 1–3)" }), severities),
      note, anteRow, problem, el("div", { class: "actions" }, addButton, cancelButton));
    typeSelect.addEventListener("change", () => {
      draft.type = typeSelect.value || null;
      refresh();
    });
    draftCard.addEventListener("keydown", (e) => {
      if (e.target === note || e.target === typeSelect) return;
      if (["1", "2", "3"].includes(e.key)) {
        e.preventDefault();
        const input = severities.querySelectorAll("input")[Number(e.key) - 1];
        input.checked = true;
        input.dispatchEvent(new Event("change"));
      }
    });

    function openDraft(d) {
      draft = d;
      picking = false;
      typeSelect.value = d.type || "";
      for (const input of severities.querySelectorAll("input")) input.checked = input.value === d.severity;
      note.value = d.note || "";
      draftCard.hidden = false;
      refresh();
      typeSelect.focus();
    }

    function closeDraft() {
      draft = null;
      picking = false;
      draftCard.hidden = true;
      refresh();
      answer.root.focus({ preventScroll: true });
    }

    function startPicking() {
      picking = true;
      refresh();
      answer.root.focus({ preventScroll: true });
    }

    function setAntecedent(a) {
      if (!draft) return;
      draft.antecedent = a;
      picking = false;
      refresh();
      if (a) addButton.focus();
    }

    function draftProblem() {
      if (!draft.type) return "Choose the type of error.";
      if (!draft.severity) return "Choose how bad it is.";
      const rule = rules[draft.type];
      const a = draft.antecedent;
      if (rule.antecedent === "required" && !a) return "This type needs its antecedent: select what it repeats or contradicts.";
      if (a && rule.antecedent === "none") return "This type takes no antecedent: clear it.";
      if (a && !rule.antecedent_in.includes(a.source)) return "The antecedent of this type must be in the " + rule.antecedent_in.join(" or ") + ".";
      if (a && a.source === "answer" && a.start < draft.end && draft.start < a.end) return "The antecedent must not overlap the error.";
      if (errors.some((s, k) => k !== draft.replacing && s.start === draft.start && s.end === draft.end && s.type === draft.type)) return "This error is already marked.";
      return null;
    }

    function save() {
      const why = draftProblem();
      if (why) {
        problem.textContent = why;
        return;
      }
      const span = { start: draft.start, end: draft.end, type: draft.type, severity: draft.severity, note: draft.note.trim() || null, antecedent: draft.antecedent };
      if (draft.replacing >= 0) {
        errors[draft.replacing] = span;
        spanEvent("span_change", span);
      } else {
        errors.push(span);
        spanEvent("span_add", span);
      }
      errors.sort((a, b) => a.start - b.start || a.end - b.end);
      closeDraft();
    }

    // ---------------------------------------------------------------- the list and the highlights

    const list = el("ul", { class: "spans error-list" });
    function refresh() {
      let shown = [];
      for (const s of errors) shown = setLabel(shown, s.start, s.end, "error");
      if (draft) shown = setLabel(shown, draft.start, draft.end, "draft");
      answer.spans = shown;
      const marks = errors.filter((s) => s.antecedent && s.antecedent.source === "answer").map((s) => s.antecedent);
      if (draft && draft.antecedent && draft.antecedent.source === "answer") marks.push(draft.antecedent);
      answer.marks = marks;
      answer.render();
      if (draft) {
        draftQuote.textContent = slice(task.answer.text, draft.start, draft.end);
        const t = info[draft.type];
        typeHelp.textContent = t ? t.definition + " Example: " + t.example : "";
        const rule = rules[draft.type];
        anteRow.hidden = !rule || rule.antecedent === "none";
        const a = draft.antecedent;
        anteText.textContent = a ? slice(a.source === "answer" ? task.answer.text : passageText[a.passage_id], a.start, a.end) + (a.source === "passage" ? " (passage)" : "") : picking ? "select it in the answer" + (withPassages ? " or a passage" : "") + ", then press A" : "none";
        problem.textContent = picking ? "Select the antecedent, then press A (or release the mouse)." : "";
      }
      list.replaceChildren(...(errors.length ? errors.map((s, k) => {
        const label = (info[s.type] && info[s.type].label) || s.type;
        return el("li", { class: "span-error" },
          el("span", { class: "tag", text: label + " · " + s.severity }),
          el("q", { text: quote(slice(task.answer.text, s.start, s.end)) }),
          s.note ? el("span", { class: "note", text: " — " + s.note }) : null,
          el("button", { type: "button", class: "edit", "aria-label": "edit", onclick: () => openDraft({ ...s, note: s.note || "", replacing: k }) }, "✎"),
          el("button", { type: "button", class: "remove", "aria-label": "remove", onclick: () => {
            errors.splice(k, 1);
            spanEvent("span_remove", s);
            refresh();
          } }, "×"));
      }) : [el("li", { class: "empty", text: "No error marked yet. If the answer has none, just submit." })]));
      update();
    }

    const help = el("dl", { class: "taxonomy" });
    for (const t of task.error_types) {
      const d = info[t.name] || { label: t.name, definition: "", example: "" };
      help.append(el("dt", { text: d.label }), el("dd", { text: d.definition }), el("dd", { class: "example", text: "Example: " + d.example }));
    }
    const keys = el("p", { class: "keys", text: "Keyboard (click into the text first): ←/→ move · Shift+←/→ extend · E mark as error · A use as antecedent · Esc cancel" + (withPassages ? " · Enter open sentence" : "") });
    required.push(["to finish or cancel the error you are marking", () => draft === null]);
    body.append(
      el("div", { class: "card" }, el("h2", { text: "Answer" }), keys, answer.root),
      draftCard,
      el("div", { class: "card" }, el("h2", { text: "Marked errors" }), list),
      el("details", { class: "card" }, el("summary", { text: "The types of error" }), help),
      el("div", { class: "actions" }, submitButton, status)
    );
    form.append(el("div", { class: "col col-left" }, intro, check, body));
    if (withPassages) form.append(el("div", { class: "col col-right gated", hidden: gated }, passagePanel));
    else form.classList.add("single");
    refresh();
    return () => ({
      error_spans: errors.map((s) => ({ start: s.start, end: s.end, type: s.type, severity: s.severity, note: s.note, antecedent: s.antecedent })),
    });
  }

  window.WQErrors = { render };
})();
