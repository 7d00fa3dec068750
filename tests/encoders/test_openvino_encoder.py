"""The OpenVINO passage encoder: torch float32's rankings, converted once, its vectors kept apart."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from tests import tiny_fs
from wikihowqa.core.errors import SettingsError
from wikihowqa.encoders import embed
from wikihowqa.encoders.openvino_encoder import (
    ATTENTION_BUDGET,
    MODEL_FILE,
    OpenVINOEncoder,
    attention_batches,
    cpu_precision,
    damage,
    digest_path,
    export_folder,
    write_digest,
)
from wikihowqa.retrieve.cache import EmbeddingCache, text_key
from wikihowqa.retrieve.dense import DenseRetriever, EncoderSpec

QUESTIONS = [
    "How to dry figs in the oven",
    "How to keep a dog's coat healthy",
    "How to cook burgers on a grill",
]
PASSAGES = [
    "To dry figs in an oven, cut each fig in half and leave them at the lowest heat for eight hours.",
    "Brush your dog's coat twice a week to remove loose hair and spread the natural oils.",
    "Preheat the grill, oil the grates, and cook the burgers for four minutes on each side.",
    "Check the tyre pressure of your car once a month with a gauge.",
    "File your tax return before the deadline and keep receipts for every deduction you claim.",
    "Dried figs keep for months in a sealed jar in a cool, dark cupboard.",
    "Bathe a dog only when it is dirty: too many baths dry out its skin and coat.",
    "Let the burgers rest for a minute before serving so the juices settle.",
    "Water tomato plants deeply at the base in the morning.",
    "Replace the furnace filter every three months to keep the air clean. " * 30,  # cut at max_seq_length
]


@pytest.fixture(scope="module")
def torch_model():
    return embed.load_model(embed.DEFAULT_MODEL, "cpu", backend="torch"), embed.default_model_path()


@pytest.fixture(scope="module")
def exported(tmp_path_factory, torch_model):
    """The packaged MiniLM converted once into a fresh cache folder (the torch model it came from too)."""
    root = tmp_path_factory.mktemp("openvino")
    st_model, source = torch_model
    return root, st_model, source, OpenVINOEncoder(st_model, source, "auto", root)


def _top(questions: np.ndarray, passages: np.ndarray, k: int) -> list[set[int]]:
    return [set(np.argsort(-row, kind="stable")[:k].tolist()) for row in questions @ passages.T]


@pytest.mark.slow
@pytest.mark.parametrize("precision", ["auto", "f32"])
def test_openvino_ranks_passages_as_torch_float32_does(exported, precision):
    root, st_model, source, _ = exported
    fast = OpenVINOEncoder(st_model, source, precision, root)
    exact = dict(batch_size=4, normalize_embeddings=True, convert_to_numpy=True)
    want_p, want_q = st_model.encode(PASSAGES, **exact), st_model.encode(QUESTIONS, **exact)
    got_p, got_q = fast.encode(PASSAGES, batch_size=4), fast.encode(QUESTIONS, batch_size=4)
    assert got_p.dtype == np.float32 and got_p.shape == want_p.shape
    cosines = np.sum(got_p * want_p, axis=1)
    assert cosines.min() > (0.99999 if fast.precision == "f32" else 0.999)
    for k in (1, 3):
        assert _top(got_q, got_p, k) == _top(want_q, want_p, k)
    assert _top(got_q, got_p, 1) == [{0}, {1}, {2}]  # and the rankings are right, not merely alike


def test_long_texts_go_fewer_at_a_time_so_a_batchs_attention_stays_within_the_budget():
    widths = [256] * 40 + [128] * 100 + [12] * 300  # sorted longest first, as encode sorts them
    batches = attention_batches(widths, 64)
    assert [b for b in batches if b[0] < 40][:3] == [(0, 16), (16, 32), (32, 48)]  # 16 rows of 256 tokens
    shorter = [stop - start for start, stop in batches if widths[start] <= 128]
    assert shorter[:-1] == [64] * (len(shorter) - 1)  # texts of 128 tokens or fewer still go 64 at a time
    covered = [i for start, stop in batches for i in range(start, stop)]
    assert covered == list(range(len(widths)))  # every text once, in order
    assert all((stop - start) * widths[start] ** 2 <= ATTENTION_BUDGET for start, stop in batches)
    assert attention_batches([4096], 64) == [(0, 1)]  # one text is never refused


@pytest.mark.slow
def test_budgeted_batches_embed_as_one_text_at_a_time_does(exported):
    _, _, _, encoder = exported
    texts = [PASSAGES[-1]] * 20 + PASSAGES[:5]  # 20 texts at the longest width: two batches, not one
    assert len(attention_batches([256] * 20 + [30] * 5, 64)) == 2
    alone = np.stack([encoder.encode([t], normalize_embeddings=True)[0] for t in texts])
    together = encoder.encode(texts, batch_size=64, normalize_embeddings=True)
    assert np.allclose(together, alone, atol=1e-5)


@pytest.mark.slow
def test_the_converted_model_is_reused_not_converted_again(exported, monkeypatch):
    import openvino

    root, st_model, source, first = exported
    path = export_folder(source, root) / MODEL_FILE
    assert first.path == path and path.is_file()
    written = path.stat().st_mtime_ns

    def no_second_conversion(*args, **kwargs):
        raise AssertionError("the model was converted again")

    monkeypatch.setattr(openvino, "convert_model", no_second_conversion)
    again = OpenVINOEncoder(st_model, source, "auto", root)
    assert again.path == path and path.stat().st_mtime_ns == written
    assert [p.name for p in root.iterdir()] == [path.parent.name]  # one export, no partial folder left
    np.testing.assert_array_equal(again.encode(PASSAGES[:3]), first.encode(PASSAGES[:3]))


@pytest.mark.slow
def test_int8_is_quantized_once_and_still_finds_the_right_passages(exported, monkeypatch):
    pytest.importorskip("nncf")
    from wikihowqa.encoders.openvino_encoder import INT8_FILE

    root, st_model, source, fp32 = exported
    calibration = embed.calibration_texts()[:16]
    int8 = OpenVINOEncoder(st_model, source, "int8", root, calibration=calibration)
    assert int8.path == fp32.path.parent / INT8_FILE and int8.precision == "int8"
    got_p, got_q = int8.encode(PASSAGES), int8.encode(QUESTIONS)
    want_p = st_model.encode(PASSAGES, normalize_embeddings=True, convert_to_numpy=True)
    assert np.sum(got_p * want_p, axis=1).min() > 0.98
    assert _top(got_q, got_p, 1) == [{0}, {1}, {2}]
    import nncf

    monkeypatch.setattr(nncf, "quantize", lambda *a, **k: pytest.fail("quantized again"))
    assert OpenVINOEncoder(st_model, source, "int8", root, calibration=calibration).path == int8.path


def test_cache_keys_tell_backends_and_precisions_apart():
    torch_key = EncoderSpec(device="cpu", backend="torch").key
    bf16_key = EncoderSpec(device="cpu", backend="openvino", precision="bf16").key
    f32_key = EncoderSpec(device="cpu", backend="openvino", precision="f32").key
    assert len({torch_key, bf16_key, f32_key}) == 3
    assert torch_key == f"st:{embed.DEFAULT_MODEL}:|"  # the key caches had before: their vectors still serve
    assert bf16_key.endswith("@openvino-bf16") and f32_key.endswith("@openvino-f32")
    # auto on the CPU is openvino in this CPU's precision, decided before any worker embeds
    auto = EncoderSpec(device="cpu").resolved()
    assert (auto.backend, auto.precision) == ("openvino", cpu_precision(embed.PASSAGE_PRECISION))
    assert (
        auto.key == EncoderSpec(device="cpu").key == f"st:{embed.DEFAULT_MODEL}:|@openvino-{auto.precision}"
    )


class _Fixed:
    """An encoder that returns one constant vector: whose vectors a retriever read is plain to see."""

    def __init__(self, key: str, value: float) -> None:
        self.key, self.value, self.calls = key, value, 0

    def encode_passages(self, texts):
        self.calls += 1
        return np.full((len(texts), 4), self.value, dtype=np.float32)

    encode_questions = encode_passages


def test_one_cache_file_never_serves_one_backend_s_vectors_to_another(tmp_path):
    cache = EmbeddingCache(tmp_path / "embeddings.sqlite")
    torch_key = EncoderSpec(device="cpu", backend="torch").key
    fast_key = EncoderSpec(device="cpu", backend="openvino", precision="bf16").key
    exact, fast = _Fixed(torch_key, 1.0), _Fixed(fast_key, 2.0)
    assert DenseRetriever(exact, cache).passage_vectors(PASSAGES[:3])[0, 0] == 1.0
    assert DenseRetriever(fast, cache).passage_vectors(PASSAGES[:3])[0, 0] == 2.0
    assert fast.calls == 1  # embedded by its own backend, not read from torch's rows
    assert cache.count(torch_key) == cache.count(fast_key) == 3
    assert cache.get(torch_key, [text_key(PASSAGES[0])])[text_key(PASSAGES[0])][0] == 1.0
    again = _Fixed(fast_key, 3.0)
    assert DenseRetriever(again, cache).passage_vectors(PASSAGES[:3])[0, 0] == 2.0 and again.calls == 0


def test_an_unknown_backend_or_precision_is_a_one_line_settings_error():
    with pytest.raises(SettingsError, match="encoder backend 'onnx': expected auto, openvino or torch"):
        EncoderSpec(device="cpu", backend="onnx").key  # noqa: B018
    with pytest.raises(SettingsError, match="precision 'int4': expected auto, bf16, f32 or int8"):
        EncoderSpec(device="cpu", backend="openvino", precision="int4").key  # noqa: B018


def test_a_model_openvino_cannot_run_is_refused_with_the_way_out(torch_model, tmp_path):
    st_model, source = torch_model

    class NoPooling:
        tokenizer = st_model.tokenizer

        def __iter__(self):
            return iter([st_model[0], st_model[2]])  # Transformer → Normalize: no pooling

    with pytest.raises(SettingsError, match="use backend torch"):
        OpenVINOEncoder(NoPooling(), source, root=tmp_path)
    assert not any(tmp_path.iterdir())  # refused before anything was converted


def _truncate(path: Path, share: float) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * share)])


def _flip(path: Path) -> None:
    """The same size, one exponent bit of every 1,024th weight flipped (each ×4 or ÷4): a model that loads
    and gives slightly wrong vectors, which no size check would see."""
    data = bytearray(path.read_bytes())
    data[3::4096] = bytes(b ^ 0x01 for b in data[3::4096])  # the high byte of a little-endian float32
    path.write_bytes(bytes(data))


DAMAGES = {
    "truncated model.bin": lambda folder: _truncate(folder / "model.bin", 0.5),
    "cut model.xml": lambda folder: _truncate(folder / MODEL_FILE, 2 / 3),
    "missing model.bin": lambda folder: (folder / "model.bin").unlink(),
    "flipped bytes in model.bin": lambda folder: _flip(folder / "model.bin"),
}


@pytest.mark.slow
@pytest.mark.parametrize("how", DAMAGES)
def test_a_damaged_cached_model_is_converted_again_saying_so_in_one_line(exported, tmp_path, capsys, how):
    root, st_model, source, first = exported
    cache_root = tmp_path / "cache"
    shutil.copytree(root, cache_root)
    folder = export_folder(source, cache_root)
    assert damage(folder / MODEL_FILE) is None and digest_path(folder / MODEL_FILE).is_file()
    DAMAGES[how](folder)
    assert damage(folder / MODEL_FILE) is not None  # the digest sees it, even at the same size
    capsys.readouterr()
    again = OpenVINOEncoder(st_model, source, "auto", cache_root)
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"warning: the converted model {folder / MODEL_FILE} is damaged: ")
    assert line.endswith("; converting it again")
    # the same vectors as the intact model gave, from a good copy now in the cache (nothing left beside it)
    np.testing.assert_array_equal(again.encode(PASSAGES[:3]), first.encode(PASSAGES[:3]))
    assert again.path == folder / MODEL_FILE and damage(again.path) is None
    assert [p.name for p in cache_root.iterdir()] == [folder.name]


def test_a_good_copy_put_in_place_meanwhile_is_kept_and_a_damaged_one_replaced(tmp_path):
    """Two processes converting at once: the second keeps the first's good copy (it may be being read);
    a damaged copy is moved aside and removed."""
    from wikihowqa.encoders.openvino_encoder import _put_in_place

    def made(folder: Path, text: str) -> Path:
        folder.mkdir()
        (folder / MODEL_FILE).write_text(text)
        (folder / "model.bin").write_bytes(text.encode() * 100)
        write_digest(folder / MODEL_FILE)
        return folder

    cache_root = tmp_path / "cache"
    cache_root.mkdir()
    theirs = made(cache_root / "m", "theirs")
    _put_in_place(made(cache_root / ".m.1.partial", "mine"), theirs)
    assert (theirs / MODEL_FILE).read_text() == "theirs" and damage(theirs / MODEL_FILE) is None
    shutil.rmtree(cache_root / ".m.1.partial")
    (theirs / "model.bin").write_bytes(b"theirs" * 99)  # cut by one write
    assert damage(theirs / MODEL_FILE) == "model.bin does not match its digest (cut, truncated or altered)"
    _put_in_place(made(cache_root / ".m.2.partial", "mine"), theirs)
    assert (theirs / MODEL_FILE).read_text() == "mine" and damage(theirs / MODEL_FILE) is None
    assert [p.name for p in cache_root.iterdir()] == ["m"]  # the damaged copy is gone, nothing beside it


_ENCODE_IN_NAMESPACE = """
import sys
from pathlib import Path
import numpy as np
from wikihowqa.encoders import embed
from wikihowqa.encoders.openvino_encoder import OpenVINOEncoder
model = embed.load_model(embed.DEFAULT_MODEL, "cpu", backend="torch")
encoder = OpenVINOEncoder(model, embed.default_model_path(), "auto", Path(sys.argv[2]))
np.save(sys.argv[1], encoder.encode({texts!r}))
print("path=" + str(encoder.path))
"""


@pytest.mark.slow
@pytest.mark.parametrize("state", ["converted", "damaged", "empty"])
def test_a_read_only_model_cache_is_named_as_such_and_still_serves(exported, tmp_path, state):
    """A read-only cache folder (a real read-only mount, which even root cannot write): a good model there
    is read; otherwise one line names the folder and the model is converted for this run elsewhere."""
    root, _, source, first = exported
    folder = export_folder(source, root)
    copy = f'cp -r {folder} "$FS"/\n' if state != "empty" else ""
    if state == "damaged":
        copy += f'truncate -s 1000 "$FS"/{folder.name}/model.bin\n'
    program = tmp_path / "encode.py"
    program.write_text(_ENCODE_IN_NAMESPACE.format(texts=PASSAGES[:3]))
    vectors = tmp_path / "vectors.npy"
    script = f'{copy}readonly\n"$PY" {program} {vectors} "$FS" && echo rc=0 || echo rc=$?'
    result = tiny_fs.run(tmp_path / "mnt", script, size="200m", timeout=600)
    assert "rc=0" in result.stdout, result.stderr
    assert "Traceback" not in result.stderr and "cannot convert" not in result.stderr
    notes = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    path = Path(result.stdout.split("path=")[1].split()[0])
    mount = tmp_path / "mnt"
    if state == "converted":
        assert notes == [] and path == mount / folder.name / MODEL_FILE
    else:
        read_only = f"the model cache cannot be written ({mount}: Read-only file system (EROFS))"
        assert notes[-1].startswith(f"warning: {read_only}: the model is converted into a temporary folder")
        assert len(notes) == (2 if state == "damaged" else 1) and not path.is_relative_to(mount)
        assert not path.exists()  # the temporary folder went with the run
    np.testing.assert_array_equal(np.load(vectors), first.encode(PASSAGES[:3]))
