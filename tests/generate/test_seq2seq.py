"""The fine-tuned generator: train → checkpoint → save → load → generate, for both architectures."""

from __future__ import annotations

import json

import pytest

from tests.generate.tiny_models import tiny_bart, tiny_llama
from wikihowqa.answer import answer_split
from wikihowqa.core.errors import SettingsError
from wikihowqa.core.records import Document, Example
from wikihowqa.dataset.folder import write_dataset_folder
from wikihowqa.dataset.readers import read_predictions
from wikihowqa.generate.seq2seq import GENERATOR_SETTINGS_FILE, GeneratorConfig, fine_tune

pytestmark = pytest.mark.usefixtures("one_torch_thread")

EXAMPLES = [
    (
        1,
        "how to dry figs",
        "cut the figs in half and dry them in a low oven",
        ["cut figs in half with a knife", "dry them in the oven at low heat", "figs grow on trees"],
    ),
    (
        2,
        "how to seal floors",
        "clean the floor then roll on an epoxy sealer",
        ["clean the floor first", "apply an epoxy sealer with a roller", "floors can be wood"],
    ),
]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    root = tmp_path_factory.mktemp("gen")
    examples = [
        Example(aid, q, a, (f"http://a/{aid}",), split="train", cluster=0) for aid, q, a, _ in EXAMPLES
    ]
    documents = [
        Document(aid, f"http://o/{aid}", f"http://a/{aid}", "\n".join(ps), passages=tuple(ps))
        for aid, _, _, ps in EXAMPLES
    ]
    folder = write_dataset_folder(root / "ds", examples, documents, {})
    texts = [t for _, q, a, ps in EXAMPLES for t in (q, a, *ps)] + ["answer :"]
    return folder, texts, root


CONFIG = {
    "max_input_tokens": 48,
    "answer_prefix": " answer : ",
    "train": {
        "max_steps": 80,
        "batch_size": 2,
        "grad_accum": 1,
        "learning_rate": 1e-2,
        "warmup": 0,
        "save_steps": 40,
        "logging_steps": 40,
        "evaluate": False,
        "seed": 0,
    },
    "generate": {"num_beams": 2, "max_new_tokens": 16, "no_repeat_ngram_size": 0, "batch_size": 2},
}


@pytest.mark.parametrize("build", [tiny_bart, tiny_llama], ids=["encoder-decoder", "decoder-only"])
def test_train_save_load_generate_and_resume(dataset, build):
    folder, texts, root = dataset
    name = build.__name__
    model_dir = build(root / name, texts)
    config = GeneratorConfig.from_settings(
        {**CONFIG, "model": str(model_dir), "output_dir": str(root / f"run-{name}")}
    )

    result = fine_tune(folder, config)
    assert result.global_step == 80 and result.n_train == 2 and result.resumed_from is None
    assert (root / f"run-{name}" / "checkpoint-80").is_dir()
    saved = json.loads((result.final_dir / GENERATOR_SETTINGS_FILE).read_text())
    assert saved["answer_prefix"] == " answer : " and saved["max_input_tokens"] == 48

    # load the saved model through the answer stage: the memorised answers come back word for word
    report = answer_split(
        folder,
        "seq2seq",
        split="train",
        settings={"generator": {"model": str(result.final_dir)}},
        out=root / f"{name}.jsonl",
    )
    predictions = read_predictions(report.out)
    assert {p.article_id: p.answer for p in predictions} == {aid: a for aid, _, a, _ in EXAMPLES}
    for p in predictions:
        assert p.system == "seq2seq" and p.settings["input_tokens"] <= 48 and p.passages
        assert [u.rank for u in p.passages] == list(range(1, len(p.passages) + 1))

    # a second run continues from the last checkpoint instead of starting over
    more = GeneratorConfig.from_settings(
        {
            **CONFIG,
            "model": str(model_dir),
            "output_dir": str(root / f"run-{name}"),
            "train": {**CONFIG["train"], "max_steps": 90},
        }
    )
    resumed = fine_tune(folder, more)
    assert resumed.resumed_from is not None and resumed.resumed_from.name == "checkpoint-80"
    assert resumed.global_step == 90


def test_the_input_fits_the_generator_s_own_token_limit(dataset):
    from wikihowqa.core.records import passages_of
    from wikihowqa.generate.seq2seq import Generator
    from wikihowqa.retrieve.factory import get_retriever
    from wikihowqa.retrieve.ranking import rank

    folder, texts, root = dataset
    model_dir = tiny_bart(root / "limit", texts)
    generator = Generator.load(
        GeneratorConfig.from_settings({"model": str(model_dir), "max_input_tokens": 16})
    )
    example = folder.examples()[0]
    ranking = rank(get_retriever("bm25"), example.question, passages_of(folder.documents_by_article()[1]))
    built = generator.build(example.question, ranking)
    ids = generator.tokenizer(built.text)["input_ids"]
    assert len(ids) == built.n_tokens <= 16
    assert 0 < len(built.kept) < len(ranking)


def test_unknown_settings_are_named():
    with pytest.raises(SettingsError, match=r"^settings: train\.epoch: unknown setting \(expected one of "):
        GeneratorConfig.from_settings({"train": {"epoch": 3}})
    with pytest.raises(SettingsError, match="architecture"):
        GeneratorConfig.from_settings({"architecture": "rnn"})


def test_the_train_command_resumes_and_reports(dataset, tmp_path):
    from typer.testing import CliRunner

    from wikihowqa.cli import app

    folder, texts, root = dataset
    model_dir = tiny_llama(root / "cli-llama", texts)
    config = tmp_path / "generator.yaml"
    config.write_text(
        f"generator:\n  model: {model_dir}\n  max_input_tokens: 48\n  answer_prefix: ' answer : '\n"
        "  train: {max_steps: 4, batch_size: 2, grad_accum: 1, save_steps: 2, logging_steps: 2,\n"
        "          evaluate: false}\n"
    )
    out = tmp_path / "run"
    runner = CliRunner()
    first = runner.invoke(app, ["train", str(folder.path), "--config", str(config), "--output-dir", str(out)])
    assert first.exit_code == 0, first.output
    assert (
        "trained 4 steps on 2 examples" in first.output
        and (out / "final" / GENERATOR_SETTINGS_FILE).is_file()
    )
    again = runner.invoke(
        app,
        ["train", str(folder.path), "--config", str(config), "--output-dir", str(out), "--max-steps", "6"],
    )
    assert again.exit_code == 0, again.output
    assert "trained 6 steps" in again.output and "resumed from checkpoint-4" in again.output


def test_answering_ranks_passages_with_the_retrieval_the_model_was_trained_with(
    dataset, tmp_path, monkeypatch
):
    """Non-default generator retrieval (dense, open mode) shapes the inputs of training and of answering."""
    from wikihowqa.encoders.embed import default_model_path
    from wikihowqa.generate import seq2seq
    from wikihowqa.retrieve.cache import EmbeddingCache, default_cache_path
    from wikihowqa.retrieve.dense import EncoderSpec

    source, texts, _ = dataset
    folder = write_dataset_folder(tmp_path / "ds", source.examples(), source.documents(), {})
    encoder = default_model_path()
    config = GeneratorConfig.from_settings(
        {
            **CONFIG,
            "model": str(tiny_llama(tmp_path / "llama", texts)),
            "output_dir": str(tmp_path / "run"),
            "max_input_tokens": 40,
            "retriever": {"name": "dense", "model": encoder},
            "retrieval_mode": "open",
            "train": {**CONFIG["train"], "max_steps": 2, "save_steps": 2},
            "generate": {**CONFIG["generate"], "max_new_tokens": 2},
        }
    )
    trained_on: list[str] = []
    real_train, real_generate = seq2seq.train, seq2seq.Generator.generate

    def spy_train(config, train_pairs, *args, **kwargs):
        train_pairs = list(train_pairs)
        trained_on.extend(text for text, _ in train_pairs)
        return real_train(config, train_pairs, *args, **kwargs)

    answered_from: list[str] = []

    def spy_generate(self, inputs, **overrides):
        answered_from.extend(inputs)
        return real_generate(self, inputs, **overrides)

    monkeypatch.setattr(seq2seq.training, "train", spy_train)  # where fine_tune looks it up
    monkeypatch.setattr(seq2seq.Generator, "generate", spy_generate)

    result = fine_tune(folder, config)
    cache = EmbeddingCache(default_cache_path(folder.path))
    key = EncoderSpec(model=encoder).resolved().key  # the default backend (OpenVINO on a CPU, torch on CUDA)
    embedded = cache.count(key)
    assert embedded == sum(len(d.passages) for d in folder.documents())  # training filled the dataset's cache

    report = answer_split(
        folder, "seq2seq", split="train", settings={"generator": {"model": str(result.final_dir)}}
    )

    predictions = read_predictions(report.out)
    assert answered_from == trained_on and len(trained_on) == len(EXAMPLES)
    for p in predictions:
        assert p.settings["retrieval"] == {"mode": "open", "retriever": "dense", "encoder": key}
    # open mode: one question's input draws on the other question's documents too
    assert any(u.archive_url != f"http://a/{p.article_id}" for p in predictions for u in p.passages)
    assert cache.count(key) == embedded  # answering read the vectors training cached
