// Shared by every page of the explorer: data files loaded on demand, and elements built from text.
// No HTML is ever made from data: every text goes in through textContent (or a text node), every link's
// address is checked to be http(s) first, and data files are JSON parsed with JSON.parse.
"use strict";

(function () {
  const loaded = new Map();
  const waiting = new Map();

  // Each data file is one call: wikihowqaData(name, JSON text).
  window.wikihowqaData = function (name, text) {
    const value = JSON.parse(text);
    loaded.set(name, value);
    const w = waiting.get(name);
    if (w) {
      waiting.delete(name);
      w.resolve(value);
    }
  };

  // data/<name>.js through a script element: works from disk (file://), where fetch does not.
  function load(name) {
    if (loaded.has(name)) return Promise.resolve(loaded.get(name));
    if (waiting.has(name)) return waiting.get(name).promise;
    const w = {};
    w.promise = new Promise((resolve, reject) => {
      w.resolve = resolve;
      w.reject = reject;
    });
    waiting.set(name, w);
    const script = document.createElement("script");
    script.src = "data/" + name + ".js";
    script.async = true;
    script.onerror = () => {
      waiting.delete(name);
      w.reject(new Error("could not load data/" + name + ".js"));
    };
    document.head.appendChild(script);
    return w.promise;
  }

  // el("p", {className: "x"}, "text", child, ...): attributes by property or setAttribute, children as
  // text nodes (strings) or elements; no text is ever parsed as HTML.
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "className" || key === "id" || key === "type" || key === "hidden" || key === "tabIndex") {
        node[key] = value;
      } else if (key === "dataset") {
        for (const [k, v] of Object.entries(value)) node.dataset[k] = String(v);
      } else if (key === "href") {
        node.setAttribute("href", value);
      } else {
        node.setAttribute(key, String(value));
      }
    }
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      node.appendChild(typeof child === "string" || typeof child === "number" ? document.createTextNode(String(child)) : child);
    }
    return node;
  }

  // Only http(s) addresses become links; anything else (javascript:, data:, relative) stays text.
  function safeHref(url) {
    if (typeof url !== "string") return "";
    const u = url.trim();
    return /^https?:\/\//i.test(u) ? u : "";
  }

  function link(url, text) {
    const href = safeHref(url);
    return href ? el("a", { href: href, rel: "noopener noreferrer nofollow", target: "_blank" }, text) : el("span", {}, text);
  }

  function fmt(value, digits) {
    if (value === null || value === undefined || Number.isNaN(value)) return "–";
    const d = digits === undefined ? (Math.abs(value) >= 10 ? 1 : 3) : digits;
    return value.toFixed(d);
  }

  // Decimals a metric is shown with: as the leaderboard (ROUGE and shares × 100: one; 0–1 scores: three).
  function digits(metric) {
    if (!metric) return undefined;
    if (metric.scale >= 100) return 1;
    return /^Judge/.test(metric.label) ? 2 : 3;
  }

  function params() {
    return new URLSearchParams(location.hash.replace(/^#/, ""));
  }

  function setParams(values) {
    const p = new URLSearchParams();
    for (const [k, v] of Object.entries(values)) if (v !== "" && v !== null && v !== undefined) p.set(k, v);
    history.replaceState(null, "", "#" + p.toString());
  }

  function questionHref(id) {
    return "question.html#" + new URLSearchParams({ id: String(id) }).toString();
  }

  function fail(status, error) {
    status.textContent = "Could not load the data: " + (error && error.message ? error.message : String(error));
    status.classList.add("error");
  }

  window.WHQA = { load, el, safeHref, link, fmt, digits, params, setParams, questionHref, fail };
})();
