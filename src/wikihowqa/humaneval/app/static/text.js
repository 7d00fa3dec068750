// Text, offsets and highlights for the study pages. No HTML is ever built from task text: every piece
// of text goes into the page through textContent, so passages (untrusted web text) stay inert.
//
// Offsets follow docs/humaneval-formats.md: Python string indices, i.e. Unicode code points. JavaScript
// strings index UTF-16 code units, so every view keeps maps between the two.
"use strict";

(function () {
  const WORD = /[\p{L}\p{N}\p{M}_]+(?:['’\-][\p{L}\p{N}\p{M}_]+)*/gu;

  function indexMaps(text) {
    const u2c = new Int32Array(text.length + 1);
    const c2u = [];
    let c = 0;
    let u = 0;
    while (u < text.length) {
      const code = text.charCodeAt(u);
      const pair =
        code >= 0xd800 && code <= 0xdbff && u + 1 < text.length && (text.charCodeAt(u + 1) & 0xfc00) === 0xdc00;
      u2c[u] = c;
      c2u.push(u);
      if (pair) u2c[u + 1] = c;
      u += pair ? 2 : 1;
      c += 1;
    }
    u2c[text.length] = c;
    c2u.push(text.length);
    return { u2c, c2u, length: c };
  }

  function wordSpans(text, maps) {
    const words = [];
    for (const m of text.matchAll(WORD)) {
      words.push([maps.u2c[m.index], maps.u2c[m.index + m[0].length]]);
    }
    return words;
  }

  // The word containing code point `c` (index into words), or -1.
  function wordAt(words, c) {
    let lo = 0;
    let hi = words.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (words[mid][1] <= c) lo = mid + 1;
      else if (words[mid][0] > c) hi = mid - 1;
      else return mid;
    }
    return -1;
  }

  // First word starting at or after c (words.length if none).
  function wordFrom(words, c) {
    let lo = 0;
    let hi = words.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (words[mid][1] <= c) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  // A selection made by hand rarely hits word edges: trim spaces, then widen to whole words.
  function snap(text, maps, words, start, end) {
    const ch = (c) => text.slice(maps.c2u[c], maps.c2u[c + 1]);
    while (start < end && /\s/u.test(ch(start))) start++;
    while (end > start && /\s/u.test(ch(end - 1))) end--;
    if (start >= end) return null;
    const a = wordAt(words, start);
    if (a >= 0) start = words[a][0];
    const b = wordAt(words, end - 1);
    if (b >= 0) end = words[b][1];
    return [start, end];
  }

  // Spans are {start, end, label}; label null for plain highlights. They never overlap.
  function subtract(spans, start, end) {
    const out = [];
    for (const s of spans) {
      if (s.end <= start || s.start >= end) out.push(s);
      else {
        if (s.start < start) out.push({ start: s.start, end: start, label: s.label });
        if (s.end > end) out.push({ start: end, end: s.end, label: s.label });
      }
    }
    return out;
  }

  function normalise(spans) {
    const sorted = spans.filter((s) => s.end > s.start).sort((a, b) => a.start - b.start || a.end - b.end);
    const out = [];
    for (const s of sorted) {
      const last = out[out.length - 1];
      if (last && last.label === s.label && s.start <= last.end) last.end = Math.max(last.end, s.end);
      else out.push({ start: s.start, end: s.end, label: s.label });
    }
    return out;
  }

  function setLabel(spans, start, end, label) {
    return normalise([...subtract(spans, start, end), { start, end, label }]);
  }

  function clearRange(spans, start, end) {
    return normalise(subtract(spans, start, end));
  }

  // Cut [0, length) at every boundary of sentences, spans and the pending range.
  function segments(length, sentences, spans, pending, marks) {
    const cuts = new Set([0, length]);
    for (const s of sentences) cuts.add(s.start).add(s.end);
    for (const s of spans) cuts.add(s.start).add(s.end);
    for (const m of marks || []) cuts.add(m.start).add(m.end);
    if (pending) cuts.add(pending[0]).add(pending[1]);
    const points = [...cuts].filter((c) => c >= 0 && c <= length).sort((a, b) => a - b);
    const out = [];
    let si = 0;
    let hi = 0;
    for (let k = 0; k + 1 < points.length; k++) {
      const a = points[k];
      const b = points[k + 1];
      while (si < sentences.length && sentences[si].end <= a) si++;
      while (hi < spans.length && spans[hi].end <= a) hi++;
      const sentence = si < sentences.length && sentences[si].start <= a ? si : -1;
      const span = hi < spans.length && spans[hi].start <= a ? spans[hi] : null;
      const mark = (marks || []).some((m) => m.start <= a && b <= m.end);
      const inPending = Boolean(pending && pending[0] <= a && b <= pending[1]);
      out.push({ start: a, end: b, sentence, span, mark, pending: inPending });
    }
    return out;
  }

  // Code-point offset of a DOM position (node, offset) inside `root`, whose text is exactly the view's
  // text (the leaves cover it in order, nothing else is inside): the length of the text before it.
  function offsetOf(root, node, offset, maps) {
    const range = document.createRange();
    range.setStart(root, 0);
    range.setEnd(node, offset);
    const u = range.toString().length;
    return maps.u2c[Math.min(u, maps.u2c.length - 1)];
  }

  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(props || {})) {
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else if (k === "dataset") Object.assign(node.dataset, v);
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else if (v === true) node.setAttribute(k, "");
      else if (v !== false && v !== null && v !== undefined) node.setAttribute(k, String(v));
    }
    for (const c of children) if (c !== null && c !== undefined) node.append(c);
    return node;
  }

  window.WQ = { indexMaps, wordSpans, wordAt, wordFrom, snap, setLabel, clearRange, normalise, segments, offsetOf, el };
})();
