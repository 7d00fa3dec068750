"""A small GGUF chat model converted once into a transformers folder (safetensors), kept in the model cache.

Why: transformers reads a GGUF file slowly. It parses the file's metadata three times (config, tokenizer,
model: every vocabulary string through numpy) and maps and dequantizes the weights in Python: SmolLM2-135M
took 47–50 s to load on the shared 2-core machine, in every process that loads it (the demo's answers,
each judge). The converted folder holds the same float32 weights and the same tokenizer, so greedy answers
are the same, and loads in a second or two. Larger files are read as they are: their float32 copy would
take 4–8× their size on disk (``CONVERT_UP_TO_BYTES``).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import shutil
import tempfile
from pathlib import Path

from wikihowqa.core.errors import describe_environment_error, is_environment_error
from wikihowqa.generate.seq2seq.inference import drop_gguf_quantization
from wikihowqa.runtime.model_cache import cache_root, folder_damage, note, write_folder_digests

#: The largest GGUF file converted (SmolLM2-135M's Q4_1 file is 92 MB).
CONVERT_UP_TO_BYTES = 1 << 30


def fingerprint(source: Path) -> str:
    """What the converted folder depends on: the GGUF file (path, size, time) and the transformers version
    that dequantized it."""
    import transformers

    stat = source.stat()
    parts = [str(source.resolve()), str(stat.st_size), str(stat.st_mtime_ns), transformers.__version__]
    return hashlib.sha1("\n".join(parts).encode()).hexdigest()[:12]


def converted_folder(folder: str, gguf: str) -> Path | None:
    """The transformers folder converted from ``folder/gguf`` (converted now unless a whole copy is kept);
    ``None`` when the file is read as it is: too large, or the cache cannot be written (said in one line)."""
    source = Path(folder) / gguf
    if source.stat().st_size > CONVERT_UP_TO_BYTES:
        return None
    root = cache_root("transformers")
    target = root / f"{source.stem}-{fingerprint(source)}"
    if target.is_dir():
        problem = folder_damage(target)
        if problem is None:
            return target
        note(f"the converted model {target} is damaged: {problem}; converting it again")
        shutil.rmtree(target, ignore_errors=True)
    try:
        root.mkdir(parents=True, exist_ok=True)
        partial = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=root))
    except OSError as exc:
        note(f"the model cache cannot be written ({describe_environment_error(exc, str(root))}): {gguf} is "
             "read as it is, which is slow; set $WIKIHOWQA_MODEL_CACHE to a writable folder")  # fmt: skip
        return None
    try:
        _convert(source, partial)
        try:
            partial.rename(target)  # whole or not at all; a concurrent conversion may have finished first
        except OSError:
            if folder_damage(target) is not None:
                raise
        return target
    except OSError as exc:
        if not is_environment_error(exc):
            raise
        note(f"the converted model could not be written ({describe_environment_error(exc, str(root))}): "
             f"{gguf} is read as it is")  # fmt: skip
        return None
    finally:
        shutil.rmtree(partial, ignore_errors=True)


def _convert(source: Path, out: Path) -> None:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    # transformers' GGUF loader prints a bare tqdm bar; the stage shows its own progress.
    with contextlib.redirect_stderr(io.StringIO()):
        tokenizer = AutoTokenizer.from_pretrained(str(source.parent), gguf_file=source.name)
        model = AutoModelForCausalLM.from_pretrained(
            str(source.parent), gguf_file=source.name, dtype=torch.float32
        )
    drop_gguf_quantization(model)  # dequantized floats: saved as such
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    write_folder_digests(out)
