"""A loopback stand-in for the Hugging Face Hub: the routes ``huggingface_hub`` calls to fetch a dataset.

``HubServer({"owner/name": {"main": {"file.jsonl": b"..."}, "refs/convert/parquet": {...}}})`` serves, on
127.0.0.1, each revision as a commit (its id the SHA-1 of its file list) through

- ``GET /api/datasets/{repo}/revision/{rev}``: revision info (``sha``, ``siblings``) for ``repo_info``;
- ``GET /api/datasets/{repo}/tree/{rev}[/{path}]``: the file listing, as ``list_repo_tree`` reads it;
- ``HEAD|GET /datasets/{repo}/resolve/{rev}/{path}``: a file, with the ``X-Repo-Commit`` and ``ETag``
  headers ``hf_hub_download`` reads.

``rev`` is a branch name, URL-encoded (``refs%2Fconvert%2Fparquet``) as huggingface_hub sends it, or a
commit id. An unknown repository or revision answers 404 with the Hub's ``X-Error-Code``. Every request's
method and raw path are logged in ``requests``.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit

_API = re.compile(r"^/api/datasets/([^/]+/[^/]+)/(revision|tree)/([^/]+)(?:/(.*))?$")
_RESOLVE = re.compile(r"^/datasets/([^/]+/[^/]+)/resolve/([^/]+)/(.+)$")


def commit_of(files: dict[str, bytes]) -> str:
    """A revision's commit id: 40 hex digits, fixed by its files."""
    digest = hashlib.sha1()
    for path in sorted(files):
        digest.update(path.encode() + b"\0" + hashlib.sha1(files[path]).digest())
    return digest.hexdigest()


class HubServer:
    def __init__(self, repos: dict[str, dict[str, dict[str, bytes]]]):
        self.repos = repos
        self.requests: list[tuple[str, str]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                server._answer(self, body=True)

            def do_HEAD(self):
                server._answer(self, body=False)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> HubServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()

    def commit(self, repo: str, revision: str) -> str:
        return commit_of(self.repos[repo][revision])

    def paths(self) -> list[str]:
        return [path for _, path in self.requests]

    # ------------------------------------------------------------------ answers

    def _files(self, repo: str, rev: str) -> tuple[str, dict[str, bytes]] | None:
        for files in self.repos.get(repo, {}).values():
            if rev == commit_of(files):
                return rev, files
        files = self.repos.get(repo, {}).get(rev)
        return (commit_of(files), files) if files is not None else None

    def _answer(self, handler: BaseHTTPRequestHandler, *, body: bool) -> None:
        raw = urlsplit(handler.path).path
        self.requests.append((handler.command, handler.path))
        api, resolve = _API.match(raw), _RESOLVE.match(raw)
        match = api or resolve
        if match is None:
            return self._send(handler, 404, b"not a Hub route", {"X-Error-Code": "RepoNotFound"}, body)
        repo, rev = match.group(1), unquote(match.group(3) if api else match.group(2))
        if repo not in self.repos:
            return self._send(handler, 404, b"Repository not found", {"X-Error-Code": "RepoNotFound"}, body)
        found = self._files(repo, rev)
        if found is None:
            return self._send(handler, 404, b"Invalid rev id", {"X-Error-Code": "RevisionNotFound"}, body)
        commit, files = found
        if api and api.group(2) == "revision":
            info = {
                "id": repo,
                "sha": commit,
                "private": False,
                "siblings": [{"rfilename": path} for path in sorted(files)],
            }
            return self._send_json(handler, info, body)
        if api:
            prefix = unquote(api.group(4) or "")
            listing = [
                {"type": "file", "oid": hashlib.sha1(data).hexdigest(), "size": len(data), "path": path}
                for path, data in sorted(files.items())
                if not prefix or path.startswith(prefix.rstrip("/") + "/")
            ]
            return self._send_json(handler, listing, body)
        path = unquote(resolve.group(3))
        if path not in files:
            return self._send(handler, 404, b"Entry not found", {"X-Error-Code": "EntryNotFound"}, body)
        data = files[path]
        headers = {"X-Repo-Commit": commit, "ETag": f'"{hashlib.sha256(data).hexdigest()}"'}
        return self._send(handler, 200, data, headers, body)

    def _send_json(self, handler: BaseHTTPRequestHandler, obj: object, body: bool) -> None:
        self._send(handler, 200, json.dumps(obj).encode(), {"Content-Type": "application/json"}, body)

    @staticmethod
    def _send(handler, status: int, data: bytes, headers: dict[str, str], body: bool) -> None:
        handler.send_response(status)
        for name, value in headers.items():
            handler.send_header(name, value)
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        if body:
            handler.wfile.write(data)


# --------------------------------------------------------------------------- the release, as the Hub holds it

REPO = "Lurunchik/WikiHowNFQA"
PARQUET_REVISION = "refs/convert/parquet"
#: A loading script: fetching the data must never run it (nor even download it).
LOADING_SCRIPT = b"raise SystemExit('the loading script was run')\n"


def parquet_bytes(rows: list[dict]) -> bytes:
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(rows), sink)
    return sink.getvalue()


def release_repo(qa_jsonl: bytes, conversion: dict[str, list[dict]]) -> dict[str, dict[str, bytes]]:
    """The release's repository: ``main`` with the JSONL, a loading script and a card; the Parquet
    conversion branch with ``default/<split>/0000.parquet`` for each split of ``conversion``."""
    return {
        "main": {
            "WikiHowNFQA.jsonl": qa_jsonl,
            "WikiHowNFQA.py": LOADING_SCRIPT,
            "README.md": b"---\nlicense: cc-by-4.0\n---\n# WikiHowNFQA\n",
        },
        PARQUET_REVISION: {
            f"default/{split}/0000.parquet": parquet_bytes(rows) for split, rows in conversion.items()
        },
    }


def go_online(monkeypatch, url: str, cache) -> None:
    """Point huggingface_hub at the Hub at ``url`` (``HF_ENDPOINT``, read when the command runs), its
    cache at ``cache``; the suite's ``HF_HUB_OFFLINE=1`` is lifted for this test only."""
    from huggingface_hub import constants

    monkeypatch.setenv("HF_ENDPOINT", url)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))


def go_offline(monkeypatch) -> None:
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
