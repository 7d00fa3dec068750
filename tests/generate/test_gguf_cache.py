"""A small GGUF chat model is converted once into the model cache and read from there: the same tokenizer
and weights (so the same greedy answers), and a kept copy that is unfinished or damaged is never read."""

from __future__ import annotations

from pathlib import Path

import pytest

from wikihowqa.generate import gguf_cache
from wikihowqa.generate.local_chat import LocalChat, smollm2_gguf
from wikihowqa.runtime.model_cache import FOLDER_DIGESTS, cache_root
from wikihowqa.schema.settings import LocalSettings

PROMPTS = [
    [{"role": "user", "content": "How do you dry figs in the oven?"}],
    [{"role": "user", "content": "How can I seal a concrete floor? Passages: Roll on an epoxy sealer."}],
]


@pytest.mark.slow
def test_the_converted_smollm2_tokenizes_and_answers_as_the_gguf_file_read_as_it_is():
    """In the user's model cache, as every other load: converted once per machine."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    settings = LocalSettings(max_new_tokens=16, batch_size=2)
    chat = LocalChat(settings)
    converted = Path(chat.model.name_or_path)
    assert converted.parent == cache_root("transformers") and gguf_cache.folder_damage(converted) is None
    answers = chat.complete_many(PROMPTS)

    folder, gguf = smollm2_gguf()
    chat.tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=gguf)
    chat.tokenizer.padding_side = "left"
    reference = AutoModelForCausalLM.from_pretrained(folder, gguf_file=gguf, dtype=torch.float32).eval()
    for name, tensor in reference.state_dict().items():
        assert torch.equal(tensor, chat.model.state_dict()[name]), name
    chat.model = reference
    assert chat.complete_many(PROMPTS) == answers and all(answers)


def fake_convert(calls):
    def convert(source, out):
        calls.append(source.name)
        (out / "model.safetensors").write_bytes(b"weights")
        gguf_cache.write_folder_digests(out)

    return convert


def test_a_kept_copy_is_read_without_converting_again(tmp_path, monkeypatch):
    monkeypatch.setenv("WIKIHOWQA_MODEL_CACHE", str(tmp_path))
    calls: list[str] = []
    monkeypatch.setattr(gguf_cache, "_convert", fake_convert(calls))
    first = gguf_cache.converted_folder(*smollm2_gguf())
    again = gguf_cache.converted_folder(*smollm2_gguf())
    assert first == again and first.parent == tmp_path and calls == ["SmolLM2-135M-Instruct.Q4_1.gguf"]


@pytest.mark.parametrize("harm", ["altered", "no digests"])
def test_a_damaged_or_unfinished_copy_is_converted_again_with_one_line(harm, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("WIKIHOWQA_MODEL_CACHE", str(tmp_path))
    calls: list[str] = []
    monkeypatch.setattr(gguf_cache, "_convert", fake_convert(calls))
    kept = gguf_cache.converted_folder(*smollm2_gguf())
    if harm == "altered":
        (kept / "model.safetensors").write_bytes(b"weightz")
    else:
        (kept / FOLDER_DIGESTS).unlink()
    assert gguf_cache.converted_folder(*smollm2_gguf()) == kept and len(calls) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"warning: the converted model {kept} is damaged") and line.endswith(
        "converting it again"
    )
    assert gguf_cache.folder_damage(kept) is None


def test_a_cache_that_cannot_be_written_reads_the_gguf_file_as_it_is(tmp_path, monkeypatch, capsys):
    (tmp_path / "file").write_text("not a folder")
    monkeypatch.setenv("WIKIHOWQA_MODEL_CACHE", str(tmp_path / "file"))
    monkeypatch.setattr(gguf_cache, "_convert", fake_convert([]))
    assert gguf_cache.converted_folder(*smollm2_gguf()) is None
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("warning: the model cache cannot be written") and "WIKIHOWQA_MODEL_CACHE" in line


def test_a_large_gguf_file_is_read_as_it_is(monkeypatch):
    monkeypatch.setattr(gguf_cache, "CONVERT_UP_TO_BYTES", 1000)
    monkeypatch.setattr(gguf_cache, "_convert", fake_convert(calls := []))
    assert gguf_cache.converted_folder(*smollm2_gguf()) is None and calls == []


def test_a_file_that_is_no_gguf_is_named_in_one_line(tmp_path, monkeypatch):
    from wikihowqa.core.errors import SettingsError

    monkeypatch.setenv("WIKIHOWQA_MODEL_CACHE", str(tmp_path / "cache"))
    (tmp_path / "bad.gguf").write_bytes(b"not a model" * 100)
    with pytest.raises(SettingsError, match=r"cannot load local LLM .*bad\.gguf.*not a GGUF file") as info:
        LocalChat(LocalSettings(model=str(tmp_path), gguf_file="bad.gguf"))
    assert "\n" not in str(info.value)
