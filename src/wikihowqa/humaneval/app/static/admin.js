// The admin page: progress, assessor links, downloads. Everything shown is set through textContent.
"use strict";

(function () {
  const { el } = window.WQ;
  const KEY = "wq-admin";
  const fragment = location.hash.slice(1);
  if (fragment) {
    sessionStorage.setItem(KEY, fragment);
    history.replaceState(null, "", location.pathname);
  }
  const token = sessionStorage.getItem(KEY);
  window.addEventListener("hashchange", () => location.reload());
  const toast = document.getElementById("toast");

  function showError(message) {
    toast.textContent = message;
    toast.hidden = false;
    setTimeout(() => (toast.hidden = true), 8000);
  }

  async function api(path, options) {
    const opts = options || {};
    const headers = { Authorization: "Bearer " + token };
    if (opts.body !== undefined) headers["Content-Type"] = "application/json";
    const response = await fetch(path, { method: opts.method || "GET", headers, body: opts.body, cache: "no-store" });
    if (!response.ok) {
      let message = "the server answered " + response.status;
      try {
        message = (await response.json()).error || message;
      } catch (e) {
        /* not JSON */
      }
      throw new Error(message);
    }
    return response;
  }

  async function download(path, name) {
    try {
      const blob = await (await api(path)).blob();
      const url = URL.createObjectURL(blob);
      const a = el("a", { href: url, download: name });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
    } catch (err) {
      showError(err.message);
    }
  }

  function linkField(value) {
    const input = el("input", { type: "text", readonly: true, value, class: "link", "aria-label": "link" });
    input.addEventListener("focus", () => input.select());
    return input;
  }

  async function refresh() {
    let progress;
    let assessors;
    try {
      progress = await (await api("/api/admin/progress")).json();
      assessors = (await (await api("/api/admin/assessors")).json()).assessors;
    } catch (err) {
      showError(err.message);
      return;
    }
    document.getElementById("title").textContent = "Study " + progress.study_id;
    document.getElementById("progress").textContent = progress.judgments + " judgments";
    document.getElementById("where").textContent =
      "Created " + progress.created + " from the task files in " + progress.folder +
      " (sha256 " + String(progress.files_sha256).slice(0, 12) + "…) · judgments in " + progress.database;
    const rows = Object.entries(progress.parts).map(([part, p]) =>
      el(
        "tr",
        {},
        ...[part, p.tasks, p.assessors_per_item, p.judgments + " / " + p.target, p.inattentive, p.complete_tasks, p.open_need, p.assessors, p.started, p.finished].map((v) =>
          el("td", { text: String(v) })
        )
      )
    );
    document.querySelector("#parts tbody").replaceChildren(...rows);

    const select = document.getElementById("add-part");
    if (!select.options.length) {
      for (const part of Object.keys(progress.parts)) select.append(el("option", { value: part, text: part }));
    }

    const join = document.getElementById("join");
    const urls = Object.entries(progress.join_urls || {});
    if (urls.length) {
      join.replaceChildren(
        el("p", { text: "Give crowd workers these addresses; replace {WORKER_ID} with the platform's worker id placeholder (e.g. {{%PROLIFIC_PID%}})." }),
        ...urls.map(([part, url]) => el("p", {}, el("strong", { text: part + " " }), linkField(url)))
      );
    } else {
      join.replaceChildren(el("p", { text: "Crowd join is off. Start the server with --crowd to let workers join with their worker id." }));
    }

    const body = assessors.map((a) =>
      el(
        "tr",
        { class: a.finished ? "finished" : "" },
        el("td", { text: a.assessor_id + (a.worker_id ? " (" + a.worker_id + ")" : "") }),
        el("td", { text: a.part }),
        el("td", { text: a.kind }),
        el("td", { text: a.done + " / " + a.total }),
        el("td", { text: a.last_active || "–" }),
        el("td", { text: a.completion_code }),
        el("td", {}, linkField(a.link)),
        el("td", {}, el("button", { type: "button", onclick: () => reissue(a.assessor_id) }, "New link"))
      )
    );
    document.querySelector("#assessors tbody").replaceChildren(...body);
  }

  async function reissue(id) {
    if (!window.confirm("Make a new link for " + id + "? The old link stops working.")) return;
    try {
      await api("/api/admin/assessors/" + encodeURIComponent(id) + "/token", { method: "POST", body: "{}" });
      await refresh();
    } catch (err) {
      showError(err.message);
    }
  }

  document.getElementById("download").addEventListener("click", () => download("/api/admin/judgments.jsonl", "judgments.jsonl"));
  document.getElementById("links").addEventListener("click", () => download("/api/admin/links.csv", "assessors.csv"));
  document.getElementById("refresh").addEventListener("click", refresh);
  document.getElementById("add").addEventListener("click", async () => {
    const part = document.getElementById("add-part").value;
    try {
      const made = await (await api("/api/admin/assessors", { method: "POST", body: JSON.stringify({ part }) })).json();
      document.getElementById("added").replaceChildren(el("span", { text: made.assessor_id + ": " }), linkField(made.link));
      await refresh();
    } catch (err) {
      showError(err.message);
    }
  });

  if (!token) {
    document.getElementById("main").replaceChildren(el("p", { class: "notice", text: "Open the admin link printed by `wikihowqa serve`." }));
  } else {
    refresh();
    setInterval(refresh, 15000);
  }
})();
