"""``wikihowqa stats``: the dataset's description as Markdown, JSON, per-question JSONL and PNG figures.

Sections: the paper's Table 1 per split, the category distribution, Table 2 (novel n-grams), coverage,
density and compression, and the leakage audit (reused from ``audit.json`` when it matches the current
questions and splits, computed otherwise). The report names every definition, tokenizer and version.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from importlib.metadata import version
from pathlib import Path
from typing import Any

from wikihowqa import __version__
from wikihowqa.core.errors import DatasetError
from wikihowqa.core.files import atomic_write, write_json
from wikihowqa.core.progress import QUIET, Progress
from wikihowqa.core.records import Example
from wikihowqa.core.sentences import version as nupunkt_version
from wikihowqa.dataset.codecs import document_from_dict
from wikihowqa.dataset.folder import DatasetFolder
from wikihowqa.dataset.readers import documents_at, iter_documents, iter_records, jsonl_line_offsets
from wikihowqa.dataset.writers import write_jsonl
from wikihowqa.encoders.embed import DEFAULT_MODEL
from wikihowqa.runtime.executor import worker_count
from wikihowqa.split.audit import audit_dataset, load_audit
from wikihowqa.stats import corpus, figures
from wikihowqa.stats.corpus import ALL, ExampleStats
from wikihowqa.stats.fragments import DOCUMENT_JOINER
from wikihowqa.stats.ngrams import NGRAM_ORDERS
from wikihowqa.stats.tokens import spacy_version

REPORT_JSON = "stats.json"
REPORT_MD = "stats.md"
EXAMPLES_JSONL = "stats_per_question.jsonl"
FIGURES = "figures"
#: The progress phase (``wikihowqa.core.progress``) of the per-question statistics.
EXAMPLES = "examples"
#: Below this many examples worker processes cost more than they save.
PARALLEL_FROM = 200


def definitions() -> dict[str, str]:
    """What each number means, with the tokenizers and their versions."""
    return {
        "words_and_sentences": (
            "Multi-News get_stats.py: sentences are Punkt sentences (nupunkt "
            f"{nupunkt_version()}, default English model; the script used NLTK's Punkt); words are NLTK "
            f"tok-tok tokens (nltk {version('nltk')}) of each sentence, punctuation included"
        ),
        "novel_ngrams": (
            "Multi-News get_stats.py: per example, distinct summary n-grams absent from the documents "
            "(lowercased tok-tok tokens of all Punkt sentences of all documents, chained) over all "
            "summary n-grams; mean over examples with at least n summary tokens. Punkt runs on the "
            "original text (the script lowercases first; see wikihowqa.stats.ngrams)"
        ),
        "fragments": (
            "Newsroom Fragments (Grusky et al., 2018), greedy matching exactly as "
            f"newsroom/analyze/fragments.py, spaCy {spacy_version()} English tokenizer rules "
            "(spacy.blank('en'); en_core_web_sm has the same tokenizer), lowercased, whitespace tokens "
            "included as spaCy makes them; multi-document as Fabbri et al. (2019): the documents "
            f"concatenated (joined by {DOCUMENT_JOINER!r}); coverage = sum|f|/|S|, density = sum|f|^2/|S|, "
            "compression = |A|/|S|; means over examples with documents"
        ),
    }


def _texts(
    folder: DatasetFolder, examples: Sequence[Example]
) -> tuple[Iterator[tuple[int, list[str]]], dict[str, int]]:
    """Each example's documents' texts as ``(example index, texts)``, streamed, and how many cited
    documents are of each page type.

    A first pass reads the documents one at a time, noting each article's line numbers (and page types).
    When the file is grouped by article (as the build writes it) the second pass reads it again in order
    and hands an article's texts on once its last document has been read; a JSONL file that is not
    grouped is read one article at a time at its documents' byte offsets. Either way one article's texts
    are held, never the corpus's. The texts are those of ``documents_by_article``, in file order (a
    Parquet file not grouped by article holds the articles still incomplete)."""
    try:
        path = folder.documents_path
    except DatasetError as exc:
        raise DatasetError(f"{exc} (stats needs the document part)") from None
    positions: dict[int, list[int]] = {}
    for index, example in enumerate(examples):
        positions.setdefault(example.article_id, []).append(index)
    kinds: dict[int, Counter[str]] = {}  # per article, the page types of its documents
    lines: dict[int, list[int]] = {}  # per article, the line (or row) numbers of its documents
    grouped, last = True, None
    for number, doc in iter_records(path, document_from_dict):
        if doc.article_id in positions:
            kinds.setdefault(doc.article_id, Counter())[page_type(doc)] += 1
            grouped = grouped and (doc.article_id == last or doc.article_id not in lines)
            lines.setdefault(doc.article_id, []).append(number)
        last = doc.article_id
    types: Counter[str] = Counter()
    for example in examples:  # counted in the examples' order, so that ties keep it
        types.update(kinds.get(example.article_id, {}))
    if grouped or path.suffix == ".parquet":
        wanted = {article: len(numbers) for article, numbers in lines.items()}
        return _grouped(path, positions, wanted), dict(types.most_common())
    return _indexed(path, positions, lines), dict(types.most_common())


def _grouped(
    path: Path, positions: Mapping[int, list[int]], wanted: Mapping[int, int]
) -> Iterator[tuple[int, list[str]]]:
    """Texts as the documents come, each article's once its last one has been read: one article held
    when the file is grouped by article."""
    for article, indices in positions.items():
        if not wanted.get(article):
            yield from ((i, []) for i in indices)
    pending: dict[int, list[str]] = {}
    for doc in iter_documents(path):
        need = wanted.get(doc.article_id)
        if not need:
            continue
        texts = pending.setdefault(doc.article_id, [])
        texts.append(doc.parsed_text)
        if len(texts) == need:
            del pending[doc.article_id]
            yield from ((i, texts) for i in positions[doc.article_id])
    if pending:
        raise DatasetError(f"{path}: changed while stats read it (run stats again)")


def _indexed(
    path: Path, positions: Mapping[int, list[int]], lines: Mapping[int, list[int]]
) -> Iterator[tuple[int, list[str]]]:
    """Texts of a JSONL file not grouped by article, one article at a time, read at its documents' byte
    offsets (the index holds two integers per document, never a text)."""
    offsets = jsonl_line_offsets(path, {n for numbers in lines.values() for n in numbers})
    for article, indices in positions.items():
        texts = [d.parsed_text for d in documents_at(path, (offsets[n] for n in lines.get(article, ())))]
        yield from ((i, texts) for i in indices)


def page_type(doc: Any) -> str:
    """The page type the parse stage recognised (``extra["parse"]["page_type"]``), ``unknown`` if none."""
    info = doc.extra.get("parse") if isinstance(doc.extra, Mapping) else None
    kind = info.get("page_type") if isinstance(info, Mapping) else None
    return kind if isinstance(kind, str) and kind else "unknown"


def page_types(documents: Iterable[Any]) -> dict[str, int]:
    """Cited documents by the page type the parse stage recognised (``extra["parse"]["page_type"]``),
    most frequent first; ``unknown`` for documents parsed elsewhere (the official release)."""
    return dict(Counter(page_type(doc) for doc in documents).most_common())


@dataclass(frozen=True)
class AuditSection:
    """The leakage audit as the report shows it: the audit's summary (``fields``, in the audit file's order,
    its ten closest pairs last) and, for the figure only, every evaluation question's similarity by split."""

    fields: dict[str, Any]
    similarities: dict[str, list[float]] = field(default_factory=dict)

    @property
    def model(self) -> str:
        return str(self.fields["model"])

    @property
    def threshold(self) -> float:
        return float(self.fields["threshold"])

    @property
    def splits(self) -> dict[str, dict[str, Any]]:
        """Per split: questions, above_threshold, same_normalised_title, similarity mean/max."""
        return dict(self.fields["splits"])

    @property
    def closest_pairs(self) -> list[dict[str, Any]]:
        return list(self.fields.get("closest_pairs") or [])

    def to_json(self) -> dict[str, Any]:
        return dict(self.fields)


@dataclass
class StatsReport:
    """The dataset's description (``stats.json`` is :meth:`to_json`); the tables are keyed by split name,
    ``all`` last, as :mod:`wikihowqa.stats.corpus` makes them."""

    dataset: str
    created: str
    tool: str
    definitions: dict[str, str]
    table1: dict[str, dict[str, Any]]
    categories: dict[str, dict[str, int]]
    page_types: dict[str, int]
    table2: dict[str, dict[str, Any]]
    fragments: dict[str, dict[str, Any]]
    audit: AuditSection | None
    #: why the audit is not in the report and how to add it (``None`` when it is, or was not asked for)
    audit_note: str | None
    #: seconds each part took (``write`` is added once the files are written, so stats.json has none)
    seconds: dict[str, float]

    def to_json(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset,
            "created": self.created,
            "tool": self.tool,
            "definitions": self.definitions,
            "table1": self.table1,
            "categories": self.categories,
            "page_types": self.page_types,
            "table2": self.table2,
            "fragments": self.fragments,
            "audit": self.audit.to_json() if self.audit else None,
            "audit_note": self.audit_note,
            "seconds": self.seconds,
        }


def _audit_section(
    folder: DatasetFolder, examples: Sequence[Example], *, audit: bool | None, model: str, threshold: float
) -> tuple[AuditSection | None, str | None]:
    """The audit summary with per-split similarities and, when it is left out, why.

    The audit is the split stage's work (``wikihowqa split`` and ``wikihowqa audit`` write ``audit.json``):
    ``audit=None`` reuses a current ``audit.json`` and otherwise says how to make one, never running the
    encoder unasked; ``True`` runs the audit when no current one exists; ``False`` leaves it out."""
    if audit is False or not any(e.split for e in examples):
        return None, None
    saved = load_audit(folder, examples, model)
    if saved is not None and saved.get("threshold") != threshold:
        saved = None
    if saved is None and audit is None:
        return None, (
            f"no current audit in {folder.path / 'audit.json'} (missing, or made for other questions, model "
            f"or threshold): run `wikihowqa audit {folder.path}`, or `wikihowqa stats --run-audit`"
        )
    if saved is None:
        saved = audit_dataset(folder, model=model, threshold=threshold).to_json()
    sims: dict[str, list[float]] = {}
    for pair in saved.get("pairs", []):
        if pair.get("similarity") is not None:
            sims.setdefault(pair["split"], []).append(pair["similarity"])
    section = {k: v for k, v in saved.items() if k != "pairs"}
    section["closest_pairs"] = saved.get("pairs", [])[:10]
    return AuditSection(section, sims), None


def build_report(
    folder: DatasetFolder,
    *,
    workers: int | None = None,
    audit: bool | None = None,
    model: str = DEFAULT_MODEL,
    threshold: float = 0.9,
    progress: Progress = QUIET,
    executor: Any = None,
) -> tuple[StatsReport, list[ExampleStats]]:
    """Compute the report of a dataset folder; ``progress`` follows the examples (phase ``examples``)."""
    clock = time.perf_counter()
    examples = folder.examples()
    texts, cited_types = _texts(folder, examples)
    timing = {"read": round(time.perf_counter() - clock, 2)}
    started = time.perf_counter()
    progress.phase(EXAMPLES, len(examples))
    step = partial(progress.advance, EXAMPLES)
    workers = worker_count(workers, items=len(examples), parallel_from=PARALLEL_FROM)
    stats = corpus.compute_stream(examples, texts, workers=workers, progress=step, executor=executor)
    timing["statistics"] = round(time.perf_counter() - started, 2)
    clock = time.perf_counter()
    audit_section, audit_note = _audit_section(
        folder, examples, audit=audit, model=model, threshold=threshold
    )
    timing["audit"] = round(time.perf_counter() - clock, 2)
    report = StatsReport(
        dataset=str(folder.path),
        created=datetime.now(UTC).isoformat(timespec="seconds"),
        tool=f"wikihowqa {__version__}",
        definitions=definitions(),
        table1=corpus.table1(stats),
        categories=corpus.categories(stats),
        page_types=cited_types,
        table2=corpus.table2(stats),
        fragments=corpus.fragment_scores(stats),
        audit=audit_section,
        audit_note=audit_note,
        seconds=timing,
    )
    return report, stats


def write_report(report: StatsReport, stats: Sequence[ExampleStats], out: Path) -> list[Path]:
    """Write the JSON, Markdown, per-example JSONL and figures; returns the files written."""
    out.mkdir(parents=True, exist_ok=True)
    written = [*_figures(report, stats, out / FIGURES)]
    public = report.to_json()
    write_json(out / REPORT_JSON, public)
    write_jsonl(out / EXAMPLES_JSONL, (s.to_dict() for s in stats))
    with atomic_write(out / REPORT_MD) as fh:
        fh.write(render_markdown(public, [p.relative_to(out).as_posix() for p in written]))
    return [out / REPORT_JSON, out / REPORT_MD, out / EXAMPLES_JSONL, *written]


def _figures(report: StatsReport, stats: Sequence[ExampleStats], where: Path) -> list[Path]:
    paths: list[Path] = []
    cats = report.categories.get(ALL) if report.categories else None
    if cats:
        paths.append(figures.category_bars(cats, where / "categories.png"))
    splits = [name for name in report.table1 if name != ALL]
    members = {name: [s for s in stats if (s.split or "unsplit") == name] for name in splits}
    answers = {name: [s.answer_words for s in group] for name, group in members.items()}
    documents = {name: [w for s in group for w in s.document_words] for name, group in members.items()}
    paths.append(
        figures.length_histogram(
            answers, where / "answer_lengths.png", title="Answer length", xlabel="words per answer"
        )
    )
    paths.append(
        figures.length_histogram(
            documents,
            where / "document_lengths.png",
            title="Document length",
            xlabel="words per document (log scale)",
            log=True,
        )
    )
    audit_section = report.audit
    if audit_section and audit_section.similarities:
        paths.append(
            figures.similarity_histogram(
                audit_section.similarities,
                audit_section.fields["threshold"],
                where / "audit_similarity.png",
                edges=audit_section.fields["histogram_edges"],
            )
        )
    return paths


# --------------------------------------------------------------------------- Markdown


def _num(value: Any, digits: int = 1) -> str:
    if value is None:
        return "–"
    if isinstance(value, int):
        return f"{value:,}"
    return f"{value:,.{digits}f}"


def _mean(cell: Mapping[str, Any], digits: int = 1) -> str:
    return _num(cell.get("mean"), digits)


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def render_markdown(report: Mapping[str, Any], figure_paths: Sequence[str]) -> str:
    parts = [f"# Dataset statistics: `{report['dataset']}`", ""]
    took = ", ".join(f"{k} {v} s" for k, v in report["seconds"].items())
    parts.append(f"Made by {report['tool']} on {report['created']} ({took}).")
    parts += ["", "## Table 1: size and lengths (means)", ""]
    rows = [
        [
            name,
            _num(row["questions"]),
            _num(row["documents"]),
            _mean(row["documents_per_question"]),
            _mean(row["answer_words"]),
            _mean(row["answer_sentences"]),
            _mean(row["document_words"]),
            _mean(row["document_sentences"]),
        ]
        for name, row in report["table1"].items()
    ]
    header = [
        "split",
        "questions",
        "documents",
        "docs / question",
        "words / answer",
        "sentences / answer",
        "words / document",
        "sentences / document",
    ]
    words = report["definitions"]["words_and_sentences"]
    parts += [_table(header, rows), "", f"Words and sentences: {words}."]
    parts += ["", "## Categories", ""]
    cats = report["categories"]
    if cats:
        names = list(cats)
        parts.append(
            _table(
                ["category", *names],
                [[cat, *[_num(cats[n].get(cat, 0)) for n in names]] for cat in cats[ALL]],
            )
        )
    else:
        parts.append("The dataset has no `category` field (the official release has none).")
    parts += ["", "## Cited page types", ""]
    kinds = report.get("page_types") or {}
    cited = sum(kinds.values())
    if cited:
        rows = [[kind, str(n), f"{100 * n / cited:.1f}"] for kind, n in kinds.items()]
        parts.append(_table(["page type", "documents", "%"], rows))
    else:
        parts.append("No cited documents.")
    parts += ["", "## Table 2: novel n-grams (% of answer n-grams not in the documents)", ""]
    parts.append(
        _table(
            ["split", *[f"{n}-grams" for n in NGRAM_ORDERS]],
            [
                [name, *[_num(row[f"novel_{n}grams_percent"], 2) for n in NGRAM_ORDERS]]
                for name, row in report["table2"].items()
            ],
        )
    )
    parts += ["", f"Definition: {report['definitions']['novel_ngrams']}."]
    parts += ["", "## Coverage, density, compression", ""]
    parts.append(
        _table(
            ["split", "coverage", "density", "compression", "examples"],
            [
                [
                    name,
                    _mean(row["coverage"], 3),
                    _mean(row["density"], 3),
                    _mean(row["compression"], 2),
                    _num(row["examples"]),
                ]
                for name, row in report["fragments"].items()
            ],
        )
    )
    parts += ["", f"Definition: {report['definitions']['fragments']}.", "", "## Leakage audit", ""]
    audit_section = report.get("audit")
    if audit_section:
        parts.append(
            f"Nearest train question of every validation/test question by cosine similarity of "
            f"`{audit_section['model']}` embeddings; paraphrase threshold {audit_section['threshold']:g}."
        )
        header = ["split", "questions", "≥ threshold", "same normalised title", "mean sim.", "max sim."]
        rows = [
            [
                name,
                _num(row["questions"]),
                _num(row["above_threshold"]),
                _num(row["same_normalised_title"]),
                _num(row["similarity"]["mean"], 3),
                _num(row["similarity"]["max"], 3),
            ]
            for name, row in audit_section["splits"].items()
        ]
        parts += ["", _table(header, rows)]
        crossing = audit_section["clusters_in_more_than_one_split"]
        listed = ", ".join(map(str, crossing[:20])) + (" …" if len(crossing) > 20 else "")
        clustered = audit_section["clustered_evaluation_questions"]
        parts += [
            "",
            f"Clusters found in more than one split: {len(crossing)}"
            + (f" ({listed})" if crossing else "")
            + f". Clustered validation/test questions: {clustered}.",
        ]
        closest = audit_section.get("closest_pairs") or []
        if closest:
            parts += [
                "",
                "Closest pairs:",
                "",
                _table(
                    ["similarity", "split", "question", "nearest train question"],
                    [
                        [_num(p["similarity"], 3), p["split"], p["question"], p["nearest_question"] or "–"]
                        for p in closest
                    ],
                ),
            ]
    else:
        note = report.get("audit_note")
        skipped = "Not run (the dataset has no splits, or `--no-audit`)."
        parts.append(f"Not in this report: {note}." if note else skipped)
    if figure_paths:
        parts += ["", "## Figures", ""] + [f"![{Path(p).stem}]({p})" for p in figure_paths]
    return "\n".join(parts) + "\n"


def describe(
    folder: DatasetFolder,
    out: Path,
    *,
    workers: int | None = None,
    audit: bool | None = None,
    model: str = DEFAULT_MODEL,
    threshold: float = 0.9,
    progress: Progress = QUIET,
    executor: Any = None,
) -> StatsReport:
    """Compute and write the whole report of a dataset folder into ``out``; returns the report
    (``executor``: where the per-question statistics are computed, ``wikihowqa.runtime.executor``)."""
    report, stats = build_report(
        folder,
        workers=workers,
        audit=audit,
        model=model,
        threshold=threshold,
        progress=progress,
        executor=executor,
    )
    clock = time.perf_counter()
    write_report(report, stats, out)
    report.seconds["write"] = round(time.perf_counter() - clock, 2)
    return report
