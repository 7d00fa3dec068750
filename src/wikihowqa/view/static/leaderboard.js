// The leaderboard's tables sort by any column (its header button; again to reverse), and the paired
// tests filter by metric. Rows are moved, never rebuilt: their text stays what the page was written with.
"use strict";

(function () {
  function value(row, column, kind) {
    const cell = row.children[column];
    const raw = cell ? cell.dataset.value : "";
    if (kind === "number") {
      const n = parseFloat(raw);
      return Number.isFinite(n) ? n : null;
    }
    return (raw || (cell ? cell.textContent : "")).toLowerCase();
  }

  function sortBy(table, th, button) {
    const column = Array.from(th.parentNode.children).indexOf(th);
    const kind = button.dataset.kind;
    const current = th.getAttribute("aria-sort");
    // first click: numbers best (largest) first, text A to Z; each further click reverses
    const descending = current === "none" || !current ? kind === "number" : current === "ascending";
    for (const other of th.parentNode.children) if (other.hasAttribute("aria-sort")) other.setAttribute("aria-sort", "none");
    th.setAttribute("aria-sort", descending ? "descending" : "ascending");
    const body = table.tBodies[0];
    const rows = Array.from(body.rows);
    rows.sort((a, b) => {
      const x = value(a, column, kind);
      const y = value(b, column, kind);
      if (x === null && y === null) return 0;
      if (x === null) return 1;  // missing values last, either way
      if (y === null) return -1;
      const order = x < y ? -1 : x > y ? 1 : 0;
      return descending ? -order : order;
    });
    for (const row of rows) body.appendChild(row);
  }

  for (const table of document.querySelectorAll("table.sortable")) {
    for (const button of table.querySelectorAll("thead button")) {
      button.addEventListener("click", () => sortBy(table, button.closest("th"), button));
    }
  }

  const filter = document.getElementById("metric-filter");
  if (filter) {
    filter.addEventListener("change", () => {
      for (const row of document.querySelectorAll("#tests-table tbody tr")) {
        row.hidden = filter.value !== "" && row.dataset.metric !== filter.value;
      }
    });
  }
})();
