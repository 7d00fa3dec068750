"""A planted-passage collection: one passage answers the question, the rest are about other things."""

from __future__ import annotations

from wikihowqa.core.records import Passage

QUESTION = "How to dry figs in the oven"
RELEVANT = (
    "To dry figs in an oven, cut each fig in half, lay the halves cut side up on a rack, and leave them in "
    "the oven at its lowest temperature for eight to twelve hours until they are leathery."
)
DISTRACTORS = [
    "Check the tyre pressure of your car once a month with a gauge and inflate to the value on the door.",
    "File your tax return before the deadline and keep receipts for every deduction you claim.",
    "Brush your dog's coat twice a week to remove loose hair and spread the natural oils.",
    "A good resume lists your most recent job first and keeps each entry to a few lines.",
    "Preheat the grill, oil the grates, and cook the burgers for four minutes on each side.",
    "Water tomato plants deeply at the base in the morning so the leaves stay dry during the day.",
    "To learn a new language, practise a little every day and speak with native speakers often.",
    "Replace the furnace filter every three months to keep the air in your home clean.",
    "Stretch your hamstrings slowly after running and hold each stretch for thirty seconds.",
]


def planted(position: int = 5) -> tuple[list[Passage], int]:
    texts = [*DISTRACTORS[:position], RELEVANT, *DISTRACTORS[position:]]
    passages = [Passage(article_id=1, doc_index=i % 3, position=i, text=t) for i, t in enumerate(texts)]
    return passages, position
