"""``wikihowqa demo``: the whole pipeline on the embedded corpus, everything written under one folder.

Layout: ``real-examples/`` (the release instances imported), ``real-examples-hydrated/`` (their QA part alone,
hydrated from a local archive) and ``dataset/`` (the demo corpus built from the replay site), which holds
every later output where the command that makes it puts it by default, so that what the demo shows is what the
commands do: ``dataset/stats/`` (stats), ``dataset/predictions/<system>.jsonl`` (answer), ``dataset/report/``
(evaluate), ``dataset/study/`` (tasks), ``dataset/study/predictions/`` (study-predictions),
``dataset/study/report/`` (their evaluation, and meta-evaluate's output beside it) and ``dataset/site/``
(view, the results explorer). Each step is a function of the :class:`DemoContext` that records rows for the
closing table, so a stage adds itself by adding one step here. The steps call only the stages' public
functions: the stages do not know the demo (its folder names live here), and ``import-linter`` keeps it so
(``pyproject.toml``).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from rich.console import Console

from wikihowqa.answer import ALL, PREDICTIONS_DIR, answer_split
from wikihowqa.collect.archive_settings import ArchiveSettings
from wikihowqa.collect.build import BuildSettings, build, parked_state
from wikihowqa.collect.http import CDX, MEDIAWIKI, PLAYBACK, HttpSettings
from wikihowqa.core.errors import DatasetError
from wikihowqa.core.files import write_json
from wikihowqa.dataset.folder import DatasetFolder
from wikihowqa.dataset.readers import read_predictions
from wikihowqa.dataset.writers import write_jsonl
from wikihowqa.demo.paths import corpus_path, real_examples_path
from wikihowqa.evaluate.bertscore import BertScoreConfig
from wikihowqa.evaluate.pipeline import ALL_SPLITS, EvaluationSettings, evaluate
from wikihowqa.evaluate.report import leaderboard_table
from wikihowqa.evaluate.report import write_report as write_evaluation
from wikihowqa.humaneval.analysis import analyze, write_analysis
from wikihowqa.humaneval.deteriorate import DeteriorationSettings, deteriorate_examples
from wikihowqa.humaneval.rank import make_ranker
from wikihowqa.humaneval.review import write_review_template
from wikihowqa.humaneval.simulate import SimulationSettings, simulate_judgments
from wikihowqa.humaneval.simulate_errors import read_reference
from wikihowqa.humaneval.tables import analysis_tables
from wikihowqa.humaneval.tasks import ALL_PARTS, PARTS, StudySettings, build_study, write_study
from wikihowqa.metaeval.agreement import MetaSettings
from wikihowqa.metaeval.report import agreement_table
from wikihowqa.metaeval.report import write_report as write_meta_evaluation
from wikihowqa.metaeval.stage import (
    meta_evaluate_folders,
    write_study_predictions,
)
from wikihowqa.parse.corpus_check import check_corpus
from wikihowqa.release.compare import COMPARE_FILE, compare_files
from wikihowqa.release.coverage import COVERAGE_MD
from wikihowqa.release.hydrate import HYDRATION_DIR, HydrateSettings, hydrate
from wikihowqa.release.importer import import_release
from wikihowqa.replay import ReplaySite
from wikihowqa.replay.release_pages import archive_corpus, release_captures
from wikihowqa.split.audit import audit_dataset
from wikihowqa.split.splitter import SplitSettings, split_dataset
from wikihowqa.stats.report import REPORT_MD, describe
from wikihowqa.view import build_site

#: The demo answers' error spans annotated by reading them (tests/humaneval/data/demo_error_spans.jsonl).
ERROR_SPANS_FILE = "error_spans.jsonl"

#: In the demo's output folder: the names of the subfolders the demo created there, and so may rewrite.
OWNED_FILE = ".wikihowqa-demo.json"


def owned_folders(out: Path) -> set[str]:
    """Names of the folders under ``out`` that a demo run created (none if no run left a record)."""
    try:
        names = json.loads((Path(out) / OWNED_FILE).read_text(encoding="utf-8"))["created"]
    except (FileNotFoundError, json.JSONDecodeError, KeyError, TypeError):
        return set()
    return {n for n in names if isinstance(n, str)} if isinstance(names, list) else set()


def fresh_folder(out: Path, name: str) -> Path:
    """``out/name`` for a step that writes it whole: a folder an earlier demo run created is removed, and a
    new one is recorded as the demo's. A folder the demo did not create is returned untouched, for the step's
    own checks to refuse if it holds anything foreign; a rerun into the same ``out`` thus starts clean
    without ever deleting a user's folder."""
    out = Path(out)
    target = out / name
    owned = owned_folders(out)
    if target.is_symlink() or (target.exists() and name not in owned):
        return target
    if target.exists():
        shutil.rmtree(target)
    else:
        write_json(out / OWNED_FILE, {"created": sorted(owned | {name})})
    return target


@dataclass
class DemoContext:
    out: Path
    settings: dict[str, Any] = field(default_factory=dict)
    produced: list[tuple[str, str, str]] = field(default_factory=list)  # (what, where, how many)
    study: Path | None = None  # the study folder the human-evaluation step wrote (``demo --serve`` serves it)

    def record(self, what: str, where: Path, count: str) -> None:
        # Relative to the demo's folder, which the closing table's title names.
        self.produced.append(
            (what, str(where.relative_to(self.out) if where.is_relative_to(self.out) else where), count)
        )


Step = Callable[[DemoContext], None]


#: The demo's folders, under its output folder.
DATASET = "dataset"
REAL_EXAMPLES = "real-examples"
REAL_EXAMPLES_HYDRATED = "real-examples-hydrated"
#: Inside the dataset folder: the commands' default output folders (stats, evaluate, tasks, view).
STATS = "stats"
REPORT = "report"
STUDY = "study"
SITE = "site"
#: Inside the study folder: study-predictions' default output, and the report that scores those answers.
STUDY_PREDICTIONS = "predictions"
STUDY_REPORT = "report"
#: A local site answers in milliseconds and never throttles: pace generously, retry quickly.
LOCAL_RATE = 200.0


class FunnelMismatch(RuntimeError):
    """The build's funnel differs from the one the corpus was written to produce: a collector bug."""


def _dataset_name(ctx: DemoContext, purpose: str) -> str:
    """The demo corpus's dataset folder, or (not built yet) the imported real instances standing in for it."""
    for name in (DATASET, REAL_EXAMPLES):
        folder = ctx.out / name
        if (folder / "qa.jsonl").is_file() or (folder / "qa.parquet").is_file():
            return name
    raise DatasetError(f"{ctx.out}: no {DATASET}/ (or {REAL_EXAMPLES}/) folder {purpose}")


def _dataset(ctx: DemoContext, purpose: str) -> DatasetFolder:
    return DatasetFolder(ctx.out / _dataset_name(ctx, purpose))


def import_real_examples(ctx: DemoContext) -> None:
    src = real_examples_path()
    folder, manifest = import_release(
        [src / "qa.jsonl"], [src / "documents.jsonl"], ctx.out / REAL_EXAMPLES, overwrite=True
    )
    counts = manifest["counts"]
    ctx.record(
        "real release instances (imported)",
        folder.path,
        f"{counts['questions']} questions, {counts['documents']} documents",
    )


def hydrate_real_examples(ctx: DemoContext) -> None:
    """Import the real instances' QA part alone and hydrate it (``wikihowqa hydrate``) from a local archive
    holding captures at their release URLs: the document part rebuilt, measured against the released one."""
    src = real_examples_path()
    target = fresh_folder(Path(ctx.out), REAL_EXAMPLES_HYDRATED)
    import_release([src / "qa.jsonl"], [], target, overwrite=True)
    released = [
        json.loads(line) for line in (src / "documents.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    http = HttpSettings(
        concurrency=8,
        rates={MEDIAWIKI: LOCAL_RATE, CDX: LOCAL_RATE, PLAYBACK: LOCAL_RATE},
        timeout_s=10.0,
        retries=3,
        contact="wikihowqa demo (local archive)",
    )
    with ReplaySite(corpus=archive_corpus(release_captures(released))) as site:
        result = hydrate(target, HydrateSettings(ArchiveSettings(wayback_url=site.wayback_url), http=http))
    scores = compare_files(
        result.folder.documents_path, src / "documents.jsonl", target / HYDRATION_DIR / COMPARE_FILE
    )
    urls = result.manifest["hydrate"]["coverage"]["urls"]
    ctx.record(
        "real instances hydrated from their release URLs (wikihowqa hydrate)",
        target / HYDRATION_DIR / COVERAGE_MD,
        f"coverage {urls['recovered']} of {urls['named']} release URLs ({urls['coverage']:.0%}); "
        f"word F1 vs the released text {scores.summary['mean_f1']:.3f}",
    )


def build_dataset(ctx: DemoContext) -> None:
    """Serve the corpus (``ctx.settings["corpus"]`` or the embedded one) and build ``ctx.out/dataset``; the
    build's funnel must be the one the corpus's ``expected.json`` declares."""
    corpus = Path(ctx.settings.get("corpus") or corpus_path())
    expected = json.loads((corpus / "expected.json").read_text(encoding="utf-8"))
    http = HttpSettings(
        concurrency=8,
        rates={MEDIAWIKI: LOCAL_RATE, CDX: LOCAL_RATE, PLAYBACK: LOCAL_RATE},
        timeout_s=10.0,
        retries=3,
        backoff_s=0.05,
        backoff_max_s=1.0,
        throttle_backoff_s=0.1,
        throttle_pause_s=1.0,
        contact="wikihowqa demo (local replay site)",
    )
    # A rerun rebuilds from scratch: an earlier run's dataset also holds what later steps added (the
    # split's audit.json and cache/), which a build refuses to write over, and its build state may come
    # from another corpus. A dataset folder the demo did not create is left to the build's own checks.
    ours = DATASET in owned_folders(Path(ctx.out))
    target = fresh_folder(Path(ctx.out), DATASET)
    if ours:
        parked_state(target).unlink(missing_ok=True)  # left by a run killed while publishing
    with ReplaySite(corpus) as site:
        archive = ArchiveSettings(wayback_url=site.wayback_url)
        settings = BuildSettings(api_url=site.mediawiki_url, archive=archive, http=http)
        result = build(target, settings)
    manifest = result.manifest
    got = {**manifest["funnel"], "rejections": manifest["rejections"]}
    want = {key: expected[key] for key in ("articles", "references", "rejections")}
    if got != want:
        raise FunnelMismatch(f"the build's funnel {got} differs from {corpus / 'expected.json'}: {want}")
    counts = manifest["counts"]
    refs = manifest["funnel"]["references"]
    ctx.record(
        "dataset built from the replay site (wikihowqa build)",
        result.folder.path,
        f"{counts['questions']} questions, {counts['documents']} documents "
        f"({refs['kept']} of {refs['unique_urls']} cited pages kept; funnel = expected.json)",
    )


def check_parser(ctx: DemoContext) -> None:
    """Parse the embedded corpus's archived pages against its ground truth; ``report/parse-check.json``."""
    corpus = corpus_path()
    if not (corpus / "archive" / "cdx.jsonl").is_file():
        return
    report = check_corpus(corpus)
    target = ctx.out / DATASET / REPORT / "parse-check.json"
    write_json(target, asdict(report))
    ctx.record(
        "parse check on the corpus's archived pages",
        target,
        f"{report.pages} pages, text F1 {report.f1:.3f}, "
        f"tables in Markdown {report.tables[0]}/{report.tables[1]}, "
        f"non-UTF-8 decoded {report.encodings[0]}/{report.encodings[1]}, "
        f"pagination {report.pagination[0]}/{report.pagination[1]}",
    )


def split_and_describe(ctx: DemoContext) -> None:
    """Split the demo corpus (``dataset/``), then describe it into ``dataset/stats/``; the imported real
    instances (already split by their authors) are described too, into ``real-examples/stats/``."""
    dataset = DatasetFolder(Path(ctx.out) / DATASET)
    if not dataset.path.is_dir():
        raise DatasetError(f"{dataset.path}: no demo dataset to split (the build step makes it)")
    result = split_dataset(dataset, SplitSettings())
    audit_dataset(dataset)  # as `wikihowqa split` does: the report below reads audit.json, never runs it
    counts = result.counts
    ctx.record(
        "leakage-free split (HDBSCAN clusters to train)",
        dataset.qa_path,
        f"{result.clusters} clusters; train {counts['train']}, validation {counts['validation']}, "
        f"test {counts['test']}",
    )
    report_dir = dataset.path / STATS
    report = describe(dataset, report_dir)
    audit = report.audit.splits["all"] if report.audit else None
    ctx.record(
        "dataset statistics (Tables 1–2, fragments, audit, figures)",
        report_dir / REPORT_MD,
        f"{report.table1['all']['questions']} questions"
        + (f", {audit['above_threshold']} evaluation questions above the audit threshold" if audit else ""),
    )
    real = Path(ctx.out) / REAL_EXAMPLES
    if real.is_dir():
        real_report = describe(DatasetFolder(real), real / STATS, audit=True)
        ctx.record(
            "statistics of the real release instances",
            real / STATS / REPORT_MD,
            f"{real_report.table1['all']['questions']} questions",
        )


def answer_questions(ctx: DemoContext) -> None:
    """Answer the test split with BM25 + lead sentences (every question) and with SmolLM2 + passages (the
    first ``answer_llm_limit`` questions, 3 by default, short answers) into ``DATASET/predictions/``, the
    files ``wikihowqa answer`` writes."""
    folder = _dataset(ctx, "to answer")
    # the test split; a dataset not split yet (a fresh crawl) is answered whole
    split = next((name for name in ("test", "validation") if folder.examples(name)), ALL)
    console = Console(stderr=True)
    runs: list[tuple[str, int | None, dict[str, Any]]] = [("bm25+lead", None, {})]
    if ctx.settings.get("answer_llm", True):
        llm = {
            "backend": "local",
            "local": {"max_new_tokens": int(ctx.settings.get("answer_llm_tokens", 48))},
            "prompt": {"max_context_tokens": 512},
        }
        runs.append(("llm-passages", int(ctx.settings.get("answer_llm_limit", 3)), {"llm": llm}))
    for system, limit, settings in runs:
        report = answer_split(folder, system, split=split, limit=limit, settings=settings)
        out = report.out
        failed = f", {len(report.failed)} failed" if report.failed else ""
        n = report.answered_now + report.answered_before
        console.print(f"  {system}: {n} answer(s) ({split} questions) → {out}")
        ctx.record(f"predictions: {system}", out, f"{n} answer(s){failed}")


def human_evaluation(ctx: DemoContext) -> None:
    """Deteriorate (paper protocol), build tasks (BM25 passages), simulate judgments, analyse them into
    ``DATASET/study/`` (where ``wikihowqa tasks`` writes a study) and print the analysis's main tables."""
    settings = ctx.settings
    seed = int(settings.get("seed", 0))
    folder = _dataset(ctx, "to build a study from")
    examples = folder.examples()
    documents = folder.documents_by_article()
    predictions = []
    pred_dir = folder.path / PREDICTIONS_DIR
    if pred_dir.is_dir():
        for path in sorted(pred_dir.glob("*.jsonl")):
            predictions.extend(read_predictions(path))
    answers = deteriorate_examples(examples, DeteriorationSettings(seed=seed))
    study = build_study(
        answers,
        examples,
        documents,
        predictions,
        make_ranker(settings.get("humaneval_ranker", "bm25")),
        # the errors parts show the systems' real answers: only when there are predictions
        StudySettings(seed=seed, parts=ALL_PARTS if predictions else PARTS),
        study_id="wikihowqa-demo",
        sources={"dataset": str(folder.path), "predictions": str(pred_dir) if predictions else None},
    )
    target = folder.path / STUDY
    ctx.study = target
    write_study(
        study, target, overwrite=True, extra_files={"deteriorated.jsonl": [a.to_dict() for a in answers]}
    )
    write_review_template(target / "review.csv", answers)
    # simulated assessors mark on real answers only the spans annotated by reading the demo's answers
    reference = read_reference(real_examples_path() / ERROR_SPANS_FILE)
    judgments = simulate_judgments(study, SimulationSettings(seed=seed, reference=reference))
    write_jsonl(target / "judgments.jsonl", judgments)
    result = analyze(study, judgments)
    write_analysis(result, target)

    edits = sum(len(a.edits) for a in answers)
    ctx.record(
        "human-evaluation study (tasks, key, plan, Label Studio)",
        target,
        ", ".join(f"{p} {v['tasks']}" for p, v in study.manifest["parts"].items()) + " tasks",
    )
    ctx.record(
        "deteriorated answers",
        target / "deteriorated.jsonl",
        f"{sum(a.is_deteriorated for a in answers)} of {len(answers)}, {edits} edits",
    )
    ctx.record("simulated judgments + analysis", target / "analysis.json", f"{len(judgments)} judgments")
    console = Console()
    for table in analysis_tables(result):
        console.print(table)


def meta_evaluation(ctx: DemoContext) -> None:
    """Score the study's answers (originals, deteriorated versions, A/B answers) with ROUGE, BERTScore
    (bundled MiniLM) and grounding into ``DATASET/study/report/``, meta-evaluate them against the simulated
    judgments (beside that report, meta-evaluate's default), and print the metric-agreement table. The
    commands: ``study-predictions STUDY``, ``evaluate DATASET STUDY/predictions/*.jsonl --split all --out
    STUDY/report``, ``meta-evaluate STUDY STUDY/report``."""
    dataset = _dataset(ctx, "to score the study's answers against").path
    study = dataset / STUDY
    answers_dir = study / STUDY_PREDICTIONS
    for stale in answers_dir.glob("*.jsonl"):  # an earlier run's systems must not be scored with these
        stale.unlink()
    answers = write_study_predictions(study, answers_dir)
    settings = EvaluationSettings(split=ALL_SPLITS, bertscore=BertScoreConfig(model="minilm"))
    target = study / STUDY_REPORT
    write_evaluation(evaluate(dataset, answers, settings, cache_dir=target), target)
    result = meta_evaluate_folders(study, target, MetaSettings(seed=int(ctx.settings.get("seed", 0))))
    write_meta_evaluation(result, target)
    ctx.record(
        "meta-evaluation (metric agreement with the assessors)",
        target / "meta_evaluation.md",
        f"{len(result['metrics'])} metrics × "
        + ", ".join(f"{v['answers']} {p} answers" for p, v in result["answers"].items())
        + f", {result['preference_tasks']} A/B tasks",
    )
    Console().print(agreement_table(result, target.relative_to(ctx.out)))


def evaluate_predictions(ctx: DemoContext) -> None:
    """Score every ``DATASET/predictions/*.jsonl`` plus the two lower bounds into ``DATASET/report/`` and
    print the leaderboard. Uses the bundled MiniLM for BERTScore (the demo runs offline); the report says
    so."""
    dataset = _dataset(ctx, "to evaluate on").path
    splits = {e.split for e in DatasetFolder(dataset).examples()}
    split = next((s for s in ("test", "validation", "train") if s in splits), "test")
    predictions = sorted((dataset / PREDICTIONS_DIR).glob("*.jsonl"))
    settings = EvaluationSettings(split=split, bertscore=BertScoreConfig(model="minilm"), lower_bounds=True)
    report_dir = dataset / REPORT
    evaluation = evaluate(dataset, predictions, settings, cache_dir=report_dir)
    report = write_evaluation(evaluation, report_dir)
    ctx.record(
        "evaluation report (leaderboard, per-question scores, chart)",
        report_dir / "evaluation.md",
        f"{len(report.leaderboard)} systems × {report.questions} {split} questions",
    )
    console = Console()
    console.print(leaderboard_table(report, report_dir))
    note = report.bertscore_note
    if note:
        console.print(f"BERTScore: {note}", markup=False, highlight=False)


def explore_results(ctx: DemoContext) -> None:
    """Write the results explorer into ``DATASET/site/`` (view's default): the dataset, the leaderboard,
    every answer with the passages behind its sentences, and the meta-evaluation; ``index.html`` opens from
    disk."""
    name = _dataset_name(ctx, "to explore")
    dataset = ctx.out / name
    report, meta = dataset / REPORT, dataset / STUDY / STUDY_REPORT
    summary = build_site(
        dataset,
        fresh_folder(
            ctx.out, f"{name}/{SITE}"
        ),  # an earlier demo's site is replaced; a folder of the user's refused
        report=report if (report / "evaluation.json").is_file() else None,
        study=meta if (meta / "meta_evaluation.json").is_file() else None,
    )
    ctx.record(
        "results explorer (static site: open it in a browser)",
        summary.out / "index.html",
        f"{summary.questions} questions, {summary.systems} systems, {summary.files} files",
    )


STEPS: list[tuple[str, Step]] = [
    ("import the real WikiHowNFQA examples", import_real_examples),
    (
        "hydrate the real examples' QA part from a local archive (captures at their release URLs)",
        hydrate_real_examples,
    ),
    ("build the demo dataset from the replay site (MediaWiki API + Wayback)", build_dataset),
    ("check the parser against the corpus's ground truth", check_parser),
    ("split the dataset without leakage and describe it (Tables 1–2, audit, figures)", split_and_describe),
    ("answer the questions: BM25 + lead sentences; SmolLM2 + passages (3 questions)", answer_questions),
    ("human evaluation: deteriorate, build a study, simulate judgments, analyse", human_evaluation),
    ("meta-evaluation: which metric agrees with the (simulated) assessors", meta_evaluation),
    ("evaluate the predictions (the leaderboard ends the demo)", evaluate_predictions),
    ("write the results explorer (a static site of all of the above)", explore_results),
]


def default_out_dir() -> Path:
    return Path.cwd() / f"wikihowqa-demo-{datetime.now():%Y%m%d-%H%M%S}"


def run_demo(out: Path, *, progress: Callable[[str], None] = lambda _: None, **settings: Any) -> DemoContext:
    # Everything the demo needs ships in installed packages: never wait on a model hub lookup.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TQDM_DISABLE", "1")  # libraries' own bars would interleave with ours
    out.mkdir(parents=True, exist_ok=True)
    ctx = DemoContext(out=out.resolve(), settings=settings)
    for title, step in STEPS:
        progress(title)
        step(ctx)
    return ctx
