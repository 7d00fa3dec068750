"""The study as the server sees it: the task files (read-only), the database, and the assignment state.

Everything the HTTP layer does is one method here, so the rules (who may see what, what is stored, when a
worker may join) are testable without a server. Methods run on the server's event loop one at a time
and never await in between, so each read-check-write sequence is atomic.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from wikihowqa.core.errors import DatasetError, SettingsError
from wikihowqa.humaneval.app import auth
from wikihowqa.humaneval.app.assign import Assigner, slots_from_tasks
from wikihowqa.humaneval.app.db import AssessorRow, StudyDB
from wikihowqa.humaneval.app.submission import SubmissionError, build_judgment
from wikihowqa.humaneval.collected import SERVER_DB
from wikihowqa.humaneval.tasks import EXCLUSIVE_PARTS, SCALES, Study, plan_problems, read_study

DB_FILE = SERVER_DB
LOCK_FILE = "server.lock"
TASK_TYPES = ("relevance", "answer", "preference", "errors")
#: What an assessor's browser receives of a task: the public fields of the format doc, nothing else, so a
#: task file that by mistake carries key fields still cannot leak them.
PUBLIC_FIELDS: Mapping[str, tuple[str, ...]] = {
    "relevance": ("task_id", "part", "type", "question", "attention_check", "answer", "document"),
    "answer": ("task_id", "part", "type", "question", "attention_check", "answer", "passages"),
    "preference": ("task_id", "part", "type", "question", "attention_check", "answers", "passages"),
    "errors": ("task_id", "part", "type", "question", "attention_check", "answer", "passages", "error_types"),
}
INSTRUCTIONS: Mapping[str, str] = {
    "relevance": "Read the answer, then select the words of the document that support it or help to "
    "conclude it; rate how relevant the document is to the answer.",
    "trial_a": "Say how familiar the question is to you and how useful the answer is; select the parts of "
    "the answer you find useful or misleading.",
    "trial_b": "Click a sentence of the answer to see passages from its sources (the most relevant part is "
    "marked). Say how familiar the question is and how useful the answer is; select useful or misleading "
    "parts of the answer.",
    "preference": "Click a sentence of either answer to see passages from its sources. Choose the answer "
    "that is more useful, or a tie.",
    "errors_a": "Mark every error in the answer: select its words, give its type and how bad it is, and "
    "for a repetition or contradiction also select what it repeats or contradicts. Submit when every "
    "error is marked (an answer may have none).",
    "errors_b": "Click a sentence of the answer to see passages from its sources (the most relevant part is "
    "marked). Mark every error in the answer: select its words, give its type and how bad it is, and for a "
    "repetition or contradiction also select what it repeats or contradicts, in the answer or a passage. "
    "Submit when every error is marked (an answer may have none).",
}


@dataclass(frozen=True)
class ServerSettings:
    """How ``wikihowqa serve`` runs; everything has a safe default."""

    admin_token: str | None = None  # None: a random one, shown at start (terminal) or written to a file
    base_url: str | None = None  # the public address links are built from; None: http://HOST:PORT
    crowd: bool = False  # allow /join?worker_id=… (crowd platforms)
    items_per_assessor: int | None = None  # crowd/extra quota; None: the study's setting
    lease_s: float = 1800.0
    max_body_bytes: int = 512 * 1024
    durable: bool = False  # synchronous=FULL: also survive a power loss (slower commits)
    completion_url: str | None = None  # e.g. https://app.prolific.com/submissions/complete?cc={code}
    db_file: str = DB_FILE

    def __post_init__(self) -> None:
        if self.admin_token is not None:
            auth.check_admin_token(self.admin_token)
        if self.completion_url is not None and not self.completion_url.startswith(("https://", "http://")):
            raise SettingsError("completion URL must start with https:// or http://")
        if self.base_url is not None and (
            not self.base_url.startswith(("https://", "http://")) or any(c in self.base_url for c in "#? ")
        ):
            raise SettingsError(
                f"base URL {self.base_url!r}: give the public address, e.g. https://study.example.org "
                "(http:// or https://, no query or fragment)"
            )
        if self.items_per_assessor is not None and self.items_per_assessor < 1:
            raise SettingsError("items per assessor must be at least 1")
        if self.max_body_bytes < 1024:
            raise SettingsError("max body size must be at least 1024 bytes")


class ApiError(Exception):
    """An answer with a 4xx status and a one-line message for the page."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def now_iso(t: float | None = None) -> str:
    moment = datetime.fromtimestamp(time.time() if t is None else t, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _epoch(iso: str) -> float:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def _files_digest(folder: Path, manifest: Mapping[str, Any]) -> str:
    files = manifest.get("files", {})
    h = hashlib.sha256()
    for name, default in (
        ("tasks", "tasks.jsonl"),
        ("key", "key.jsonl"),
        ("assignments", "assignments.jsonl"),
    ):
        path = folder / files.get(name, default)
        h.update(name.encode())
        if path.is_file():
            h.update(path.read_bytes())
    return h.hexdigest()


def _lock(path: Path) -> Any:
    """One server per study: the assignment state lives in the server's memory, so a second server on
    the same folder would hand out the same slots twice. The OS drops the lock when the process dies,
    even by SIGKILL, so a restart never finds a stale lock."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: no advisory locks; one server is then up to the user
        return None
    handle = open(path, "a+")  # noqa: SIM115 - held open for the server's lifetime
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        raise SettingsError(f"{path.parent}: another study server is running on this folder") from None
    return handle


def _person(worker_id: str) -> str:
    """The one human behind a crowd worker's assessors (one per part they joined)."""
    return f"worker:{worker_id}"


#: Fields of a judgment measured rather than answered: a retried submission differs in these only.
TIMING_FIELDS = frozenset({"started_at", "submitted_at", "duration_ms", "client_duration_ms", "active_ms"})


def same_answers(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Whether two judgments say the same, timings aside (a retry is re-timed by the server)."""
    return {k: v for k, v in a.items() if k not in TIMING_FIELDS} == {
        k: v for k, v in b.items() if k not in TIMING_FIELDS
    }


def public_task(task: Mapping[str, Any]) -> dict[str, Any]:
    return {k: task[k] for k in PUBLIC_FIELDS[task["type"]] if k in task}


def public_taxonomy(manifest: Mapping[str, Any]) -> dict[str, Any] | None:
    """What the page shows of the study's error taxonomy: names, labels, definitions, examples and the
    antecedent rules; not which planted edits each type names (a hint at the controls)."""
    recorded = manifest.get("error_taxonomy")
    if not recorded:
        return None
    shown = ("name", "label", "definition", "example", "antecedent")
    return {
        "types": [{k: t.get(k) for k in shown} for t in recorded.get("types", [])],
        "severities": recorded.get("severities", []),
    }


class StudyService:
    def __init__(self, folder: Path, settings: ServerSettings | None = None) -> None:
        self.folder = Path(folder)
        self.settings = settings or ServerSettings()
        self.study: Study = read_study(self.folder)
        self.manifest = self.study.manifest
        self.study_id = str(self.manifest["study_id"])
        self.scales = self.manifest.get("scales") or SCALES
        self.public_taxonomy = public_taxonomy(self.manifest)
        self.tasks = self.study.tasks_by_id()
        self.key = self.study.key_by_id()
        self._check_tasks()
        # Serialised once, on first use: the task body is most of every /api/next answer, and serialising
        # them all at start would lengthen every restart.
        self.task_json: dict[str, str] = {}
        self.plan = {a["assessor_id"]: list(a["task_ids"]) for a in self.study.assignments}
        self.plan_part = {a["assessor_id"]: a["part"] for a in self.study.assignments}
        parts = self.manifest.get("parts", {})
        study_settings = self.manifest.get("settings", {})
        self.quota = int(self.settings.items_per_assessor or study_settings.get("items_per_assessor") or 10)
        self.per_item = {
            p: int(
                parts.get(p, {}).get("assessors_per_item") or study_settings.get("assessors_per_item") or 3
            )
            for p in {t["part"] for t in self.tasks.values()}
        }
        self.groups = self.manifest.get("exclusive_parts") or [list(g) for g in EXCLUSIVE_PARTS]
        self.exclusive = {p: set(g) - {p} for g in self.groups for p in g}
        self._check_plan()
        self._lock = _lock(self.folder / LOCK_FILE)
        try:
            self.db = StudyDB(self.folder / self.settings.db_file, durable=self.settings.durable)
            self._register()
        except BaseException:
            if self._lock is not None:
                self._lock.close()
            raise
        self.assessors: dict[str, AssessorRow] = {}
        self.by_digest: dict[str, str] = {}
        self.by_worker: dict[str, dict[str, str]] = {}
        for row in self.db.assessors():
            self._remember(row)
        self.assigner = Assigner(
            slots_from_tasks(self.study.tasks), self.plan, self.per_item, self.settings.lease_s
        )
        for row in self.assessors.values():
            if row.worker_id is not None:
                self.assigner.link(row.assessor_id, _person(row.worker_id))
        for assessor_id, task_id, shown_at in self.db.shown():
            self.assigner.mark_shown(assessor_id, task_id, _epoch(shown_at))
        for task_id, assessor_id, attentive in self.db.judgment_keys():
            self.assigner.mark_judged(assessor_id, task_id, attentive is not False)
        self.last_seen: dict[str, float] = {}

    # ------------------------------------------------------------------ loading

    def _check_tasks(self) -> None:
        for task_id, task in self.tasks.items():
            if task.get("type") not in TASK_TYPES:
                raise DatasetError(
                    f"{self.folder}/tasks.jsonl: task {task_id}: unknown type {task.get('type')!r}"
                )

    def _check_plan(self) -> None:
        """A plan that breaks the rules (say, edited by hand to give one slot the relevance and the trial
        task of one article) would leak the answer key to that slot: refused before anything is served."""
        problems = plan_problems(self.study.tasks, self.study.assignments, self.groups)
        if problems:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise DatasetError(f"{self.folder}/assignments.jsonl: {problems[0]}{more}")

    def _register(self) -> None:
        """First start: create the study in the database (a token per plan slot). Later starts: the same
        study, and task files unchanged once judgments exist (else judgments would point at other text)."""
        meta = self.db.meta()
        digest = _files_digest(self.folder, self.manifest)
        if "study_id" in meta and meta["study_id"] != self.study_id:
            raise DatasetError(
                f"{self.db.path}: belongs to study {meta['study_id']!r}, not {self.study_id!r}; "
                "move it away to start a new study"
            )
        if meta.get("files_sha256") not in (None, digest):
            n = self.db.count_judgments()
            if n:
                raise DatasetError(
                    f"{self.folder}: task files changed after {n} judgment(s) were collected; "
                    f"restore them or start a new study folder"
                )
            self.db.clear_shown()
            self.db.delete_unused_plan_assessors(set(self.plan))
        known = {r.assessor_id for r in self.db.assessors()}
        created = now_iso()
        self.db.add_assessors(
            [self._new_row(a, self.plan_part[a], "plan", None, created) for a in self.plan if a not in known]
        )
        self.db.set_meta(
            {
                "study_id": self.study_id,
                "files_sha256": digest,
                "crowd_secret": meta.get("crowd_secret") or auth.new_token(),
                "created": meta.get("created") or created,
            }
        )
        self.crowd_secret = self.db.meta()["crowd_secret"]

    def _new_row(
        self, assessor_id: str, part: str, kind: str, worker_id: str | None, created: str
    ) -> AssessorRow:
        token = auth.new_token()
        return AssessorRow(
            assessor_id, part, kind, token, auth.digest(token), worker_id, auth.completion_code(), created
        )

    def _remember(self, row: AssessorRow) -> None:
        old = self.assessors.get(row.assessor_id)
        if old is not None:
            self.by_digest.pop(old.token_digest, None)
        self.assessors[row.assessor_id] = row
        self.by_digest[row.token_digest] = row.assessor_id
        if row.worker_id is not None:
            self.by_worker.setdefault(row.worker_id, {})[row.part] = row.assessor_id

    def close(self) -> None:
        self.db.close()
        if self._lock is not None:
            self._lock.close()  # releases the lock
            self._lock = None

    # ------------------------------------------------------------------ identities

    def authenticate(self, token: str | None) -> AssessorRow:
        if not token:
            raise ApiError(401, "no access token: open the link you were given")
        assessor_id = self.by_digest.get(auth.digest(token))
        row = self.assessors.get(assessor_id) if assessor_id else None
        if row is None or not auth.tokens_equal(token, row.token):
            raise ApiError(401, "unknown access token: open the link you were given")
        return row

    def is_admin(self, token: str | None, admin_token: str) -> bool:
        return bool(token) and auth.tokens_equal(token or "", admin_token)

    def join(self, worker_id: str, part: str | None) -> AssessorRow:
        """A crowd worker arriving from a platform: resume their assessor, or make one, never in a part
        exclusive with one they already worked in."""
        if not self.settings.crowd:
            raise ApiError(403, "this study does not take crowd workers (start the server with --crowd)")
        if not auth.valid_worker_id(worker_id):
            raise ApiError(400, "the worker id must be 1 to 128 characters of [A-Za-z0-9_.:@-]")
        mine = self.by_worker.get(worker_id, {})
        if part is None:
            unfinished = [a for a in mine.values() if not self._finished(a)]
            if unfinished:
                return self.assessors[unfinished[-1]]
            allowed = [
                p for p in self.per_item if not (self.exclusive.get(p, set()) & set(mine)) and p not in mine
            ]
            now = time.time()
            person = _person(worker_id)
            open_parts = [(self.assigner.open_need(p, now, person), p) for p in allowed]
            open_parts = [x for x in open_parts if x[0] > 0]
            if not open_parts:
                raise ApiError(409, "there are no tasks left for you in this study; thank you")
            part = max(open_parts)[1]
        if part not in self.per_item:
            raise ApiError(404, f"this study has no part {part!r}")
        if part in mine:
            return self.assessors[mine[part]]
        clash = sorted(self.exclusive.get(part, set()) & set(mine))
        if clash:
            raise ApiError(403, f"you already took part in {clash[0]}, so you cannot take part in {part}")
        assessor_id = auth.crowd_assessor_id(self.crowd_secret, worker_id, part)
        row = self._new_row(assessor_id, part, "crowd", worker_id, now_iso())
        self.db.add_assessors([row])
        self._remember(row)
        self.assigner.link(assessor_id, _person(worker_id))
        return row

    def add_assessor(self, part: str) -> AssessorRow:
        if part not in self.per_item:
            raise ApiError(404, f"this study has no part {part!r}")
        n = sum(1 for a in self.assessors.values() if a.kind == "extra" and a.part == part)
        assessor_id = f"{part}-x{n + 1:03d}"
        while assessor_id in self.assessors:
            n += 1
            assessor_id = f"{part}-x{n + 1:03d}"
        row = self._new_row(assessor_id, part, "extra", None, now_iso())
        self.db.add_assessors([row])
        self._remember(row)
        return row

    def reissue(self, assessor_id: str) -> AssessorRow:
        row = self.assessors.get(assessor_id)
        if row is None:
            raise ApiError(404, f"no assessor {assessor_id!r}")
        token = auth.new_token()
        self.db.set_token(assessor_id, token, auth.digest(token))
        new = AssessorRow(**{**row.__dict__, "token": token, "token_digest": auth.digest(token)})
        self._remember(new)
        return new

    # ------------------------------------------------------------------ the assessor's work

    def _total(self, a: AssessorRow) -> int:
        return len(self.plan[a.assessor_id]) if a.kind == "plan" else self.quota

    def _next_id(self, a: AssessorRow, now: float) -> str | None:
        if a.kind == "plan":
            return self.assigner.next_planned(a.assessor_id)
        return self.assigner.next_dynamic(a.assessor_id, a.part, self.quota, now)

    def _finished(self, assessor_id: str) -> bool:
        a = self.assessors[assessor_id]
        if a.kind == "plan":
            return self.assigner.next_planned(assessor_id) is None
        return len(self.assigner.judged[assessor_id]) >= self.quota

    def me(self, a: AssessorRow) -> dict[str, Any]:
        return {
            "assessor_id": a.assessor_id,
            "part": a.part,
            "done": len(self.assigner.judged[a.assessor_id]),
            "total": self._total(a),
            "instructions": INSTRUCTIONS.get(a.part, ""),
            "scales": self.scales,
            **({"error_taxonomy": self.public_taxonomy} if self.public_taxonomy else {}),
        }

    def next_task(self, a: AssessorRow) -> str:
        """The JSON answer of /api/next: the current task (the same one until it is judged), or the end."""
        now = time.time()
        self.last_seen[a.assessor_id] = now
        task_id = self._next_id(a, now)
        done = len(self.assigner.judged[a.assessor_id])
        if task_id is None:
            finished = done > 0
            code = a.completion_code if finished else None
            url = (
                self.settings.completion_url.replace("{code}", code)
                if code and self.settings.completion_url
                else None
            )
            return json.dumps(
                {
                    "finished": finished,
                    "done": done,
                    "total": self._total(a),
                    "completion_code": code,
                    "completion_url": url,
                    "message": "All done, thank you!"
                    if finished
                    else "No task is available for you right now.",
                }
            )
        shown = self.assigner.shown[a.assessor_id].get(task_id)
        if shown is None:
            shown = now
            self.db.add_shown(a.assessor_id, task_id, now_iso(now))
            self.assigner.mark_shown(a.assessor_id, task_id, now)
        elapsed = max(0, int((now - shown) * 1000))
        body = self.task_json.get(task_id)
        if body is None:
            body = self.task_json[task_id] = json.dumps(public_task(self.tasks[task_id]), ensure_ascii=False)
        return (
            f'{{"finished": false, "done": {done}, "total": {self._total(a)}, "elapsed_ms": {elapsed}, '
            f'"task": {body}}}'
        )

    def submit(self, a: AssessorRow, body: Any) -> tuple[int, dict[str, Any]]:
        """Validate and store a judgment once. Returns (HTTP status, answer)."""
        if not isinstance(body, Mapping):
            raise ApiError(400, "the body must be a JSON object")
        task_id = body.get("task_id")
        if not isinstance(task_id, str) or task_id not in self.tasks:
            raise ApiError(404, f"unknown task {str(task_id)[:80]!r}")
        if not self.assigner.may_take(a.assessor_id, task_id):
            raise ApiError(403, f"task {task_id} is not assigned to you")
        now = time.time()
        shown = self.assigner.shown[a.assessor_id][task_id]
        try:
            judgment = build_judgment(
                self.tasks[task_id],
                body,
                study_id=self.study_id,
                assessor_id=a.assessor_id,
                started_at=now_iso(shown),
                submitted_at=now_iso(now),
                elapsed_ms=max(0, int((now - shown) * 1000)),
                scales=self.scales,
            )
        except SubmissionError as exc:
            raise ApiError(exc.status, str(exc)) from None
        truth = self.key.get(task_id, {}).get("attention_answer")
        attentive = None if truth is None else judgment["attention"] == truth
        stored = self.db.insert_judgment(
            judgment["judgment_id"],
            task_id,
            a.assessor_id,
            attentive,
            json.dumps(judgment, ensure_ascii=False),
        )
        if stored.outcome == "id_taken":
            raise ApiError(409, "this judgment_id is already used by another submission")
        if stored.outcome == "already_judged":
            raise ApiError(409, f"you already judged task {task_id}")
        if stored.outcome == "duplicate" and not same_answers(json.loads(stored.body or "{}"), judgment):
            raise ApiError(
                409,
                f"judgment {judgment['judgment_id']} is already stored with different answers; "
                "the first submission is kept",
            )
        if stored.outcome == "stored":
            self.assigner.mark_judged(a.assessor_id, task_id, attentive is not False)
        self.last_seen[a.assessor_id] = now
        answer = {
            "judgment_id": judgment["judgment_id"],
            "duplicate": stored.outcome == "duplicate",
            "done": len(self.assigner.judged[a.assessor_id]),
            "total": self._total(a),
        }
        return (200 if stored.outcome == "duplicate" else 201), answer

    def own_judgments(self, a: AssessorRow) -> list[dict[str, Any]]:
        return [json.loads(j.body) for j in self.db.judgments_of(a.assessor_id)]

    def own_judgment(self, a: AssessorRow, judgment_id: str) -> dict[str, Any]:
        row = self.db.judgment(judgment_id)
        # Someone else's judgment answers exactly like a missing one: no way to probe for ids.
        if row is None or row.assessor_id != a.assessor_id:
            raise ApiError(404, "no such judgment of yours")
        return json.loads(row.body)

    # ------------------------------------------------------------------ admin

    def export_lines(self) -> Iterator[str]:
        for j in self.db.judgments():
            yield j.body + "\n"

    def progress(self) -> dict[str, Any]:
        now = time.time()
        parts: dict[str, dict[str, Any]] = {}
        for part, task_ids in self.assigner.part_tasks.items():
            n = self.per_item[part]
            judged = sum(self.assigner.judgments[t] for t in task_ids)
            counted = sum(self.assigner.counted[t] for t in task_ids)
            members = [a for a in self.assessors.values() if a.part == part]
            parts[part] = {
                "tasks": len(task_ids),
                "assessors_per_item": n,
                "target": n * len(task_ids),
                "judgments": judged,
                "counted": counted,
                "inattentive": judged - counted,
                "complete_tasks": sum(1 for t in task_ids if self.assigner.counted[t] >= n),
                "open_need": self.assigner.open_need(part, now),
                "assessors": len(members),
                "started": sum(1 for a in members if self.assigner.shown[a.assessor_id]),
                "finished": sum(1 for a in members if self._finished(a.assessor_id)),
            }
        meta = self.db.meta()
        return {
            "study_id": self.study_id,
            "created": meta.get("created"),
            "files_sha256": meta.get("files_sha256"),
            "folder": str(self.folder),
            "database": str(self.db.path),
            "crowd": self.settings.crowd,
            "judgments": self.db.count_judgments(),
            "parts": parts,
        }

    def assessor_rows(self) -> list[dict[str, Any]]:
        rows = []
        for a in self.assessors.values():
            shown = self.assigner.shown[a.assessor_id]
            last = max([*shown.values(), self.last_seen.get(a.assessor_id, 0.0)], default=0.0)
            rows.append(
                {
                    "assessor_id": a.assessor_id,
                    "part": a.part,
                    "kind": a.kind,
                    "done": len(self.assigner.judged[a.assessor_id]),
                    "total": self._total(a),
                    "finished": self._finished(a.assessor_id),
                    "last_active": now_iso(last) if last else None,
                    "completion_code": a.completion_code,
                    "worker_id": a.worker_id,
                    "token": a.token,
                }
            )
        return rows


__all__ = ["ApiError", "ServerSettings", "StudyService", "now_iso", "public_task"]
