// Texts that can be highlighted, for the study pages: the label popup, the text view (word cursor, spans,
// sentences) and mouse selection followed by hand. Split from assessor.js; the pages use window.WQ.views.
// Task text only ever goes in through textContent (see text.js).
"use strict";

(function () {
  const { indexMaps, wordSpans, snap, setLabel, clearRange, segments, offsetOf, el } = window.WQ;
  // ------------------------------------------------------------------ the label popup

  const popup = (function () {
    const box = el("div", { id: "popup", role: "dialog", "aria-label": "Label the selection", hidden: true });
    let view = null;
    const button = (text, key, action) =>
      el("button", { type: "button", class: "pop-" + key, onclick: () => action(), title: "key " + key.toUpperCase() }, text);
    box.append(
      button("Useful (U)", "u", () => view && view.mark("useful")),
      button("Misleading (M)", "m", () => view && view.mark("misleading")),
      button("Clear (X)", "x", () => view && view.clear()),
      button("Cancel (Esc)", "esc", () => view && view.cancel())
    );
    document.body.append(box);
    document.addEventListener("keydown", (e) => {
      if (box.hidden || !view) return;
      const key = e.key.toLowerCase();
      if (key === "u" || key === "m" || key === "x" || e.key === "Escape") {
        e.preventDefault();
        e.stopPropagation();
        if (key === "u") view.mark("useful");
        else if (key === "m") view.mark("misleading");
        else if (key === "x") view.clear();
        else view.cancel();
      }
    }, true);
    return {
      open(v, rect) {
        view = v;
        box.hidden = false;
        const top = Math.min(rect.bottom + 6, window.innerHeight - box.offsetHeight - 6);
        const left = Math.max(6, Math.min(rect.left, window.innerWidth - box.offsetWidth - 6));
        box.style.top = top + "px";
        box.style.left = left + "px";
      },
      close() {
        box.hidden = true;
        view = null;
      },
      get view() {
        return view;
      },
    };
  })();

  // ------------------------------------------------------------------ a text that can be highlighted

  const views = new Set();

  class TextView {
    // opts: sentences, mode ("plain": highlight, "labelled": useful/misleading, "none"), onSentence(i),
    // onChange(), marks (always-marked ranges), label (accessible name)
    constructor(text, opts) {
      this.text = text;
      this.maps = indexMaps(text);
      this.words = wordSpans(text, this.maps);
      this.sentences = opts.sentences || [];
      this.mode = opts.mode || "none";
      this.onSentence = opts.onSentence || null;
      this.onChange = opts.onChange || (() => {});
      this.onPick = opts.onPick || null; // mode "pick" (error spans): a finished selection goes here
      this.onKey = opts.onKey || null;
      this.marks = opts.marks || [];
      this.spans = [];
      this.pending = null;
      this.cursor = null;
      this.active = -1;
      const classes = ["text", "mode-" + this.mode];
      if (this.onSentence) classes.push("clickable");
      this.root = el("div", {
        class: classes.join(" "),
        tabindex: "0",
        role: "region",
        "aria-label": opts.label || "text",
      });
      this.root.addEventListener("keydown", (e) => this.keyDown(e));
      views.add(this);
      this.render();
    }

    render() {
      const parts = segments(this.maps.length, this.sentences, this.spans, this.pending, this.marks);
      const frag = document.createDocumentFragment();
      for (const s of parts) {
        const cls = [];
        if (s.sentence >= 0) cls.push("s");
        if (s.sentence >= 0 && s.sentence === this.active) cls.push("active");
        if (s.span) cls.push(s.span.label ? "hl-" + s.span.label : "hl");
        if (s.mark) cls.push("mark");
        if (s.pending) cls.push("pending");
        const leaf = el("span", { class: cls.join(" "), dataset: { o: String(s.start), s: String(s.sentence) } });
        leaf.textContent = this.text.slice(this.maps.c2u[s.start], this.maps.c2u[s.end]);
        frag.append(leaf);
      }
      this.root.replaceChildren(frag);
      const first = this.root.querySelector(".pending");
      if (first && document.activeElement === this.root) first.scrollIntoView({ block: "nearest" });
    }

    sentenceAt(offset) {
      return this.sentences.findIndex((s) => s.start <= offset && offset < s.end);
    }

    // While dragging: show the whole words the drag covers so far.
    preview(range) {
      this.pending = range;
      this.render();
    }

    // A finished drag over [start, end): snap to whole words, then mark (plain) or ask for a label.
    fromRange(start, end) {
      const snapped = snap(this.text, this.maps, this.words, start, end);
      this.cursor = null;
      this.pending = snapped;
      if (!snapped) {
        this.render();
        return;
      }
      if (this.mode === "pick") {
        this.render();
        if (this.onPick) this.onPick(this);
      } else if (this.mode === "plain") this.mark(null);
      else if (this.mode === "labelled") {
        this.render();
        popup.open(this, this.pendingRect());
      }
    }

    // A click (no selection) on a leaf of this view.
    click(leaf) {
      const at = Number(leaf.dataset.o);
      const span = this.spans.find((s) => s.start <= at && at < s.end);
      if (span && this.mode === "plain") {
        this.spans = clearRange(this.spans, span.start, span.end);
        this.changed();
        return;
      }
      if (span && this.mode === "labelled") {
        this.pending = [span.start, span.end];
        this.render();
        popup.open(this, this.pendingRect());
      }
      const s = Number(leaf.dataset.s);
      if (this.onSentence && s >= 0) this.onSentence(s);
    }

    pendingRect() {
      const marked = this.root.querySelectorAll(".pending");
      const last = marked[marked.length - 1] || this.root;
      return last.getBoundingClientRect();
    }

    mark(label) {
      if (!this.pending || this.mode === "none") return;
      this.spans = setLabel(this.spans, this.pending[0], this.pending[1], label);
      this.pending = null;
      popup.close();
      this.changed();
    }

    clear() {
      if (!this.pending) return;
      this.spans = clearRange(this.spans, this.pending[0], this.pending[1]);
      this.pending = null;
      popup.close();
      this.changed();
    }

    cancel() {
      this.pending = null;
      this.cursor = null;
      popup.close();
      this.render();
    }

    remove(span) {
      this.spans = clearRange(this.spans, span.start, span.end);
      this.changed();
    }

    setActive(i) {
      this.active = i;
      this.render();
    }

    changed() {
      this.render();
      this.onChange();
    }

    // Keyboard: ←/→ move a word cursor, Shift extends it; U/M (or H/Enter) mark, X clears, Enter opens.
    keyDown(e) {
      const key = e.key;
      if (key === "ArrowRight" || key === "ArrowLeft" || key === "Home" || key === "End") {
        if (!this.words.length) return;
        e.preventDefault();
        let anchor = 0;
        let focus = 0;
        if (this.cursor) {
          ({ anchor, focus } = this.cursor);
          const last = this.words.length - 1;
          if (key === "Home") focus = 0;
          else if (key === "End") focus = last;
          else focus = Math.max(0, Math.min(last, focus + (key === "ArrowRight" ? 1 : -1)));
          if (!e.shiftKey) anchor = focus;
        }
        this.cursor = { anchor, focus };
        const a = Math.min(anchor, focus);
        const b = Math.max(anchor, focus);
        this.pending = [this.words[a][0], this.words[b][1]];
        popup.close();
        this.render();
        return;
      }
      if (this.onKey && this.onKey(e, this)) return;
      if (!this.pending) return;
      const lower = key.toLowerCase();
      if (this.mode === "labelled" && (lower === "u" || lower === "m")) {
        e.preventDefault();
        this.mark(lower === "u" ? "useful" : "misleading");
      } else if (this.mode === "plain" && (lower === "h" || key === "Enter")) {
        e.preventDefault();
        this.mark(null);
      } else if (this.mode !== "none" && (lower === "x" || key === "Delete" || key === "Backspace")) {
        e.preventDefault();
        this.clear();
      } else if (key === "Enter" && this.onSentence) {
        e.preventDefault();
        const s = this.sentenceAt(this.pending[0]);
        if (s >= 0) this.onSentence(s);
      } else if (key === "Escape") {
        e.preventDefault();
        this.cancel();
      }
    }
  }

  // ------------------------------------------------------------------ mouse selection
  //
  // Drags are followed here rather than left to the browser's own text selection: the views re-render
  // their text after every change, and Chromium then fails to start the next native drag-selection (every
  // other drag selected nothing). Following the mouse also lets the view show, while dragging, exactly the
  // whole words that will be marked.

  function caretAt(x, y) {
    if (document.caretPositionFromPoint) {
      const p = document.caretPositionFromPoint(x, y);
      return p ? { node: p.offsetNode, offset: p.offset } : null;
    }
    if (document.caretRangeFromPoint) {
      const r = document.caretRangeFromPoint(x, y);
      return r ? { node: r.startContainer, offset: r.startOffset } : null;
    }
    return null;
  }

  // The text offset under the mouse; outside the view (a drag that overshoots) the nearest end.
  function offsetAt(view, x, y) {
    const box = view.root.getBoundingClientRect();
    if (y < box.top) return 0;
    if (y > box.bottom) return view.maps.length;
    const cx = Math.min(Math.max(x, box.left + 1), box.right - 1);
    const caret = caretAt(cx, y);
    if (!caret || !view.root.contains(caret.node)) return null;
    return offsetOf(view.root, caret.node, caret.offset, view.maps);
  }

  function viewOf(node) {
    for (const view of views) if (view.root.contains(node)) return view;
    return null;
  }

  let drag = null;

  function autoscroll() {
    if (!drag || !drag.moved) return;
    const column = drag.view.root.closest(".col");
    if (column) {
      const box = column.getBoundingClientRect();
      const edge = 40;
      if (drag.y > box.bottom - edge) column.scrollTop += 12;
      else if (drag.y < box.top + edge) column.scrollTop -= 12;
      else return requestAnimationFrame(autoscroll);
      track(drag, drag.x, drag.y);
    }
    requestAnimationFrame(autoscroll);
  }

  function track(d, x, y) {
    const at = offsetAt(d.view, x, y);
    if (at === null) return;
    d.focus = at;
    const start = Math.min(d.anchor, d.focus);
    const end = Math.max(d.anchor, d.focus);
    d.view.preview(snap(d.view.text, d.view.maps, d.view.words, start, end));
  }

  document.addEventListener("mousedown", (e) => {
    if (e.button !== 0 || !e.target.closest) return;
    const root = e.target.closest(".text");
    const view = root && viewOf(root);
    if (!view || view.mode === "none") return;
    const at = offsetAt(view, e.clientX, e.clientY);
    if (at === null) return;
    e.preventDefault(); // no native selection: this drag is followed by hand
    view.root.focus({ preventScroll: true });
    drag = { view, anchor: at, focus: at, x: e.clientX, y: e.clientY, x0: e.clientX, y0: e.clientY, moved: false };
  });

  document.addEventListener("mousemove", (e) => {
    if (!drag) return;
    drag.x = e.clientX;
    drag.y = e.clientY;
    if (!drag.moved && Math.hypot(e.clientX - drag.x0, e.clientY - drag.y0) < 4) return;
    if (!drag.moved) {
      drag.moved = true;
      popup.close();
      requestAnimationFrame(autoscroll);
    }
    track(drag, e.clientX, e.clientY);
  });

  document.addEventListener("mouseup", (e) => {
    if (e.button !== 0) return;
    const d = drag;
    drag = null;
    if (d) {
      if (d.moved) {
        track(d, e.clientX, e.clientY);
        d.view.fromRange(Math.min(d.anchor, d.focus), Math.max(d.anchor, d.focus));
      } else if (e.detail >= 2) {
        d.view.fromRange(d.anchor, d.anchor + 1); // a double click marks the word
      } else {
        const leaf = e.target.closest && e.target.closest("[data-o]");
        if (leaf && d.view.root.contains(leaf)) d.view.click(leaf);
      }
      return;
    }
    if (e.target.closest && e.target.closest("#popup")) return;
    const leaf = e.target.closest && e.target.closest("[data-o]");
    const view = leaf && viewOf(leaf);
    // Views without highlighting keep the browser's selection (to copy text); a plain click opens a sentence.
    if (view && window.getSelection().isCollapsed) view.click(leaf);
    else if (popup.view && !(e.target.closest && e.target.closest(".text"))) popup.view.cancel();
  });

  window.WQ.views = { TextView, popup, views };
})();
