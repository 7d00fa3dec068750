"""A synthetic dataset written for these tests: how-to answers across all 19 categories, with documents."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wikihowqa.core.records import Document, Example, Prediction
from wikihowqa.demo.paths import real_examples_path
from wikihowqa.humaneval.lexicon import WIKIHOW_CATEGORIES

SAMPLE_ANSWERS = [
    "Preheat the oven to 350°F and bake the bread for 1 hour. Use 2 cups of flour and a teaspoon of salt. "
    "Don't open the door before 30 minutes. Once it is golden, let it cool for 10-15 minutes on a wire rack.",
    "To keep your dog calm during fireworks, stay inside with it and close the curtains. Then, play "
    "soft music "
    "to mask the noise. Never punish your dog for being scared, since it will only increase its anxiety.",
    "To repot a plant, water it a day before so the roots slide out easily. Choose a pot that is 2 "
    "inches wider "
    "than the old one. Fill the bottom with fresh soil, set the plant in the center, "
    "and press the soil gently.",
    "Start by washing the car with cold water and a soft sponge. Work from the top down, rinsing "
    "every 5 minutes "
    "so the soap doesn't dry. After washing, dry it with a microfiber towel before you apply the wax.",
    "If you want to save money, write down everything you spend for three weeks. Then, cut the "
    "largest expense "
    "first. You should move 10% of every paycheck into a savings account before you pay other bills.",
    "To study for an exam, begin by reviewing your notes every evening. Take a short break every 45 minutes. "
    "The night before the test, sleep at least 8 hours instead of studying late.",
    "Stretch slowly for 5 minutes before you run. Increase your distance by 10 percent each week, and always "
    "drink water after a long run. If your knees hurt, rest for two days.",
    "To clean a cast iron pan, rinse it with hot water while it is still warm. Scrub it with coarse "
    "salt and a "
    "paper towel. Dry it completely on the stove, then rub a thin layer of oil into the surface.",
    "Pack your bag the night before a flight. Keep liquids in containers of 3.4 ounces or less, and "
    "arrive at "
    "the airport 2 hours early. You can print your boarding pass at home to save time.",
    "To write a cover letter, address the hiring manager by name. Open with the job you want and explain why "
    "you are a strong fit. Keep it short, with no more than three paragraphs, and proofread it twice.",
    "Brush your teeth twice a day for 2 minutes with a soft brush. Floss once a day, ideally before bed. "
    "Replace your toothbrush every 3 months, or sooner if the bristles look frayed.",
    "To knit a scarf, cast on 30 stitches with a thick yarn. Knit every row until the scarf is "
    "about 60 inches "
    "long. Finally, bind off loosely and weave in the loose ends with a large needle.",
]

FILLER = (
    "This page has a newsletter and some unrelated notes about the author. Readers often ask about "
    "shipping and other topics that have nothing to do with the steps."
)


def make_dataset(per_category: int = 6) -> tuple[list[Example], dict[int, list[Document]]]:
    examples, documents = [], {}
    k = 0
    for c, category in enumerate(WIKIHOW_CATEGORIES):
        for i in range(per_category):
            answer = SAMPLE_ANSWERS[k % len(SAMPLE_ANSWERS)]
            article_id = 1000 + 100 * c + i
            examples.append(
                Example(
                    article_id,
                    f"How to Do Task {c}-{i}",
                    answer,
                    (f"http://x/{article_id}",),
                    "test",
                    -1,
                    category,
                )
            )
            sentences = [s.strip() + "." for s in answer.split(". ") if s.strip()]
            docs = []
            for d in range(2):
                passages = tuple(
                    [FILLER]
                    + [
                        f"{s} More detail on step {j} follows here."
                        for j, s in enumerate(sentences)
                        if j % 2 == d
                    ]
                    + [FILLER * 3]
                )
                docs.append(
                    Document(
                        article_id,
                        f"http://site{d}/{article_id}",
                        f"http://archive/{d}/{article_id}",
                        "\n\n".join(passages),
                        None,
                        f"Doc {d} of {article_id}",
                        passages,
                    )
                )
            documents[article_id] = docs
            k += 1
    return examples, documents


@pytest.fixture(scope="session")
def dataset() -> tuple[list[Example], dict[int, list[Document]]]:
    return make_dataset()


@pytest.fixture(scope="session")
def predictions(dataset) -> list[Prediction]:
    examples, _ = dataset
    return [
        Prediction(e.article_id, system, e.answer.split(". ")[0] + ".")
        for e in examples
        for system in ("lead", "lead-copy")
    ]


@pytest.fixture(scope="session")
def real_answers() -> list[str]:
    path = real_examples_path() / "qa.jsonl"
    return [
        json.loads(line)["answer"] for line in Path(path).read_text(encoding="utf-8").splitlines() if line
    ]
