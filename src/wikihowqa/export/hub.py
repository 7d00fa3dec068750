"""A dataset folder → a folder ready for the Hugging Face Hub, described in Croissant.

Layout (``datasets.load_dataset(OUT)`` reads it through the card's ``configs``)::

    OUT/README.md                                   dataset card: YAML header + what, how, licences, citation
    OUT/croissant.json                              Croissant 1.1 metadata (JSON-LD), validated by mlcroissant
    OUT/data/qa/<split>-00000-of-0000N.parquet      the QA part, per split (config ``qa``, the default)
    OUT/data/documents/<split>-00000-of-0000N.parquet   the documents of each split's questions (config
                                                    ``documents``)

Rows are the release's own fields (``io.example_to_dict``, ``io.document_to_dict``); one Arrow schema per
part, so every shard reads with the same features. Questions without a split go to the split
``unsplit``; documents whose question is not in the QA part are left out and counted in the card.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from wikihowqa import __version__
from wikihowqa.core.errors import DatasetError, SettingsError
from wikihowqa.core.files import atomic_folder, atomic_write, write_json
from wikihowqa.core.records import SPLITS
from wikihowqa.dataset.codecs import document_to_dict, example_to_dict
from wikihowqa.dataset.folder import DatasetFolder
from wikihowqa.dataset.writers import _parquet_columns
from wikihowqa.export.gold import check_gold, refuse_empty_answers

UNSPLIT = "unsplit"
CROISSANT_FILE = "croissant.json"
PARTS = ("qa", "documents")
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


def _table(rows: list[Mapping[str, Any]], name: str) -> Any:
    """One Arrow table for all rows of a part (one schema for every shard)."""
    import pyarrow as pa

    return pa.table(_parquet_columns(Path(name), rows))


def _write_shards(table: Any, folder: Path, split: str, shard_rows: int) -> list[Path]:
    import pyarrow.parquet as pq

    shards = max(1, math.ceil(table.num_rows / shard_rows))
    paths = []
    for k in range(shards):
        path = folder / f"{split}-{k:05d}-of-{shards:05d}.parquet"
        with atomic_write(path, "wb") as fh:
            pq.write_table(table.slice(k * shard_rows, shard_rows), fh)
        paths.append(path)
    return paths


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
    documents = folder.documents()
    manifest = folder.manifest()
    by_article: dict[int, list[Any]] = defaultdict(list)
    for d in documents:
        by_article[d.article_id].append(d)
    gold = check_gold(examples, by_article)
    refuse_empty_answers(gold, folder.path, allow=settings.allow_empty_answers)
    split_of = {e.article_id: (e.split or UNSPLIT) for e in examples}
    qa_rows = [example_to_dict(e) for e in examples]
    doc_rows = [document_to_dict(d) for d in documents if d.article_id in split_of]
    doc_splits = [split_of[d.article_id] for d in documents if d.article_id in split_of]
    export = HubExport(
        out,
        documents_without_question=len(documents) - len(doc_rows),
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
            f" {len(doc_rows):,} supporting web pages, archived and parsed."
        ),
        "size_category": _size_category(len(examples)),
    }
    schemas = {}
    with atomic_folder(out) as staging:
        for part, rows, splits in (
            ("qa", qa_rows, [split_of[r["article_id"]] for r in qa_rows]),
            ("documents", doc_rows, doc_splits),
        ):
            if not rows:
                continue
            table = _table(rows, f"{part}.parquet")
            schemas[part] = table.schema
            indices: dict[str, list[int]] = defaultdict(list)
            for k, split in enumerate(splits):
                indices[split].append(k)
            export.files[part], export.rows[part] = {}, {}
            for split in _split_order(set(indices)):
                shards = _write_shards(
                    table.take(indices[split]), staging / "data" / part, split, settings.shard_rows
                )
                export.files[part][split] = [str(p.relative_to(staging)) for p in shards]
                export.rows[part][split] = len(indices[split])
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
