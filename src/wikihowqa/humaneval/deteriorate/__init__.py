"""Introduce factual errors into answers, by type, recording every edit's offsets in both texts.

The paper's protocol (section 5.1): 5 QA pairs per wikiHow category, 4 of the 5 deteriorated, about 4.5
edits per deteriorated answer, then a manual review for grammar and topicality. Each operator proposes
*candidate* edits with rule-based methods and curated lexicons; a seeded selector picks a
non-overlapping, type-diverse subset; :func:`apply_edits` builds the deteriorated text and the offsets.

The package follows those seams: :mod:`.edits` (the records, offsets and the file), :mod:`.language`
(tokens and lemminflect), the operators (:mod:`.polarity`, :mod:`.quantities`, :mod:`.swap`,
:mod:`.donors`) and :mod:`.selection` (which candidates an answer gets, and the protocol).
"""

from wikihowqa.humaneval.deteriorate.donors import Donor, donor_sentences, pick_donor, unsupported_candidates
from wikihowqa.humaneval.deteriorate.edits import (
    ANTONYM,
    EDIT_TYPES,
    NEGATION,
    NUMBER,
    ORDER,
    REVIEW_TYPES,
    SWAP,
    UNIT,
    UNSUPPORTED,
    Candidate,
    Change,
    DeterioratedAnswer,
    Edit,
    answer_from_dict,
    apply_edits,
    check_answer,
    edit_from_dict,
    read_deteriorated,
    reconstruct_original,
    write_deteriorated,
)
from wikihowqa.humaneval.deteriorate.polarity import antonym_candidates, negation_candidates, order_candidates
from wikihowqa.humaneval.deteriorate.quantities import number_candidates, unit_candidates
from wikihowqa.humaneval.deteriorate.selection import (
    UNCATEGORISED,
    DeteriorationSettings,
    candidates,
    deteriorate_examples,
    deteriorate_text,
    select_edits,
)
from wikihowqa.humaneval.deteriorate.swap import swap_candidates

__all__ = [
    "ANTONYM",
    "EDIT_TYPES",
    "NEGATION",
    "NUMBER",
    "ORDER",
    "REVIEW_TYPES",
    "SWAP",
    "UNCATEGORISED",
    "UNIT",
    "UNSUPPORTED",
    "Candidate",
    "Change",
    "DeterioratedAnswer",
    "DeteriorationSettings",
    "Donor",
    "Edit",
    "answer_from_dict",
    "antonym_candidates",
    "apply_edits",
    "candidates",
    "check_answer",
    "deteriorate_examples",
    "deteriorate_text",
    "donor_sentences",
    "edit_from_dict",
    "negation_candidates",
    "number_candidates",
    "order_candidates",
    "pick_donor",
    "read_deteriorated",
    "reconstruct_original",
    "select_edits",
    "swap_candidates",
    "unit_candidates",
    "unsupported_candidates",
    "write_deteriorated",
]
