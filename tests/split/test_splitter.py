"""The split: clusters never cross splits, reruns are identical, planted paraphrases all go to train."""

from __future__ import annotations

import json

import numpy as np
import pytest

from wikihowqa.core.errors import SettingsError
from wikihowqa.core.records import NOISE_CLUSTER, Document, Example
from wikihowqa.dataset.folder import DatasetFolder, write_dataset_folder
from wikihowqa.split.splitter import SplitSettings, parse_size, split_dataset, split_examples

GROUPS = [
    ["How to Seal Concrete Floors", "How to Seal a Concrete Floor", "How Do You Seal Concrete Floors"],
    ["How to Dry Figs", "How to Dry Fresh Figs", "How to Dehydrate Figs"],
    ["How to Train a Puppy to Sit", "How to Teach Your Puppy to Sit"],
    ["How to Change a Car Tire", "How to Change a Flat Tire on a Car"],
    ["How to Write a Cover Letter", "How to Write a Good Cover Letter"],
    ["How to Meditate for Beginners", "How to Start Meditating as a Beginner"],
]
LONERS = [
    "How to Tie a Bow Tie",
    "How to Play Chess",
    "How to Knit a Scarf",
    "How to Bake Sourdough Bread",
    "How to Invest in Stocks",
    "How to Apologize to a Friend",
    "How to Lower Blood Pressure",
    "How to Pack for a Long Flight",
    "How to Make Friends in High School",
    "How to Celebrate Diwali",
    "How to Groom a Horse",
    "How to Speed Up a Slow Laptop",
    "How to Grow Tomatoes in Pots",
    "How to Paint a Room",
    "How to Memorize a Speech",
    "How to Calm a Crying Baby",
    "How to Do a Push Up",
    "How to Fold a Paper Crane",
    "How to Treat a Sunburn",
    "How to Play the Ukulele",
    "How to Unclog a Kitchen Sink",
    "How to Jump Start a Car Battery",
    "How to Pray the Rosary",
    "How to Decorate a Christmas Tree",
]


def planted_examples() -> tuple[list[Example], dict[int, int]]:
    """Paraphrase groups interleaved with loners; returns examples and article id -> group."""
    rows: list[tuple[str, int | None]] = [(q, g) for g, group in enumerate(GROUPS) for q in group]
    rows += [(q, None) for q in LONERS]
    order = np.random.default_rng(7).permutation(len(rows))
    examples, groups = [], {}
    for k, i in enumerate(order.tolist()):
        question, group = rows[i]
        examples.append(Example(1000 + k, question, f"Answer {k}.", (f"http://web.archive.org/web/1/{k}",)))
        if group is not None:
            groups[1000 + k] = group
    return examples, groups


def fake_embeddings(examples: list[Example], groups: dict[int, int], dim: int = 32) -> np.ndarray:
    """A fake embedder: group members are tight around a group direction, loners are random."""
    rng = np.random.default_rng(3)
    centres = rng.normal(size=(len(GROUPS), dim))
    rows = []
    for e in examples:
        g = groups.get(e.article_id)
        v = centres[g] + 0.05 * rng.normal(size=dim) if g is not None else rng.normal(size=dim)
        rows.append(v / np.linalg.norm(v))
    return np.array(rows, dtype=np.float32)


def check_split(result, groups):
    by_cluster: dict[int, set[str]] = {}
    for e in result.examples:
        assert e.split in {"train", "validation", "test"} and e.cluster is not None
        if e.cluster != NOISE_CLUSTER:
            assert e.split == "train"  # every clustered question is in train
            by_cluster.setdefault(e.cluster, set()).add(e.split)
    assert all(len(splits) == 1 for splits in by_cluster.values())  # no cluster crosses splits
    for e in result.examples:
        if e.article_id in groups:
            assert e.split == "train", e.question  # every planted paraphrase is in train


def test_fake_embeddings_clusters_stay_in_train_and_targets_are_met():
    examples, groups = planted_examples()
    settings = SplitSettings(validation_size=2, test_size=0.05)  # a count and a fraction (2 of 38)
    result = split_examples(examples, fake_embeddings(examples, groups), settings)
    check_split(result, groups)
    assert len(examples) - result.clustered >= 4 + 2  # enough unclustered questions for the targets
    assert result.counts == {"train": len(examples) - 2 - 2, "validation": 2, "test": 2}
    assert result.clustered >= sum(len(g) for g in GROUPS)
    again = split_examples(examples, fake_embeddings(examples, groups), settings)
    assert again.examples == result.examples  # same seed, same split
    other = [
        split_examples(
            examples,
            fake_embeddings(examples, groups),
            SplitSettings(validation_size=2, test_size=0.05, seed=seed),
        )
        for seed in (1, 2, 3)
    ]
    assert any([e.split for e in o.examples] != [e.split for e in result.examples] for o in other)


def test_too_few_unclustered_questions_fill_validation_and_test_proportionally():
    examples, groups = planted_examples()
    result = split_examples(
        examples, fake_embeddings(examples, groups), SplitSettings(validation_size=0.3, test_size=0.6)
    )
    free = len(examples) - result.clustered
    assert result.counts["validation"] + result.counts["test"] == free
    assert result.counts["validation"] == round(0.3 * len(examples)) * free // (
        round(0.3 * len(examples)) + round(0.6 * len(examples))
    )
    assert result.warnings and "unclustered" in result.warnings[0]


def test_guard_keeps_an_unclustered_near_twin_in_train(monkeypatch):
    examples, groups = planted_examples()
    emb = fake_embeddings(examples, groups)
    loners = [i for i, e in enumerate(examples) if e.article_id not in groups]
    a, b = loners[0], loners[1]
    emb[b] = emb[a] * 0.98 + 0.02 * emb[b]  # b: a near copy of a
    emb[b] /= np.linalg.norm(emb[b])
    # Suppose clustering left every loner unclustered, the near twins included.
    labels = np.array([groups.get(e.article_id, NOISE_CLUSTER) for e in examples])
    import wikihowqa.split.splitter

    monkeypatch.setattr(wikihowqa.split.splitter, "cluster", lambda embeddings, settings: labels)
    everything = {"validation_size": 0.3, "test_size": 0.6}  # deal out every unclustered question
    plain = split_examples(examples, emb, SplitSettings(**everything))
    assert {plain.examples[a].split, plain.examples[b].split} != {"train"}  # a leak without the guard
    guarded = split_examples(examples, emb, SplitSettings(guard=0.95, **everything))
    assert guarded.examples[a].split == "train" and guarded.examples[b].split == "train"
    assert guarded.guarded == 2
    assert all(e.split != "train" for i, e in enumerate(guarded.examples) if i in loners[2:])


def test_settings_and_sizes_are_checked():
    assert parse_size("0.1", "--x") == 0.1 and parse_size("120", "--x") == 120
    for bad in ("1.5", "-3", "ten"):
        with pytest.raises(SettingsError):
            parse_size(bad, "--validation-size")
    with pytest.raises(SettingsError):
        SplitSettings(min_cluster_size=1)
    with pytest.raises(SettingsError):
        SplitSettings(selection="fancy")


@pytest.fixture(scope="module")
def planted_folder(tmp_path_factory):
    examples, groups = planted_examples()
    docs = [
        Document(e.article_id, "https://x.org", e.related_document_urls_wayback_snapshots[0], "Text.")
        for e in examples
    ]
    path = tmp_path_factory.mktemp("planted") / "ds"
    write_dataset_folder(path, examples, docs, {"source": "test"})
    return DatasetFolder(path), groups


def test_real_minilm_puts_every_planted_paraphrase_group_in_train_and_reruns_identically(
    planted_folder, monkeypatch
):
    folder, groups = planted_folder
    settings = SplitSettings(validation_size=0.1, test_size=0.2, seed=5)
    result = split_dataset(folder, settings)
    check_split(result, groups)
    assert result.counts["validation"] + result.counts["test"] > 0
    first = folder.qa_path.read_bytes()
    manifest = json.loads((folder.path / "manifest.json").read_text())
    assert manifest["split"]["settings"]["seed"] == 5 and manifest["source"] == "test"
    # A rerun uses the cached embeddings (the model is not loaded again) and writes the same bytes.
    import wikihowqa.encoders.embed

    monkeypatch.setattr(
        wikihowqa.encoders.embed, "load_model", lambda *a, **k: pytest.fail("model loaded again")
    )
    split_dataset(folder, settings)
    assert folder.qa_path.read_bytes() == first
    assert list((folder.path / "cache").glob("embeddings-all-MiniLM-L6-v2-*.npz"))


def test_split_dataset_with_a_fake_embedder(tmp_path, monkeypatch):
    examples, groups = planted_examples()
    path = tmp_path / "ds"
    write_dataset_folder(path, examples, [], {})
    vectors = dict(zip((e.question for e in examples), fake_embeddings(examples, groups), strict=True))
    import wikihowqa.encoders.embed

    monkeypatch.setattr(
        wikihowqa.encoders.embed, "embed", lambda texts, model, **kw: np.stack([vectors[t] for t in texts])
    )
    result = split_dataset(DatasetFolder(path), SplitSettings())
    check_split(result, groups)
    saved = DatasetFolder(path).examples()
    assert [(e.split, e.cluster) for e in saved] == [(e.split, e.cluster) for e in result.examples]


def test_past_the_brute_force_memory_bound_the_trees_cluster_to_the_same_labels(monkeypatch):
    """HDBSCAN's brute force holds two n × n float64 matrices (2.3 GB at the paper's 11,738 questions):
    past ``BRUTE_FORCE_BYTES`` the tree algorithm runs instead, in linear memory, with the same labels."""
    from wikihowqa.split import splitter

    rng = np.random.default_rng(0)
    centres = rng.normal(size=(12, 16))
    points = np.vstack([centres[i % 12] + 0.05 * rng.normal(size=16) for i in range(300)])
    points /= np.linalg.norm(points, axis=1, keepdims=True)
    settings = SplitSettings()
    assert splitter.hdbscan_algorithm(300) == "brute" and splitter.hdbscan_algorithm(11_738) == "auto"
    brute = splitter.cluster(points, settings)
    monkeypatch.setattr(splitter, "BRUTE_FORCE_BYTES", 2 * 8 * 299 * 299)
    assert splitter.hdbscan_algorithm(300) == "auto"
    assert np.array_equal(splitter.cluster(points, settings), brute) and len(set(brute)) > 2
