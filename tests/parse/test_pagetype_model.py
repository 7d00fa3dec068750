"""The learned page-type forest: a stored, deterministic file read without scikit-learn, the rules where it
is missing, and the profiles that need a structure the page has."""

from __future__ import annotations

import json

import lxml.html

from wikihowqa.parse import pagetype_model
from wikihowqa.parse.pagetype import PAGE_TYPES, classify, signals
from wikihowqa.parse.pagetype_model import (
    FEATURES,
    MODEL_FILE,
    load_model,
    page_features,
    page_type_of,
    predict,
    probabilities,
)
from wikihowqa.parse.sizes import text_sizes

ARTICLE = (
    "<html><head><title>Descaling a kettle</title></head><body><nav><a href='/'>Home</a></nav><article>"
    "<h1>Descaling a kettle</h1><time>2024-01-02</time>"
    + "".join(
        f"<p>Hard water leaves a chalky crust in the kettle, and a citric acid rinse removes it in minutes "
        f"without harming the element or the seals, step {i}.</p>"
        for i in range(6)
    )
    + "</article></body></html>"
)


def _read(html: str, url: str = "https://blog.example/2024/descaling-a-kettle"):
    root = lxml.html.document_fromstring(html)
    sizes = text_sizes(root)
    return root, url, signals(root, url, sizes), sizes


def test_the_stored_forest_is_small_and_made_for_these_features():
    model = load_model()
    assert model is not None, f"{MODEL_FILE} missing or made for other features"
    assert MODEL_FILE.stat().st_size < 1_000_000
    assert tuple(model["features"]) == FEATURES and set(model["classes"]) <= set(PAGE_TYPES)


def test_a_page_gets_one_feature_per_name_and_the_same_type_every_time():
    root, url, found, sizes = _read(ARTICLE)
    features = page_features(root, url, found, sizes)
    assert len(features) == len(FEATURES)
    model = load_model()
    shares = probabilities(features, model)
    assert abs(sum(shares.values()) - 1.0) < 1e-3  # leaf shares are stored to 4 decimals
    assert predict(features, model) == predict(list(features), model) == max(shares, key=shares.get)
    assert predict(features, model) == "article"


def test_without_a_stored_forest_the_rules_decide(tmp_path, monkeypatch):
    stale = tmp_path / "model.json"
    stale.write_text(json.dumps({"features": ["something_else"], "classes": [], "trees": []}))
    assert load_model(stale) is None  # made for other features: not used
    monkeypatch.setattr(pagetype_model, "load_model", lambda: None)
    root, url, found, sizes = _read(ARTICLE)
    assert page_type_of(root, url, found, sizes) == (classify(found), classify(found))


def test_a_forum_called_page_without_a_thread_is_read_with_the_rules_profile(monkeypatch):
    # the forest says forum, but the page has no sibling posts: the forum profile (keep every comment-named
    # block) would keep what the article profile drops
    model = {
        "features": list(FEATURES),
        "classes": ["article", "forum"],
        "trees": [{"left": [-1], "right": [-1], "feature": [0], "threshold": [0.0], "value": [[0.1, 0.9]]}],
    }
    monkeypatch.setattr(pagetype_model, "load_model", lambda: model)
    root, url, found, sizes = _read(ARTICLE)
    kind, profile = page_type_of(root, url, found, sizes)
    assert kind == "forum" and profile == classify(found) == "article"


def test_a_page_declaring_a_forum_posting_is_a_forum():
    # schema.org's DiscussionForumPosting, in JSON-LD or microdata, whatever the page's other signals say
    declared = ARTICLE.replace(
        "</head>",
        '<script type="application/ld+json">{"@type": "DiscussionForumPosting", "headline": "Kettles"}'
        "</script></head>",
    )
    root, url, found, sizes = _read(declared)
    assert page_type_of(root, url, found, sizes) == ("forum", "forum")
    microdata = ARTICLE.replace(
        "<article>", "<article itemscope itemtype='https://schema.org/DiscussionForumPosting'>"
    )
    root, url, found, sizes = _read(microdata)
    assert page_type_of(root, url, found, sizes) == ("forum", "forum")
