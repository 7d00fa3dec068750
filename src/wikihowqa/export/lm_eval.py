"""A dataset split → an lm-evaluation-harness task folder.

``lm_eval run --include_path OUT --tasks wikihowqa --model …`` then runs the benchmark: the model
generates an answer to each prompt (the question alone, or with its top passages as the LLM baselines
see them), and the task scores it with this project's own metrics — ROUGE-1/2/L/Lsum F1 exactly as
``rouge-score`` with stemming (``evaluate.rouge``), and grounding against the question's documents
(``evaluate.grounding``) — averaged over questions. The folder::

    OUT/wikihowqa.yaml         the task (name settable), generate_until, the metric list
    OUT/utils.py               the dataset loader and ``process_results`` (imports wikihowqa)
    OUT/wikihowqa_<split>.jsonl  one line per question: prompt, gold answer, passages for grounding
    OUT/README.md              how to run it

The documents travel with the task (grounding needs them), so the folder is self-contained except for
the ``wikihowqa`` package itself, which must be importable where lm-eval runs.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from wikihowqa import __version__
from wikihowqa.core.errors import DatasetError, SettingsError
from wikihowqa.core.files import atomic_folder
from wikihowqa.core.records import normalise_split, passages_of
from wikihowqa.dataset.folder import DatasetFolder
from wikihowqa.dataset.writers import write_jsonl
from wikihowqa.export.gold import check_gold, refuse_empty_answers
from wikihowqa.generate.context import approximate_token_counter
from wikihowqa.generate.llm import PromptSettings, passages_prompt
from wikihowqa.retrieve.bm25 import BM25Retriever
from wikihowqa.retrieve.ranking import rank

METRICS_ROUGE = ("rouge1", "rouge2", "rougeL", "rougeLsum")
METRICS_GROUNDING = ("grounding_support", "grounding_supported_share")


@dataclass(frozen=True)
class LmEvalSettings:
    task: str = "wikihowqa"
    split: str = "test"
    passages: bool = True  # the prompt holds the top BM25 passages (else the question alone)
    max_context_tokens: int = 1500  # prompt budget, approximated at 4 characters a token
    max_gen_toks: int = 256
    grounding: bool = True
    allow_empty_answers: bool = False  # export questions whose gold answer is empty (each scores 0)

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", self.task):
            raise SettingsError(f"task name {self.task!r}: use letters, digits and underscores")
        if self.max_context_tokens < 1 or self.max_gen_toks < 1:
            raise SettingsError("token budgets must be positive")

        try:
            normalise_split(self.split)
        except ValueError as exc:
            raise SettingsError(f"--split: {exc}") from None


YAML_TEMPLATE = """\
# lm-evaluation-harness task written by wikihowqa {version}: {description}
task: {task}
custom_dataset: !function utils.load
test_split: {split}
output_type: generate_until
doc_to_text: prompt
doc_to_target: answer
generation_kwargs:
  until:
    - "\\n\\n"
  max_gen_toks: {max_gen_toks}
  do_sample: false
  temperature: 0.0
process_results: !function utils.process_results
metric_list:
{metrics}
metadata:
  version: 1.0
  wikihowqa_settings: {settings}
"""

UTILS = '''\
"""Loader and metrics of the {task} task (written by wikihowqa {version}; needs the wikihowqa package)."""

from __future__ import annotations

import json
from pathlib import Path

DATA = Path(__file__).with_name("{data_file}")
SPLIT = "{split}"
GROUNDING = {grounding}
_SCORER = None


def load(**_ignored):
    """The split as a datasets.DatasetDict (lm-eval passes the task's metadata as keywords)."""
    import datasets

    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    return datasets.DatasetDict({{SPLIT: datasets.Dataset.from_list(rows)}})


def _grounding(answer, passages):
    global _SCORER
    from wikihowqa.evaluate.grounding import GroundingConfig, GroundingScorer
    from wikihowqa.core.records import Passage

    if _SCORER is None:
        _SCORER = GroundingScorer(GroundingConfig())
    ps = [Passage(0, p["doc_index"], p["position"], p["text"]) for p in passages]
    return _SCORER.score(answer, ps)


def process_results(doc, results):
    """This project's ROUGE (rouge-score's numbers, stemming) and grounding of the generated answer."""
    from wikihowqa.evaluate import rouge

    answer = results[0].strip()
    scores = rouge.score(answer, doc["answer"])
    out = {{name: scores[name]["fmeasure"] for name in ("rouge1", "rouge2", "rougeL", "rougeLsum")}}
    if GROUNDING:
        grounded = _grounding(answer, doc["passages"])
        out["grounding_support"] = grounded.mean_support
        out["grounding_supported_share"] = grounded.supported_share
    return out
'''


def _prompt(question: str, passages: list[Any], settings: LmEvalSettings) -> tuple[str, int]:
    """The LLM baselines' user prompt: with passages, the input builder's whole top-ranked passages
    (BM25 against the question) within the budget, in source order."""
    prompt = PromptSettings(max_context_tokens=settings.max_context_tokens)
    if not settings.passages or not passages:
        return prompt.question_only.format(question=question), 0

    built = passages_prompt(
        question, rank(BM25Retriever(), question, passages), prompt, approximate_token_counter()
    )
    return built.text, len(built.kept)


def export_lm_eval(
    dataset: Path, out: Path, settings: LmEvalSettings = LmEvalSettings(), *, overwrite: bool = False
) -> dict[str, Any]:
    """Write the task folder; returns a summary (questions, passages in prompts)."""
    out = Path(out)
    if out.exists() and any(out.iterdir()) and not overwrite:
        raise DatasetError(f"{out}: folder exists and is not empty (use --overwrite to replace it)")
    folder = DatasetFolder(Path(dataset))
    examples = folder.examples(settings.split)
    if not examples:
        raise DatasetError(f"{folder.path}: no questions in split {settings.split!r}")
    # read one document at a time, keeping the split's: the export holds its split, not the corpus
    documents = folder.documents_by_article({e.article_id for e in examples}, texts=False)  # passages
    gold = check_gold(examples, documents)
    refuse_empty_answers(gold, folder.path, allow=settings.allow_empty_answers)
    rows, kept = [], []
    for e in examples:
        passages = passages_of(documents.get(e.article_id, []))
        text, n = _prompt(e.question, passages, settings)
        kept.append(n)
        rows.append(
            {
                "article_id": e.article_id,
                "question": e.question,
                "answer": e.answer,
                "prompt": text,
                "passages": [
                    {"doc_index": p.doc_index, "position": p.position, "text": p.text} for p in passages
                ]
                if settings.grounding
                else [],
            }
        )
    data_file = f"{settings.task}_{settings.split}.jsonl"
    metrics = [*METRICS_ROUGE, *(METRICS_GROUNDING if settings.grounding else ())]
    description = f"{folder.path.name}, {settings.split} split, {len(rows)} questions, prompt " + (
        "with the top passages" if settings.passages else "with the question only"
    )
    yaml_text = YAML_TEMPLATE.format(
        version=__version__,
        description=description,
        task=settings.task,
        split=settings.split,
        max_gen_toks=settings.max_gen_toks,
        metrics="\n".join(
            f"  - metric: {m}\n    aggregation: mean\n    higher_is_better: true" for m in metrics
        ),
        settings=json.dumps(asdict(settings)),  # JSON is YAML
    )
    utils = UTILS.format(
        task=settings.task,
        version=__version__,
        data_file=data_file,
        split=settings.split,
        grounding=settings.grounding,
    )
    readme = (
        f"# lm-evaluation-harness task `{settings.task}`\n\n{description}.\n\n"
        "```bash\n"
        f"lm_eval run --include_path {out} --tasks {settings.task} --model hf --model_args pretrained=MODEL\n"
        "```\n\n"
        f"Metrics (means over questions): {', '.join(metrics)} — this project's ROUGE F1 (equal to"
        " `rouge-score` with stemming) and grounding support against the question's documents. The"
        " `wikihowqa` package must be importable where lm-eval runs.\n"
    )
    with atomic_folder(out) as staging:
        (staging / f"{settings.task}.yaml").write_text(yaml_text, encoding="utf-8")
        (staging / "utils.py").write_text(utils, encoding="utf-8")
        (staging / "README.md").write_text(readme, encoding="utf-8")
        write_jsonl(staging / data_file, rows)
    return {
        "task": settings.task,
        "questions": len(rows),
        "split": settings.split,
        "mean_passages_in_prompt": sum(kept) / len(kept) if kept else 0.0,
        "metrics": metrics,
        "out": str(out),
        "empty_answers": len(gold.empty_answers),
        "questions_without_documents": len(gold.without_documents),
        "warnings": gold.warnings(),
    }
