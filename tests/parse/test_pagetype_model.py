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


#: A thread the rules do not count as one: posts of one shape whose authors and dates are in unnamed boxes.
THREAD = (
    "<html><head><title>Kettle scale</title></head><body><main><h1>Kettle scale</h1><div class='topic'>"
    + "".join(
        f"<div class='blockpost'><h2><span>2024-01-0{i + 1}</span></h2><div class='postleft'><strong>user{i}"
        f"</strong></div><div class='postright'><p>Reply {i}: a citric acid rinse removed the chalky crust "
        f"from my kettle in minutes, and the element and the seals are fine a year on.</p></div></div>"
        for i in range(6)
    )
    + "</div></main></body></html>"
)


def test_a_forum_called_article_holding_a_run_of_posts_is_read_as_a_thread(monkeypatch):
    # the rules see no dated posts and read an article; the body's text is a run of same-shaped posts
    monkeypatch.setattr(pagetype_model, "load_model", lambda: _forest(["article", "forum"], [0.1, 0.9]))
    root, url, found, sizes = _read(THREAD, "https://forum.example/t/kettle-scale/42")
    assert classify(found) == "article"
    assert page_type_of(root, url, found, sizes) == ("forum", "forum")


def test_a_forum_called_question_page_keeps_the_rules_profile(monkeypatch):
    # a declared QAPage: its question and answers read well with the rules' profile, side remarks dropped
    monkeypatch.setattr(pagetype_model, "load_model", lambda: _forest(["article", "forum"], [0.1, 0.9]))
    qa = THREAD.replace("<html>", "<html itemscope itemtype='https://schema.org/QAPage'>")
    root, url, found, sizes = _read(qa, "https://forum.example/t/kettle-scale/42")
    assert page_type_of(root, url, found, sizes) == ("forum", "article")


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


def _forest(classes: list[str], shares: list[float]) -> dict:
    """A one-leaf forest that gives every page the same ``shares`` of ``classes``."""
    leaf = {"left": [-1], "right": [-1], "feature": [0], "threshold": [0.0], "value": [shares]}
    return {"features": list(FEATURES), "classes": classes, "trees": [leaf]}


def test_a_page_the_forest_is_sure_is_a_collection_is_read_as_one_where_the_rules_say_article(monkeypatch):
    # a category grid whose prices the rules cannot count: a majority share outweighs the rules' article
    monkeypatch.setattr(pagetype_model, "load_model", lambda: _forest(["article", "collection"], [0.3, 0.7]))
    root, url, found, sizes = _read(ARTICLE)
    assert classify(found) == "article"
    assert page_type_of(root, url, found, sizes) == ("collection", "collection")


def test_a_page_the_forest_only_leans_to_collection_keeps_the_rules_profile(monkeypatch):
    # a plurality below the support: a page of mixed shapes, read with the rules' article profile
    forest = _forest(["article", "collection", "service"], [0.3, 0.4, 0.3])
    monkeypatch.setattr(pagetype_model, "load_model", lambda: forest)
    root, url, found, sizes = _read(ARTICLE)
    assert page_type_of(root, url, found, sizes) == ("collection", "article")
