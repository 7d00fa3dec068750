"""A sentence-transformers model run by OpenVINO on the CPU: the same vectors, about 3× the passages a second.

Why: embedding a split's passages is the slowest step of dense retrieval on a machine without a GPU (the
paper's 1,053,704 passages took 6.5 hours with torch on 2 cores; ``benchmarks/embed_speed.py``). The
transformer is converted from the loaded torch model (``openvino.convert_model``: no network, no ONNX file)
once per model, OpenVINO and transformers version, and kept in the user's cache folder
(``$WIKIHOWQA_MODEL_CACHE``, else ``$XDG_CACHE_HOME/wikihowqa/openvino``); every later load reads it,
once its files match the SHA-256 digests stored beside them (``model.sha256.json``): a truncated, cut,
missing or altered file is converted again (one line says so), never read. A cache folder that cannot be
written is said to be so, and the model is then converted into a temporary folder for the run.
Tokenising (the model's own tokenizer and ``max_seq_length``), pooling and normalising follow the
sentence-transformers model, in numpy, on batches of similar length (little padding).

Precision: ``bf16`` where the CPU computes in it (AVX-512 BF16 or AMX; vectors keep a cosine above 0.9999
to float32's), else ``f32``; ``precision`` forces one. ``int8`` (opt-in, needs ``nncf``: the ``int8``
extra) is a statically quantized copy (NNCF's transformer preset, SmoothQuant), calibrated once on the real
how-to passages shipped with the package: faster again, but its vectors stray further (a cosine of about
0.998 to float32's). The precision is part of the embedding cache's key, so vectors of different
precisions never mix.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import re
import shutil
import tempfile
import warnings
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from wikihowqa.core.errors import SettingsError, describe_environment_error, is_environment_error
from wikihowqa.runtime.model_cache import CACHE_ENV, cache_root, digest_damage, note
from wikihowqa.runtime.model_cache import file_sha256 as _sha256

PRECISIONS = ("auto", "bf16", "f32", "int8")
MODEL_FILE = "model.xml"
INT8_FILE = "model-int8.xml"
#: Calibration batches of the int8 model (8 texts each): the activations' ranges are measured on them.
CALIBRATION_BATCHES = 24


#: Beside each model file: the SHA-256 of its ``.xml`` and ``.bin``, written last (no digest: unfinished).
DIGEST_SUFFIX = ".sha256.json"


def export_root() -> Path:
    """Where converted models are kept: ``$WIKIHOWQA_MODEL_CACHE``, else the user's cache folder."""
    return cache_root("openvino")


def _model_files(model: Path) -> tuple[Path, Path]:
    return model, model.with_suffix(".bin")


def digest_path(model: Path) -> Path:
    """Where ``model``'s digests are kept: ``model.xml`` → ``model.sha256.json``."""
    return model.with_name(model.stem + DIGEST_SUFFIX)


def write_digest(model: Path) -> None:
    """Store the digests of ``model``'s two files, written to a temporary file renamed into place."""
    digests = {path.name: _sha256(path) for path in _model_files(model)}
    record = digest_path(model)
    partial = record.with_name(f".{record.name}.{os.getpid()}.partial")
    partial.write_text(json.dumps(digests, indent=1))
    partial.replace(record)


def damage(model: Path) -> str | None:
    """Why ``model``'s files cannot be trusted (missing, cut, altered, no digest), ``None`` when they match
    the digests stored beside them."""
    return digest_damage(digest_path(model), [path.name for path in _model_files(model)])


def _verified(model: Path) -> bool:
    """Whether a usable ``model`` is there; says in one line when one is there but damaged."""
    if not (model.exists() or model.with_suffix(".bin").exists() or digest_path(model).exists()):
        return False
    problem = damage(model)
    if problem is None:
        return True
    note(f"the converted model {model} is damaged: {problem}; converting it again")
    return False


def _scratch(root: Path, exc: OSError) -> Path:
    """A temporary folder for this run's model when the cache folder cannot be written (removed at exit)."""
    why = describe_environment_error(OSError(exc.errno, exc.strerror), str(root))  # the folder, not a file
    note(
        f"the model cache cannot be written ({why}): the model is converted into a temporary folder for"
        f" this run only; set ${CACHE_ENV} to a writable folder to keep it"
    )
    folder = Path(tempfile.mkdtemp(prefix="wikihowqa-openvino-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


@cache
def _capabilities() -> tuple[str, ...]:
    import openvino as ov

    return tuple(ov.Core().get_property("CPU", "OPTIMIZATION_CAPABILITIES"))


def cpu_precision(precision: str | None = "auto") -> str:
    """``precision`` as run here: ``auto`` is ``bf16`` where this CPU has it, else ``f32``."""
    value = (precision or "auto").strip().lower()
    if value not in PRECISIONS:
        raise SettingsError(f"precision {precision!r}: expected auto, bf16, f32 or int8")
    if value == "auto":
        return "bf16" if "BF16" in _capabilities() else "f32"
    return value


def _fingerprint(source: str) -> str:
    """What the converted model depends on: the model (its files' sizes and times, for a local folder),
    and the versions of the converter and of the modelling code it traced."""
    import openvino
    import transformers

    parts = [source, openvino.__version__, transformers.__version__]
    folder = Path(source)
    if folder.is_dir():
        for path in sorted(folder.iterdir()):
            if path.is_file() and path.suffix in (".safetensors", ".bin", ".json"):
                stat = path.stat()
                parts.append(f"{path.name}:{stat.st_size}:{stat.st_mtime_ns}")
    return hashlib.sha1("\n".join(parts).encode()).hexdigest()[:12]


def export_folder(source: str, root: Path | None = None, name: str | None = None) -> Path:
    """The folder the converted ``source`` model lives in (whether it exists yet or not); ``name`` a readable
    prefix (default: the folder's or model's name)."""
    label = re.sub(r"[^A-Za-z0-9._-]+", "-", name or Path(source).name or source).strip("-")[:60]
    return (root or export_root()) / f"{label}-{_fingerprint(source)}"


def _check_layout(st_model: Any) -> tuple[str, bool]:
    """(pooling mode, normalise?) of a Transformer → Pooling [→ Normalize] model; others are refused."""
    modules = [type(m).__name__ for m in st_model]
    if modules not in (["Transformer", "Pooling"], ["Transformer", "Pooling", "Normalize"]):
        raise SettingsError(
            "the openvino backend runs Transformer → Pooling [→ Normalize] models, not "
            f"{' → '.join(modules)}: use backend torch"
        )
    if "attention_mask" not in st_model.tokenizer.model_input_names:
        raise SettingsError(
            "the openvino backend needs a tokenizer that gives an attention mask: use backend torch"
        )
    mode = st_model[1].get_config_dict().get("pooling_mode")
    if mode not in ("mean", "cls") or not st_model[1].get_config_dict().get("include_prompt", True):
        raise SettingsError(f"the openvino backend pools by mean or cls, not {mode!r}: use backend torch")
    return str(mode), modules[-1] == "Normalize"


def export_model(st_model: Any, folder: Path) -> Path:
    """The OpenVINO model file of ``st_model``'s transformer in ``folder``, converted unless a copy whose
    files match their digests is there (a damaged one is replaced).

    Written to a temporary folder renamed into place, so an interrupted or concurrent export never leaves a
    half-written model that a later run would read. A cache folder that cannot be written gives a model
    converted into a temporary folder, for this run only."""
    target = folder / MODEL_FILE
    if _verified(target):
        return target
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        partial = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", suffix=".partial", dir=folder.parent))
    except OSError as exc:
        if not is_environment_error(exc):
            raise
        scratch = _scratch(folder.parent, exc) / folder.name
        _convert(st_model, scratch)
        return scratch / MODEL_FILE
    try:
        _convert(st_model, partial)
        _put_in_place(partial, folder)
    except OSError as exc:
        if not is_environment_error(exc) or _verified(target):
            raise
        scratch = _scratch(folder.parent, exc) / folder.name
        shutil.move(partial, scratch)
        return scratch / MODEL_FILE
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    return target


def _put_in_place(partial: Path, folder: Path) -> None:
    """Rename the finished ``partial`` folder to ``folder``; a damaged copy there is moved aside first, a
    good one (another process's, finished meanwhile) kept: a process may be reading it."""
    if folder.exists() and damage(folder / MODEL_FILE) is not None:
        aside = folder.parent / f".{folder.name}.{os.getpid()}.damaged"
        folder.rename(aside)
        shutil.rmtree(aside, ignore_errors=True)
    try:
        partial.rename(folder)
    except OSError:  # another process finished first: its copy serves
        if damage(folder / MODEL_FILE) is not None:
            raise


def _convert(st_model: Any, out: Path) -> None:
    """Convert ``st_model``'s transformer into the folder ``out`` (created if need be), digests last."""
    import openvino as ov
    import torch

    names = list(st_model.tokenizer.model_input_names)

    class _Transformer(torch.nn.Module):
        def __init__(self, model: Any) -> None:
            super().__init__()
            self.model = model

        def forward(self, *inputs: Any) -> Any:
            return self.model(**dict(zip(names, inputs, strict=True))).last_hidden_state

    example = st_model.tokenizer(
        ["an example", "a second, longer example"], padding=True, return_tensors="pt"
    )
    transformer = _Transformer(st_model[0].auto_model.eval())
    try:
        with torch.inference_mode(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the tracer's notes on shapes it treats as constants
            converted = ov.convert_model(
                transformer, example_input=tuple(example[n] for n in names), input=[(-1, -1)] * len(names)
            )
        for port, name in zip(converted.inputs, names, strict=True):
            port.get_tensor().set_names({name})
    except Exception as exc:
        raise SettingsError(f"cannot convert the model to OpenVINO ({exc}): use backend torch") from None
    out.mkdir(parents=True, exist_ok=True)
    ov.save_model(converted, out / MODEL_FILE, compress_to_fp16=False)  # float32 weights, as given
    (out / "export.json").write_text(json.dumps({"inputs": names, "openvino": ov.__version__}))
    write_digest(out / MODEL_FILE)


def quantize_model(st_model: Any, folder: Path, calibration: Sequence[str]) -> Path:
    """The int8 copy of the converted model in ``folder``, quantized unless a copy whose files match their
    digests is there (written to temporary files renamed into place, digests last; into a temporary
    folder when ``folder`` cannot be written)."""
    target = folder / INT8_FILE
    if _verified(target):
        return target
    source = export_model(st_model, folder)
    try:
        import nncf
    except ImportError:
        raise SettingsError("precision int8 needs nncf: pip install 'wikihowqa[int8]'") from None
    import openvino as ov

    texts = list(calibration)[: CALIBRATION_BATCHES * 8]
    if not texts:
        raise SettingsError("precision int8 needs calibration texts")
    names = list(st_model.tokenizer.model_input_names)
    batches = []
    for start in range(0, len(texts), 8):
        encoded = st_model.tokenizer(
            texts[start : start + 8], padding=True, truncation=True, max_length=st_model.max_seq_length
        )
        batches.append({n: np.asarray(encoded[n], dtype=np.int64) for n in names})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        quantized = nncf.quantize(
            ov.Core().read_model(source),
            nncf.Dataset(batches),
            model_type=nncf.ModelType.TRANSFORMER,
            subset_size=len(texts),
        )
    target = source.parent / INT8_FILE  # beside the model it came from (a temporary folder if need be)
    try:
        _save_in_place(ov, quantized, target)
    except OSError as exc:
        if not is_environment_error(exc):
            raise
        target = _scratch(target.parent, exc) / INT8_FILE
        _save_in_place(ov, quantized, target)
    return target


def _save_in_place(ov: Any, model: Any, target: Path) -> None:
    partial = target.with_name(f".{os.getpid()}.{target.name}")
    try:
        partial.with_suffix(".bin").touch()  # an unwritable folder: an OSError naming it, not OpenVINO's
        ov.save_model(model, partial, compress_to_fp16=False)
        digest_path(target).unlink(missing_ok=True)  # no digest while the files change
        partial.replace(target)
        partial.with_suffix(".bin").replace(target.with_suffix(".bin"))
        write_digest(target)
    finally:
        partial.unlink(missing_ok=True)
        partial.with_suffix(".bin").unlink(missing_ok=True)


#: Rows × width² of a batch at most: each layer's attention scores are rows × heads × width² floats, so 64
#: passages of 256 tokens held ~200 MB per tensor (evaluate's peak grew ~0.5 GB in its first batch); 16 such
#: rows are as fast or faster (all-MiniLM-L6-v2 on 2 cores: 164 s against 179 s for 1,954 passages, peak RSS
#: 915 against 1,230 MB), and short texts still go ``batch_size`` at a time.
ATTENTION_BUDGET = 16 * 256 * 256


def attention_batches(widths: Sequence[int], batch_size: int) -> list[tuple[int, int]]:
    """``(start, stop)`` of each batch over texts sorted longest first (``widths``: their token counts): at
    most ``batch_size`` rows, and no more than :data:`ATTENTION_BUDGET` allows at the batch's width (its
    first)."""
    batches, start = [], 0
    while start < len(widths):
        rows = max(1, min(batch_size, ATTENTION_BUDGET // max(widths[start], 1) ** 2))
        batches.append((start, min(start + rows, len(widths))))
        start += rows
    return batches


class OpenVINOEncoder:
    """``encode`` like ``SentenceTransformer.encode`` (texts → float32 vectors), with OpenVINO running the
    transformer. ``st_model``: the loaded sentence-transformers model (tokenizer, pooling settings, and the
    weights to convert on first use)."""

    def __init__(
        self,
        st_model: Any,
        source: str,
        precision: str = "auto",
        root: Path | None = None,
        name: str | None = None,
        calibration: Sequence[str] = (),
    ) -> None:
        import openvino as ov
        import torch

        self.pooling, self.normalize = _check_layout(st_model)
        self.tokenizer, self.max_length = st_model.tokenizer, st_model.max_seq_length
        self.names = list(self.tokenizer.model_input_names)
        self.pad_id = self.tokenizer.pad_token_id or 0
        self.precision = cpu_precision(precision)
        folder = export_folder(source, root, name)
        if self.precision == "int8":
            self.path = quantize_model(st_model, folder, calibration)
        else:
            self.path = export_model(st_model, folder)
        config = {
            "PERFORMANCE_HINT": "LATENCY",
            "INFERENCE_NUM_THREADS": torch.get_num_threads(),  # a Ray worker's one CPU, or all of them
            # int8: what is left unquantized runs in float32, on every CPU alike
            "INFERENCE_PRECISION_HINT": "f32" if self.precision == "int8" else self.precision,
        }
        core = ov.Core()
        self._request = core.compile_model(core.read_model(self.path), "CPU", config).create_infer_request()

    def _batch(self, encoded: dict[str, list[list[int]]], rows: np.ndarray) -> dict[str, np.ndarray]:
        width = max(len(encoded["input_ids"][i]) for i in rows)
        arrays = {}
        for name in self.names:
            fill = self.pad_id if name == "input_ids" else 0
            array = np.full((len(rows), width), fill, dtype=np.int64)
            for r, i in enumerate(rows):
                values = encoded[name][i]
                array[r, : len(values)] = values
            arrays[name] = array
        return arrays

    def encode(
        self,
        sentences: Sequence[str],
        batch_size: int = 32,
        normalize_embeddings: bool = False,
        convert_to_numpy: bool = True,
        show_progress_bar: bool = False,
        **_: Any,
    ) -> np.ndarray:
        texts = list(sentences)
        dim = self._request.get_compiled_model().outputs[0].get_partial_shape()[2].get_length()
        out = np.zeros((len(texts), dim), dtype=np.float32)
        if not texts:
            return out
        encoded = self.tokenizer(texts, truncation=True, max_length=self.max_length, padding=False)
        encoded = {name: encoded[name] for name in self.names}
        order = np.argsort([-len(ids) for ids in encoded["input_ids"]], kind="stable")
        batches = attention_batches([len(encoded["input_ids"][i]) for i in order], batch_size)
        if show_progress_bar:
            from tqdm.auto import tqdm

            batches = tqdm(batches, desc="Batches")
        for start, stop in batches:
            rows = order[start:stop]
            inputs = self._batch(encoded, rows)
            hidden = self._request.infer(inputs)[0]
            if self.pooling == "cls":
                vectors = hidden[:, 0]
            else:
                mask = inputs["attention_mask"][..., None].astype(np.float32)
                vectors = (hidden * mask).sum(axis=1) / np.maximum(mask.sum(axis=1), 1e-9)
            out[rows] = vectors
        if self.normalize or normalize_embeddings:
            out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
        return out
