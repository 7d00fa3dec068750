"""A dataset folder → a folder ready for the Hugging Face Hub, described in Croissant.

Layout (``datasets.load_dataset(OUT)`` reads it through the card's ``configs``)::

    OUT/README.md                                   dataset card: YAML header + what, how, licences, citation
    OUT/croissant.json                              Croissant 1.1 metadata (JSON-LD), validated by mlcroissant
    OUT/data/qa/<split>-00000-of-0000N.parquet      the QA part, per split (config ``qa``, the default)
    OUT/data/documents/<split>-00000-of-0000N.parquet   the documents of each split's questions (config
                                                    ``documents``)

Rows are the release's own fields (``io.example_to_dict``, ``io.document_to_dict``); one Arrow schema per
part, so every shard reads with the same features. The documents are read one at a time, twice: a first
pass fixes the schema and counts the rows of each split (which name the shards), the second writes the
shards with ``pyarrow.parquet.ParquetWriter`` as they come, so the export holds a chunk, not the corpus.
Questions without a split go to the split ``unsplit``; documents whose question is not in the QA part are
left out and counted in the card.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from wikihowqa import __version__
from wikihowqa.core.errors import DatasetError, SettingsError
from wikihowqa.core.files import atomic_folder, write_json
from wikihowqa.core.records import SPLITS
from wikihowqa.dataset.codecs import document_to_dict, example_to_dict
from wikihowqa.dataset.folder import DatasetFolder
from wikihowqa.dataset.readers import iter_documents
from wikihowqa.dataset.writers import _parquet_columns
from wikihowqa.export.gold import check_gold, refuse_empty_answers

UNSPLIT = "unsplit"
CROISSANT_FILE = "croissant.json"
PARTS = ("qa", "documents")
#: Rows converted to Arrow at a time (a row group): what the export holds of a part, whatever its size.
CHUNK_ROWS = 500
CITATION = """@inproceedings{bolotova-etal-2023-wikihowqa,
  title = "{W}iki{H}ow{QA}: A Comprehensive Benchmark for Multi-Document Non-Factoid Question Answering",
  author = "Bolotova, Valeriia and Blinov, Vladislav and Filippova, Sofya and Scholer, Falk and
            Sanderson, Mark",
  booktitle = "Proceedings of the 61st Annual Meeting of the Association for Computational Linguistics",
  year = "2023",
  address = "Toronto, Canada",
  publisher = "Association for Computational Linguistics"
}"""
_DESCRIPTIONS = {
    "qa": {
        "article_id": "The question's id (the how-to article it comes from).",
        "question": "The how-to question (the article's title).",
        "answer": "The human-written answer (the article's Quick Summary).",
        "related_document_urls_wayback_snapshots": "Archived copies of the pages the article cites.",
        "split": "train, validation or test (questions clustered by similarity go to train).",
        "cluster": "The question's similarity cluster (-1: unclustered).",
        "category": "The article's top-level category.",
    },
    "documents": {
        "article_id": "The id of the question whose answer cites this page.",
        "original_url": "The cited page's URL.",
        "archive_url": "The archived capture the text was parsed from.",
        "parsed_text": "The page's main text, boilerplate removed.",
        "parsed_md": "The page's main content as GitHub-flavoured Markdown (headings, lists, tables).",
        "title": "The page's title.",
        "passages": "The text cut into passages of about 100 words at block boundaries.",
    },
}


@dataclass(frozen=True)
class HubSettings:
    shard_rows: int = 10_000
    name: str | None = None  # default: the dataset folder's name
    license: str = "other"
    description: str | None = None
    allow_empty_answers: bool = False  # export questions whose gold answer is empty


@dataclass
class HubExport:
    out: Path
    files: dict[str, dict[str, list[str]]] = field(default_factory=dict)  # part → split → shard paths
    rows: dict[str, dict[str, int]] = field(default_factory=dict)  # part → split → rows
    skipped_columns: dict[str, list[str]] = field(default_factory=dict)
    documents_without_question: int = 0
    empty_answers: int = 0
    questions_without_documents: int = 0
    warnings: list[str] = field(default_factory=list)  # what the gold check found (export.gold)


# --------------------------------------------------------------------------- shards


def _split_order(names: set[str]) -> list[str]:
    return [s for s in (*SPLITS, UNSPLIT) if s in names] + sorted(names - {*SPLITS, UNSPLIT})


def _schema(rows: Iterable[Mapping[str, Any]], name: str) -> tuple[Any, int]:
    """The Arrow schema of all rows of a part, read chunk by chunk, and the number of rows: what one
    table of every row would infer (fields in order of first appearance, types promoted as Arrow
    promotes them within a column), so every shard has it."""
    import pyarrow as pa

    schema, count = pa.schema([]), 0
    for chunk in _chunks(rows):
        part = pa.table(_parquet_columns(Path(name), chunk, first_row=count + 1)).schema
        try:
            schema = pa.unify_schemas([schema, part], promote_options="permissive")
        except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
            raise DatasetError(
                f"{name}: a field mixes value types before and after row {count + 1} ({exc}), which one "
                "Parquet column cannot hold; give it one type in every row"
            ) from None
        count += len(chunk)
    return schema, count


def _chunks(rows: Iterable[Mapping[str, Any]]) -> Iterator[list[Mapping[str, Any]]]:
    chunk: list[Mapping[str, Any]] = []
    for row in rows:
        chunk.append(row)
        if len(chunk) >= CHUNK_ROWS:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


class _ShardWriter:
    """The shards of one split of one part, written as rows come: ``CHUNK_ROWS`` rows at most held, a
    shard closed when it holds ``shard_rows``; ``total`` (from the first pass) names the shards."""

    def __init__(self, folder: Path, split: str, schema: Any, total: int, shard_rows: int) -> None:
        self.folder, self.split, self.schema, self.shard_rows = folder, split, schema, shard_rows
        self.shards = max(1, math.ceil(total / shard_rows))
        self.paths: list[Path] = []
        self.buffer: list[Mapping[str, Any]] = []
        self.in_shard = 0
        self.writer: Any = None

    def add(self, row: Mapping[str, Any]) -> None:
        self.buffer.append(row)
        if len(self.buffer) >= CHUNK_ROWS or self.in_shard + len(self.buffer) >= self.shard_rows:
            self.flush()

    def flush(self) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        if not self.buffer:
            return
        if self.writer is None:
            path = self.folder / f"{self.split}-{len(self.paths):05d}-of-{self.shards:05d}.parquet"
            path.parent.mkdir(parents=True, exist_ok=True)
            self.writer = pq.ParquetWriter(path, self.schema)
            self.paths.append(path)
        columns = [pa.array([row.get(f.name) for row in self.buffer], type=f.type) for f in self.schema]
        self.writer.write_table(pa.Table.from_arrays(columns, schema=self.schema))
        self.in_shard += len(self.buffer)
        self.buffer = []
        if self.in_shard >= self.shard_rows:
            self.close()

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.writer, self.in_shard = None, 0

    def finish(self) -> list[Path]:
        self.flush()
        self.close()
        return self.paths


def _write_part(
    rows: Iterable[tuple[str, Mapping[str, Any]]],
    schema: Any,
    counts: Mapping[str, int],
    folder: Path,
    shard_rows: int,
) -> dict[str, list[Path]]:
    """Every ``(split, row)`` into its split's shards, in the rows' order within each split."""
    writers = {split: _ShardWriter(folder, split, schema, counts[split], shard_rows) for split in counts}
    try:
        for split, row in rows:
            writers[split].add(row)
        return {split: writers[split].finish() for split in _split_order(set(counts))}
    finally:
        for writer in writers.values():
            writer.close()


# --------------------------------------------------------------------------- Croissant


def _croissant_type(arrow_type: Any) -> tuple[Any, bool] | None:
    """(Croissant data type, is an array) of an Arrow column, or None if Croissant cannot say."""
    import pyarrow.types as t
    from mlcroissant import DataType

    is_array = t.is_list(arrow_type) or t.is_large_list(arrow_type)
    base = arrow_type.value_type if is_array else arrow_type
    if t.is_boolean(base):
        kind = DataType.BOOL
    elif t.is_integer(base):
        kind = DataType.INTEGER
    elif t.is_floating(base):
        kind = DataType.FLOAT
    elif t.is_string(base) or t.is_large_string(base):
        kind = DataType.TEXT
    else:
        return None
    return kind, is_array


def croissant_metadata(
    export: HubExport, schemas: Mapping[str, Any], card: Mapping[str, Any], settings: HubSettings
) -> dict[str, Any]:
    """Croissant JSON-LD built with mlcroissant's own classes (it writes the context and the terms)."""
    import mlcroissant as mlc

    distribution = []
    record_sets = []
    for part in PARTS:
        if part not in export.files:
            continue
        file_set = f"{part}-parquet"
        distribution.append(
            mlc.FileSet(
                id=file_set,
                name=file_set,
                description=f"The {part} part: Parquet shards per split.",
                encoding_formats=["application/x-parquet"],
                includes=[f"data/{part}/*.parquet"],
            )
        )
        fields = []
        skipped = []
        for column in schemas[part]:
            kind = _croissant_type(column.type)
            if kind is None:
                skipped.append(column.name)
                continue
            data_type, is_array = kind
            fields.append(
                mlc.Field(
                    id=f"{part}/{column.name}",
                    name=column.name,
                    description=_DESCRIPTIONS[part].get(
                        column.name, f"Field {column.name!r} of the release."
                    ),
                    data_types=[data_type],
                    is_array=is_array or None,
                    array_shape="-1" if is_array else None,
                    source=mlc.Source(file_set=file_set, extract=mlc.Extract(column=column.name)),
                )
            )
        export.skipped_columns[part] = skipped
        record_sets.append(
            mlc.RecordSet(
                id=part,
                name=part,
                description="One row per question." if part == "qa" else "One row per cited page.",
                fields=fields,
            )
        )
    metadata = mlc.Metadata(
        conforms_to=["http://mlcommons.org/croissant/1.1"],  # arrays of text (cr:isArray) are 1.1
        name=card["name"],
        description=card["description"],
        cite_as=CITATION,
        license=[settings.license],
        url=card.get("url") or "https://huggingface.co/datasets",
        version="1.0.0",
        date_published=datetime.now(UTC).replace(microsecond=0),
        in_language=["en"],
        keywords=["question answering", "non-factoid", "multi-document", "how-to"],
        distribution=distribution,
        record_sets=record_sets,
    )
    problems = [str(e) for e in metadata.issues.errors]
    if problems:
        raise DatasetError("the Croissant metadata does not validate: " + "; ".join(problems))
    return metadata.to_json()


# --------------------------------------------------------------------------- the card


def _funnel_lines(manifest: Mapping[str, Any]) -> list[str]:
    funnel = manifest.get("funnel") or {}
    lines = []
    for stage, counts in funnel.items():
        if isinstance(counts, Mapping) and counts:
            steps = " → ".join(f"{k.replace('_', ' ')} {v:,}" for k, v in counts.items())
            lines.append(f"- {stage}: {steps}")
    rejections = {k: v for k, v in (manifest.get("rejections") or {}).items() if v}
    if rejections:
        lines.append(
            "- rejected: " + ", ".join(f"{k.replace('_', ' ')} {v:,}" for k, v in sorted(rejections.items()))
        )
    return lines


def _sources_lines(manifest: Mapping[str, Any]) -> list[str]:
    sources = manifest.get("sources")
    lines = []
    if isinstance(sources, Mapping):  # a build: the wiki and the archive
        for name, info in sources.items():
            if isinstance(info, Mapping):
                described = ", ".join(f"{k} `{v}`" for k, v in info.items() if isinstance(v, str | int))
                lines.append(f"- {name}: {described}")
    elif isinstance(sources, list):  # an import: the release files
        for info in sources:
            if isinstance(info, Mapping):
                lines.append(
                    f"- {info.get('part', 'file')}: `{Path(str(info.get('path'))).name}`"
                    f" (sha256 `{str(info.get('sha256', ''))[:16]}…`)"
                )
    return lines


def _dates(manifest: Mapping[str, Any]) -> str:
    dates = manifest.get("dates") or {}
    if dates.get("started") or dates.get("finished"):
        return f"collected from {dates.get('started', '?')} to {dates.get('finished', '?')}"
    if manifest.get("created"):
        return f"created {manifest['created']}"
    return "dates not recorded"


def render_card(
    export: HubExport, manifest: Mapping[str, Any], card: Mapping[str, Any], settings: HubSettings
) -> str:
    import yaml

    configs = []
    for part in PARTS:
        if part in export.files:
            entry: dict[str, Any] = {
                "config_name": part,
                "data_files": [
                    {"split": split, "path": f"data/{part}/{split}-*.parquet"} for split in export.files[part]
                ],
            }
            if part == "qa":
                entry["default"] = True
            configs.append(entry)
    header = {
        "pretty_name": card["name"],
        "language": ["en"],
        "license": settings.license,
        "task_categories": ["question-answering", "text-generation"],
        "tags": ["non-factoid", "multi-document", "how-to", "croissant"],
        "size_categories": [card["size_category"]],
        "configs": configs,
    }
    rows = export.rows
    split_table = ["| part | " + " | ".join(export.files.get("qa", {})) + " |"]
    split_table.append("|---|" + "---:|" * len(export.files.get("qa", {})))
    for part in PARTS:
        if part in rows:
            split_table.append(
                f"| {part} | "
                + " | ".join(f"{rows[part].get(s, 0):,}" for s in export.files.get("qa", {}))
                + " |"
            )
    split_info = manifest.get("split") or {}
    tool = manifest.get("tool") or {}
    lines = [
        "---",
        yaml.safe_dump(header, sort_keys=False, allow_unicode=True).strip(),
        "---",
        "",
        f"# {card['name']}",
        "",
        card["description"],
        "",
        "## Contents",
        "",
        *split_table,
        "",
        "- `qa` (default config): `article_id`, `question`, `answer` (human-written), the archived URLs of"
        " the cited pages, `split`, `cluster`, `category`.",
        "- `documents`: each cited page as archived and parsed — `original_url`, `archive_url`,"
        " `parsed_text`, `parsed_md`, `title`, `passages` — joined to its question by `article_id`.",
        "",
        "```python",
        "from datasets import load_dataset",
        'qa = load_dataset("PATH_OR_REPO")                  # the default config',
        'documents = load_dataset("PATH_OR_REPO", "documents")',
        "```",
        "",
        f'`{CROISSANT_FILE}` describes both parts in Croissant (`mlcroissant.Dataset("{CROISSANT_FILE}")'
        '.records("qa")`).',
        "",
        "## How it was built",
        "",
        f"With wikihowqa {tool.get('version', __version__)} (stage"
        f" `{manifest.get('stage') or manifest.get('kind')}`; {_dates(manifest)}), following Bolotova et al."
        " (2023): how-to articles with a summary answer and cited references, each reference fetched"
        " from the web archive capture closest to the article's date and parsed to its main text.",
        "",
    ]
    sources = _sources_lines(manifest)
    if sources:
        lines += ["Sources:", "", *sources, ""]
    funnel = _funnel_lines(manifest)
    if funnel:
        lines += ["Collection funnel:", "", *funnel, ""]
    if split_info:
        s = split_info.get("settings") or {}
        lines += [
            f"Split: questions embedded with {s.get('model', 'a sentence encoder')} and clustered with"
            f" HDBSCAN ({split_info.get('clusters', '?')} clusters); every clustered question is in train,"
            f" the unclustered ones are dealt to validation and test (seed {s.get('seed', '?')}), so no"
            " evaluation question has a near-duplicate in train.",
            "",
        ]
    if export.documents_without_question:
        lines += [
            f"{export.documents_without_question:,} documents whose question is not in the QA part are"
            " left out.",
            "",
        ]
    if export.questions_without_documents:
        lines += [f"Questions without documents: {export.questions_without_documents:,}.", ""]
    if export.empty_answers:
        lines += [f"Questions with an empty gold answer (exported as asked): {export.empty_answers:,}.", ""]
    lines += [
        "## Licences",
        "",
        "The questions and answers come from the source wiki under its own terms (card licence:"
        f" `{settings.license}`). The cited pages belong to their owners: their text is distributed"
        " here as archived copies for research, and their licences are left to those owners — check a"
        " page's terms before any other use. The wikihowqa toolkit that built this folder is MIT-licensed.",
        "",
        "## Citation",
        "",
        "```bibtex",
        CITATION,
        "```",
        "",
    ]
    return "\n".join(lines)


# --------------------------------------------------------------------------- the stage


def _size_category(n: int) -> str:
    for limit, name in (
        (1_000, "n<1K"),
        (10_000, "1K<n<10K"),
        (100_000, "10K<n<100K"),
        (1_000_000, "100K<n<1M"),
    ):
        if n < limit:
            return name
    return "1M<n<10M"


def _document_pass(path: Path, split_of: Mapping[int, str]) -> tuple[Any, int, Counter[int], int]:
    """The documents part's schema and rows (of exported questions), each question's documents and the
    documents whose question is not exported; reads one document at a time."""
    per_article: Counter[int] = Counter()
    orphans = 0

    def rows() -> Iterator[dict[str, Any]]:
        nonlocal orphans
        for doc in iter_documents(path):
            if doc.article_id in split_of:
                per_article[doc.article_id] += 1
                yield document_to_dict(doc)
            else:
                orphans += 1

    schema, count = _schema(rows(), "documents.parquet")
    return schema, count, per_article, orphans


def _document_rows(path: Path, split_of: Mapping[int, str]) -> Iterator[tuple[str, dict[str, Any]]]:
    for doc in iter_documents(path):
        if doc.article_id in split_of:
            yield split_of[doc.article_id], document_to_dict(doc)


def export_hub(
    dataset: Path, out: Path, settings: HubSettings = HubSettings(), *, overwrite: bool = False
) -> HubExport:
    """Write the Hub folder (through a staging folder: a failed export leaves no half-written one)."""
    if settings.shard_rows < 1:
        raise SettingsError("--shard-rows must be at least 1")
    out = Path(out)
    if out.exists() and any(out.iterdir()) and not overwrite:
        raise DatasetError(f"{out}: folder exists and is not empty (use --overwrite to replace it)")
    folder = DatasetFolder(Path(dataset))
    examples = folder.examples()
    if not examples:
        raise DatasetError(f"{folder.path}: no questions to export")
    documents = folder.documents_path
    manifest = folder.manifest()
    split_of = {e.article_id: (e.split or UNSPLIT) for e in examples}
    # First pass over the documents, one at a time: their schema, and how many each question has.
    doc_schema, doc_count, per_article, orphans = _document_pass(documents, split_of)
    # range(n): the n documents of a question, without holding them
    gold = check_gold(examples, {article: range(n) for article, n in per_article.items()})
    refuse_empty_answers(gold, folder.path, allow=settings.allow_empty_answers)
    qa_rows = [example_to_dict(e) for e in examples]
    export = HubExport(
        out,
        documents_without_question=orphans,
        empty_answers=len(gold.empty_answers),
        questions_without_documents=len(gold.without_documents),
        warnings=gold.warnings(),
    )
    name = settings.name or folder.path.name
    card = {
        "name": name,
        "description": settings.description
        or (
            f"{name}: a multi-document non-factoid question-answering benchmark in the format of WikiHowQA"
            f" (Bolotova et al., ACL 2023): {len(examples):,} how-to questions with human-written answers and"
            f" {doc_count:,} supporting web pages, archived and parsed."
        ),
        "size_category": _size_category(len(examples)),
    }
    qa_counts = Counter(split_of[e.article_id] for e in examples)
    doc_counts: Counter[str] = Counter()
    for article, n in per_article.items():
        doc_counts[split_of[article]] += n
    schemas = {"qa": _schema(qa_rows, "qa.parquet")[0], "documents": doc_schema}
    with atomic_folder(out) as staging:
        for part, rows, counts in (
            ("qa", ((split_of[r["article_id"]], r) for r in qa_rows), qa_counts),
            ("documents", _document_rows(documents, split_of), doc_counts),
        ):
            if not counts:
                schemas.pop(part)
                continue
            shards = _write_part(rows, schemas[part], counts, staging / "data" / part, settings.shard_rows)
            export.files[part] = {
                s: [str(p.relative_to(staging)) for p in paths] for s, paths in shards.items()
            }
            export.rows[part] = {split: counts[split] for split in shards}
        write_json(staging / CROISSANT_FILE, croissant_metadata(export, schemas, card, settings))
        (staging / "README.md").write_text(render_card(export, manifest, card, settings), encoding="utf-8")
    return export


def _decoded(value: Any) -> Any:
    """mlcroissant yields text as bytes (arrays of it as arrays of bytes)."""
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if hasattr(value, "tolist") and not isinstance(value, str):
        value = value.tolist()
    if isinstance(value, list):
        return [_decoded(v) for v in value]
    return value


def load_records(out: Path, record_set: str = "qa", limit: int | None = None) -> list[dict[str, Any]]:
    """Records of one record set read back through mlcroissant (what a Croissant consumer sees)."""
    import mlcroissant as mlc

    dataset = mlc.Dataset(jsonld=str(Path(out) / CROISSANT_FILE))
    records = []
    for record in dataset.records(record_set=record_set):
        records.append({k.split("/", 1)[-1]: _decoded(v) for k, v in record.items()})
        if limit is not None and len(records) >= limit:
            break
    return records


__all__ = ["CITATION", "CROISSANT_FILE", "HubExport", "HubSettings", "export_hub", "load_records"]
