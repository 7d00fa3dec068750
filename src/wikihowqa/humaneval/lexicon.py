"""Curated word lists for answer deterioration.

Hand-picked rather than mined: every entry was chosen so that the replacement keeps a how-to sentence
grammatical (words whose part of speech flips between uses, such as "dry", "light" or "open", are left
out on purpose), which is what the paper's manual review otherwise has to repair.
"""

from __future__ import annotations

from collections.abc import Mapping

from wikihowqa.core.records import WIKIHOW_TOP_CATEGORIES

#: The attentiveness check picks among wikiHow's 19 top-level categories.
WIKIHOW_CATEGORIES: tuple[str, ...] = WIKIHOW_TOP_CATEGORIES


def _both_ways(pairs: list[tuple[str, str]]) -> dict[str, str]:
    table: dict[str, str] = {}
    for a, b in pairs:
        table.setdefault(a, b)
        table.setdefault(b, a)
    return table


ANTONYMS: Mapping[str, str] = {
    **_both_ways(
        [
            ("hot", "cold"),
            ("hotter", "colder"),
            ("hottest", "coldest"),
            ("warm", "cool"),
            ("warmer", "cooler"),
            ("warmest", "coolest"),
            ("high", "low"),
            ("higher", "lower"),
            ("highest", "lowest"),
            ("more", "less"),
            ("most", "least"),
            ("large", "small"),
            ("larger", "smaller"),
            ("largest", "smallest"),
            ("long", "short"),
            ("longer", "shorter"),
            ("longest", "shortest"),
            ("thick", "thin"),
            ("thicker", "thinner"),
            ("quickly", "slowly"),
            ("quick", "slow"),
            ("easy", "difficult"),
            ("easier", "harder"),
            ("increase", "decrease"),
            ("increases", "decreases"),
            ("increased", "decreased"),
            ("increasing", "decreasing"),
            ("inside", "outside"),
            ("indoor", "outdoor"),
            ("indoors", "outdoors"),
            ("above", "below"),
            ("heavily", "lightly"),
            ("tightly", "loosely"),
            ("loose", "tight"),
            ("loosen", "tighten"),
            ("loosened", "tightened"),
            ("wide", "narrow"),
            ("wider", "narrower"),
            ("deep", "shallow"),
            ("deeper", "shallower"),
            ("strong", "weak"),
            ("stronger", "weaker"),
            ("rough", "smooth"),
            ("bright", "dim"),
            ("completely", "partially"),
            ("gently", "firmly"),
            ("full", "empty"),
            ("good", "bad"),
            ("better", "worse"),
            ("best", "worst"),
            ("positive", "negative"),
            ("cheap", "expensive"),
            ("durable", "fragile"),
            ("reluctant", "eager"),
            ("maximum", "minimum"),
            ("clockwise", "counterclockwise"),
            ("include", "exclude"),
            ("push", "pull"),
            ("agree", "disagree"),
            ("safe", "dangerous"),
            ("calm", "anxious"),
            ("relaxed", "tense"),
            ("frequently", "rarely"),
            ("often", "rarely"),
            ("sweet", "bitter"),
            ("thoroughly", "briefly"),
            ("mild", "harsh"),
        ]
    ),
    "big": "small",
    "bigger": "smaller",
    "heavy": "light",
    "soft": "firm",
    "firm": "soft",
}

#: Polarity flips that count as negation, not antonymy.
POLARITY: Mapping[str, str] = _both_ways([("always", "never")])

#: Auxiliaries and modals that take a following "not".
AUXILIARIES: frozenset[str] = frozenset(
    {
        "is",
        "are",
        "was",
        "were",
        "will",
        "would",
        "should",
        "can",
        "could",
        "may",
        "might",
        "must",
        "has",
        "have",
        "had",
    }
)
#: Contracted negatives and what they become without the negation.
CONTRACTED_NEGATIVES: Mapping[str, str] = {
    "won't": "will",
    "can't": "can",
    "cannot": "can",
    "isn't": "is",
    "aren't": "are",
    "wasn't": "was",
    "weren't": "were",
    "shouldn't": "should",
    "wouldn't": "would",
    "couldn't": "could",
    "mustn't": "must",
    "haven't": "have",
    "hasn't": "has",
    "hadn't": "had",
}
#: Negated do-support, removed together with the verb it governs (inflection of the verb in brackets).
DO_NEGATIVES: Mapping[str, str] = {
    "don't": "VB",
    "do not": "VB",
    "doesn't": "VBZ",
    "does not": "VBZ",
    "didn't": "VBD",
    "did not": "VBD",
}
SUBJECT_PRONOUNS_PLAIN: frozenset[str] = frozenset({"you", "they", "we", "i"})
SUBJECT_PRONOUNS_THIRD: frozenset[str] = frozenset({"it", "he", "she"})

#: Words that open an introductory clause; the imperative follows its closing comma.
CLAUSE_OPENERS: frozenset[str] = frozenset(
    {
        "to",
        "if",
        "when",
        "once",
        "before",
        "after",
        "for",
        "while",
        "since",
        "as",
        "whenever",
        "unless",
        "because",
        "although",
        "though",
        "until",
        "in",
        "with",
        "during",
        "depending",
        "instead",
    }
)
#: Sentence adverbs that may precede an imperative ("Then, place ...").
LEADING_ADVERBS: frozenset[str] = frozenset(
    {
        "then",
        "next",
        "finally",
        "first",
        "also",
        "afterward",
        "afterwards",
        "now",
        "lastly",
        "second",
        "third",
        "additionally",
        "otherwise",
        "alternatively",
        "meanwhile",
        "however",
        "instead",
        "last",
    }
)
#: Words that are verbs by spelling but never the imperative verb of a how-to sentence.
NOT_IMPERATIVE: frozenset[str] = frozenset(
    {
        "be",
        "do",
        "have",
        "will",
        "can",
        "may",
        "must",
        "should",
        "would",
        "could",
        "might",
        "shall",
        "let's",
        "please",
        "here",
        "there",
        "that",
        "this",
        "these",
        "those",
        "it",
        "so",
        "no",
        "yes",
        "well",
        "even",
        "just",
        "only",
        "still",
        "like",
        "best",
        "most",
        "more",
        "once",
        "as",
        "face",
        "back",
    }
)

#: Words ending a noun phrase: prepositions, conjunctions, relative words (what may follow an object).
NP_BOUNDARY: frozenset[str] = frozenset(
    {
        "with",
        "on",
        "in",
        "into",
        "onto",
        "at",
        "to",
        "for",
        "from",
        "of",
        "by",
        "over",
        "under",
        "and",
        "or",
        "but",
        "so",
        "which",
        "that",
        "if",
        "until",
        "before",
        "after",
        "while",
        "when",
        "because",
        "inside",
        "outside",
        "instead",
        "as",
        "then",
        "around",
        "through",
        "near",
        "without",
    }
)
DETERMINERS: frozenset[str] = frozenset({"a", "an", "the", "your", "some", "this", "that", "these", "those"})

NUMBER_WORDS: Mapping[str, int] = {
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "hundred": 100,
}
WORDS_FOR_NUMBERS: Mapping[int, str] = {v: k for k, v in NUMBER_WORDS.items()} | {1: "one"}
COMMON_FRACTIONS: tuple[str, ...] = ("1/4", "1/3", "1/2", "2/3", "3/4")
UNICODE_FRACTIONS: Mapping[str, str] = {"¼": "¾", "½": "¼", "¾": "¼", "⅓": "⅔", "⅔": "⅓"}

#: Unit families: (singular, plural) in an order where neighbours are plausible substitutes.
UNIT_FAMILIES: tuple[tuple[tuple[str, str], ...], ...] = (
    (
        ("second", "seconds"),
        ("minute", "minutes"),
        ("hour", "hours"),
        ("day", "days"),
        ("week", "weeks"),
        ("month", "months"),
        ("year", "years"),
    ),
    (
        ("millimeter", "millimeters"),
        ("centimeter", "centimeters"),
        ("inch", "inches"),
        ("foot", "feet"),
        ("yard", "yards"),
        ("meter", "meters"),
        ("mile", "miles"),
        ("kilometer", "kilometers"),
    ),
    (
        ("millimetre", "millimetres"),
        ("centimetre", "centimetres"),
        ("metre", "metres"),
        ("kilometre", "kilometres"),
    ),
    (
        ("teaspoon", "teaspoons"),
        ("tablespoon", "tablespoons"),
        ("cup", "cups"),
        ("pint", "pints"),
        ("quart", "quarts"),
        ("gallon", "gallons"),
    ),
    (("milliliter", "milliliters"), ("liter", "liters")),
    (("millilitre", "millilitres"), ("litre", "litres")),
    (("gram", "grams"), ("ounce", "ounces"), ("pound", "pounds"), ("kilogram", "kilograms")),
    (("tsp", "tsp"), ("tbsp", "tbsp")),
    (("mm", "mm"), ("cm", "cm")),
    (("g", "g"), ("kg", "kg")),
    (("oz", "oz"), ("lb", "lbs")),
    (("ml", "ml"), ("l", "l")),
    (("°F", "°F"), ("°C", "°C")),
    (("Fahrenheit", "Fahrenheit"), ("Celsius", "Celsius")),
)

#: Step-order words: a replacement that reverses when something happens.
ORDER_WORDS: Mapping[str, str] = {
    "before": "after",
    "after": "before",
    "afterwards": "beforehand",
    "afterward": "beforehand",
    "beforehand": "afterwards",
    "first": "last",
    "finally": "first",
    "lastly": "first",
    "prior to": "after",
    "as soon as": "before",
    "start by": "finish by",
    "begin by": "finish by",
    "finish by": "start by",
    "end by": "start by",
    "at the end": "at the beginning",
    "at the beginning": "at the end",
}
#: Sentence-initial words replaced by an order reversal ("Once X, do Y" → "Before X, do Y").
ORDER_OPENERS: Mapping[str, str] = {"once": "before", "then": "before that", "next": "before that"}

#: Words of a borrowed sentence that show it was ripped out of its context (skip such donors).
CONTEXT_WORDS: frozenset[str] = frozenset({"this", "these", "that", "those", "it", "they", "them", "also"})
