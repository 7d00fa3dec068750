"""A synthetic corpus at the paper's scale, for benchmarks: 11,746 questions, 74,527 documents.

Nothing here is real data. Questions are "How to ..." titles composed from a small how-to lexicon
(verbs, objects, qualifiers and modifiers, each with synonyms) over wikiHow's 19 top-level
categories; some are planted as paraphrase groups (same meaning, different synonyms and phrasing),
recorded in ``extra["paraphrase_group"]`` so a split can be checked against them. Documents are
English-like text drawn from a Zipf distribution over the 12,000 most frequent words of the
all-MiniLM-L6-v2 vocabulary (a frequency-ordered English word list that ships with the model
package), with the question's topic words mixed in, sentences, punctuation, numbers, headings and
paragraphs; their lengths are log-normal (median ≈ 550 words, mean ≈ 800, hundreds to thousands).
Answers (≈ 60–120 words) open like wikiHow summaries ("To clean ..., ...") and are stitched from short
spans of the question's documents and instruction phrases, so fragment coverage and density are in
the range the paper reports.

``python -m wikihowqa.synthetic OUT [--questions N] [--documents N] [--seed S]`` writes a dataset
folder.
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache
from pathlib import Path

import numpy as np

from wikihowqa.core.errors import DatasetError
from wikihowqa.core.records import Document, Example
from wikihowqa.dataset.folder import DatasetFolder, write_dataset_folder
from wikihowqa.encoders.embed import default_model_path

PAPER_QUESTIONS = 11_746
PAPER_DOCUMENTS = 74_527

# One line per category: verbs | objects | qualifiers. "/" separates synonyms.
_LEXICON = (
    "Arts and Entertainment|play/perform,learn/master,tune,practice/rehearse,record,write/compose|"
    "guitar,piano/keyboard,violin/fiddle,ukulele,song/tune,poem,short story/story,drum solo,"
    "magic trick/card trick,stand up routine/comedy routine,monologue/speech,harmonica|acoustic,"
    "electric,classical,simple,funny,sad,jazz,folk\n"
    "Cars & Other Vehicles|clean/wash,fix/repair,replace/change,check/inspect,maintain/look after,"
    "jump start/boost|car battery/vehicle battery,brake pads/brakes,headlights/headlamps,tire/tyre,"
    "windshield/windscreen,engine oil/motor oil,spark plugs,radiator,bicycle chain/bike chain,"
    "motorcycle/motorbike,air filter,wiper blades/windshield wipers|old,flat,dirty,worn,foggy,"
    "leaking,rusty,noisy\n"
    "Computers and Electronics|fix/repair,speed up/make faster,clean/dust,reset/restart,"
    "set up/configure,update/upgrade,back up/save a copy of|laptop/notebook computer,"
    "smartphone/phone,printer,router/wireless router,keyboard,hard drive/hard disk,television/TV,"
    "tablet,graphics card,headphones/earphones,webcam/camera,computer mouse/mouse|slow,frozen,"
    "wireless,old,new,broken,noisy,overheating\n"
    "Education and Communications|write/draft,improve/strengthen,learn/study,prepare/get ready,"
    "memorize/learn by heart,pass/ace|essay/paper,cover letter,research paper/report,"
    "speech/presentation,exam/test,spelling/vocabulary,handwriting,book report/book review,"
    "thesis statement,persuasive letter/letter|good,short,long,formal,persuasive,final,first,"
    "informative\n"
    "Family Life|teach/help,calm/soothe,talk to/speak with,discipline/correct,entertain/keep busy,"
    "bond with/connect with|toddler/young child,teenager/teen,baby/infant,grandparents/grandparent,"
    "stepchild/stepson,siblings/brothers and sisters,newborn,twins,parents/mom and dad,"
    "family/relatives|shy,crying,angry,stubborn,bored,anxious,picky,sleepy\n"
    "Finance and Business|save/put aside,invest/put,budget/plan,pay off/clear,manage/handle,"
    "raise/increase|money/cash,credit card debt/debt,student loan/student loans,"
    "retirement savings/pension,mortgage/home loan,small business/business,"
    "emergency fund/rainy day fund,salary/pay,stocks/shares,taxes/tax bill|extra,monthly,personal,"
    "high interest,small,family,yearly,first\n"
    "Food and Entertaining|cook/prepare,bake,make/prepare,grill/barbecue,store/keep,freeze,"
    "dry/dehydrate|pork tenderloin/pork loin,sourdough bread/bread,chocolate cake/cake,"
    "salmon/salmon fillet,figs/fresh figs,rice,pancakes/flapjacks,lasagna,"
    "chicken breast/chicken breasts,cookies/biscuits,potatoes/spuds,lemonade,salsa,meatballs|fresh,"
    "frozen,homemade,leftover,whole,vegan,crispy,soft\n"
    "Health|treat/cure,relieve/ease,prevent/avoid,reduce/lower,recognize/spot,manage/cope with|"
    "headache/head pain,sore throat,back pain/backache,sunburn/sunburns,insomnia/sleeplessness,"
    "high blood pressure/hypertension,cold sores/fever blisters,acne/pimples,stress/tension,"
    "nausea/upset stomach,dry eyes,muscle cramps/leg cramps,migraine|mild,chronic,severe,sudden,"
    "painful,persistent,bad,minor\n"
    "Hobbies and Crafts|knit/crochet,sew/stitch,make/craft,fold/create,carve/whittle,build/assemble|"
    "scarf,quilt/patchwork quilt,paper crane/origami crane,candle/candles,"
    "friendship bracelet/bracelet,birdhouse/bird house,model airplane/model plane,soap/homemade soap,"
    "pottery bowl/clay bowl,wooden spoon,dreamcatcher,tote bag/canvas bag|simple,easy,small,colorful,"
    "scented,wooden,large,cute\n"
    "Holidays and Traditions|celebrate/observe,decorate/dress up,plan/organize,"
    "prepare for/get ready for,host/throw,wrap/package|christmas tree/xmas tree,"
    "halloween party/halloween celebration,birthday party/birthday celebration,easter eggs/eggs,"
    "thanksgiving dinner/thanksgiving meal,new year party/new year celebration,"
    "wedding anniversary/anniversary,valentine gift/valentine present,diwali,hanukkah|small,big,"
    "budget,last minute,quiet,family,themed,surprise\n"
    "Home and Garden|clean/wash,remove/get rid of,grow/plant,paint,install/put in,seal/waterproof,"
    "unclog/clear|concrete floors/concrete floor,kitchen sink/sink,tomatoes/tomato plants,"
    "roses/rose bushes,carpet stains/rug stains,mold/mould,hardwood floors/wood floors,"
    "windows/window glass,gutters/rain gutters,fence/garden fence,bathroom tiles/tiles,ceiling fan,"
    "lawn/grass|outdoor,indoor,old,stained,new,small,wooden,cracked\n"
    "Personal Care and Style|style/do,wash/clean,grow/lengthen,dye/color,shave/trim,"
    "care for/look after,wear/put on|curly hair/curls,beard/facial hair,nails/fingernails,"
    "eyebrows/brows,leather boots/leather shoes,eyeliner/eye liner,tie/necktie,scarf,braids/braid,"
    "skin/face,lipstick,perfume/fragrance|long,short,thin,natural,dry,sensitive,gray,black\n"
    "Pets and Animals|train/teach,feed,groom/brush,bathe/wash,care for/look after,calm/settle|"
    "dog/puppy,cat/kitten,hamster,rabbit/bunny,goldfish/fish,parrot/pet bird,horse/pony,guinea pig,"
    "turtle/tortoise,chickens/hens,bearded dragon/lizard,ferret|new,old,rescue,nervous,sick,pregnant,"
    "young,aggressive\n"
    "Philosophy and Religion|pray/say a prayer,meditate/practice meditation,find/discover,"
    "forgive/pardon,practice/follow,study/read|buddhism/buddhist teachings,inner peace/peace of mind,"
    "the bible/scripture,stoicism/stoic philosophy,gratitude/thankfulness,mindfulness/awareness,"
    "forgiveness,ramadan fasting/fasting,yoga philosophy,the rosary|daily,every day,quietly,deeply,"
    "alone,together,morning,evening\n"
    "Relationships|talk to/speak to,apologize to/say sorry to,get over/move on from,impress/win over,"
    "support/help,ask out/invite|crush/love interest,boyfriend/partner,girlfriend/partner,"
    "best friend/close friend,ex/former partner,coworker/colleague,neighbor/neighbour,"
    "roommate/flatmate,in laws/parents in law,long distance partner|shy,new,angry,jealous,distant,"
    "quiet,busy,older\n"
    "Sports and Fitness|improve/get better at,train for/prepare for,learn/master,"
    "stretch for/warm up for,build/strengthen,lose/burn|push ups/pushups,marathon/long run,"
    "swimming/swim stroke,basketball shot/jump shot,tennis serve/serve,core muscles/abs,"
    "belly fat/stomach fat,squats/squat,pull ups/chin ups,cycling/bike riding,yoga poses/yoga|first,"
    "faster,better,stronger,perfect,proper,daily,beginner\n"
    "Travel|pack/pack for,plan/organize,save on/cut the cost of,prepare for/get ready for,"
    "book/reserve,find/look for|carry on bag/hand luggage,road trip/car trip,flights/plane tickets,"
    "camping trip/campout,hotel room/hotel,passport/travel documents,backpacking trip/backpacking,"
    "cruise/sea cruise,travel insurance,jet lag/time zone change|cheap,long,short,last minute,solo,"
    "family,international,summer\n"
    "Work World|ask for/request,prepare for/get ready for,write/draft,negotiate/discuss,quit/leave,"
    "find/look for,handle/deal with|raise/pay rise,job interview/interview,resume/cv,"
    "salary/pay offer,job/position,promotion,difficult boss/bad manager,"
    "remote job/work from home job,performance review/appraisal,resignation letter/notice letter|new,"
    "first,better,higher,part time,summer,good,dream\n"
    "Youth|make/find,deal with/handle,study for/prepare for,survive/get through,"
    "fit in at/feel at home in,organize/sort out|friends/new friends,bullies/bullying,"
    "homework/school work,middle school/junior high,high school/secondary school,"
    "first day of school/school start,locker/school locker,summer camp/camp,allowance/pocket money,"
    "peer pressure|new,first,hard,big,boring,scary,busy,cool\n"
)

_MODIFIERS = [
    "",
    "quickly/fast",
    "naturally/without chemicals",
    "at home/yourself",
    "for beginners/as a beginner",
    "on a budget/cheaply",
    "safely/without risk",
    "in winter/during winter",
    "without tools/with no tools",
    "step by step/one step at a time",
    "like a pro/like an expert",
    "in one day/in a day",
    "the easy way/easily",
]

# The category mix: the paper's most frequent are health, home and garden, pets and computers.
_CATEGORY_WEIGHTS = {
    "Health": 14,
    "Home and Garden": 12,
    "Pets and Animals": 10,
    "Computers and Electronics": 9,
    "Food and Entertaining": 7,
    "Personal Care and Style": 7,
    "Hobbies and Crafts": 5,
    "Relationships": 5,
    "Finance and Business": 4,
    "Family Life": 4,
    "Sports and Fitness": 4,
    "Education and Communications": 4,
    "Cars & Other Vehicles": 3,
    "Work World": 3,
    "Travel": 3,
    "Arts and Entertainment": 2,
    "Youth": 2,
    "Holidays and Traditions": 1,
    "Philosophy and Religion": 1,
}

_GLUE = [
    "then",
    "next",
    "you can",
    "make sure to",
    "try to",
    "start by",
    "if you want",
    "be sure to",
    "finally",
    "for best results",
    "it's a good idea to",
    "you should",
    "remember to",
    "after that",
    "if possible",
    "you may need to",
    "instead",
    "also",
    "gently",
    "carefully",
    "otherwise",
    "until",
    "so that",
]

_NUMBERS = ["3", "10", "1.5", "2,500", "30%", "$20", "15-20", "2019", "0.5", "12", "4", "100"]

_VOCABULARY_SIZE = 12_000
_EPOCH = datetime(2012, 1, 1)


@dataclass(frozen=True)
class _Category:
    name: str
    verbs: tuple[tuple[str, ...], ...]
    objects: tuple[tuple[str, ...], ...]
    qualifiers: tuple[str, ...]


@cache
def _categories() -> tuple[_Category, ...]:
    out = []
    for line in _LEXICON.splitlines():
        name, verbs, objects, qualifiers = line.split("|")
        out.append(
            _Category(
                name,
                tuple(tuple(v.split("/")) for v in verbs.split(",")),
                tuple(tuple(o.split("/")) for o in objects.split(",")),
                tuple(qualifiers.split(",")),
            )
        )
    return tuple(out)


@cache
def _vocabulary() -> np.ndarray:
    """The most frequent English words of the MiniLM WordPiece vocabulary (frequency-ordered)."""
    path = Path(default_model_path()) / "vocab.txt"
    words = [w for w in path.read_text(encoding="utf-8").split() if w.isascii() and w.isalpha()]
    words = [w for w in words if len(w) > 1]
    return np.array(words[:_VOCABULARY_SIZE], dtype=object)


def _title(text: str) -> str:
    small = {"a", "an", "the", "and", "or", "of", "in", "on", "at", "to", "for", "with", "by", "as", "from"}
    words = text.split()
    return " ".join(w if (i and w in small) else w[:1].upper() + w[1:] for i, w in enumerate(words))


@dataclass(frozen=True)
class _Topic:
    category: int
    verb: int
    obj: int
    qualifier: int  # -1: none
    modifier: int  # 0: none


def _phrase(rng: np.random.Generator, topic: _Topic) -> tuple[str, list[str]]:
    """A question title for a topic, with randomly chosen synonyms; and the topic words it uses."""
    cat = _categories()[topic.category]
    verb = str(rng.choice(cat.verbs[topic.verb]))
    obj = str(rng.choice(cat.objects[topic.obj]))
    qual = cat.qualifiers[topic.qualifier] + " " if topic.qualifier >= 0 else ""
    mod = str(rng.choice(_MODIFIERS[topic.modifier].split("/"))) if topic.modifier else ""
    plural = obj.endswith("s") and not obj.endswith("ss")
    det = str(rng.choice(["", "your "] if plural or " " in verb else ["a ", "your ", "the "]))
    det = "" if obj.startswith("the ") else det
    if det == "a " and (qual or obj)[:1] in "aeiou":
        det = "an "
    title = "How to " + _title(f"{verb} {det}{qual}{obj}" + (f" {mod}" if mod else ""))
    return title, f"{verb} {qual}{obj} {mod}".split()


class _Writer:
    """English-like text from a Zipf law over a frequency-ordered word list, with topic words mixed in."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.words = _vocabulary()
        ranks = np.arange(1, len(self.words) + 1, dtype=float)
        p = 1.0 / ranks**1.05
        self.cdf = np.cumsum(p / p.sum())

    def word_ids(self, n: int) -> np.ndarray:
        return np.minimum(np.searchsorted(self.cdf, self.rng.random(n)), len(self.words) - 1)

    def document(self, n_words: int, topic_words: list[str]) -> tuple[list[str], list[str]]:
        """``(paragraphs, plain words)`` of one document of about ``n_words`` words."""
        rng = self.rng
        words: list[str] = self.words[self.word_ids(n_words)].tolist()
        marks = rng.random((3, n_words))
        picks = rng.integers(0, 1 << 30, n_words).tolist()
        for i in np.flatnonzero(marks[0] < 0.05).tolist():
            words[i] = topic_words[picks[i] % len(topic_words)]
        plain = list(words)
        for i in np.flatnonzero(marks[1] < 0.012).tolist():
            words[i] = _NUMBERS[picks[i] % len(_NUMBERS)]
        for i in np.flatnonzero(marks[2] < 0.07).tolist():
            words[i] += ","
        # Sentence lengths, paragraph sizes and decorations, drawn in bulk.
        n_sent = n_words // 3 + 2
        lengths = np.clip(rng.normal(17, 7, n_sent), 3, 45).astype(int).tolist()
        per_para = rng.integers(1, 7, n_sent).tolist()
        heading = (rng.random(n_sent) < 0.15).tolist()
        heading_len = rng.integers(2, 6, n_sent).tolist()
        deco = rng.random(n_sent).tolist()
        stop = rng.random(n_sent).tolist()
        paragraphs: list[str] = []
        i = s = p = 0
        while i < n_words:
            parts: list[str] = []
            if heading[p]:
                k = heading_len[p]
                parts.append(_title(" ".join(w.rstrip(",") for w in words[i : i + k])) + "\n")
                i += k
            for _ in range(per_para[p]):
                if i >= n_words:
                    break
                k = lengths[s]
                sent = words[i : i + k]
                i += k
                sent[0] = sent[0][:1].upper() + sent[0][1:]
                if len(sent) > 4 and deco[s] < 0.05:
                    j = 1 + picks[s] % (len(sent) - 3)
                    left, right = ("(", ")") if deco[s] < 0.03 else ('"', '"')
                    sent[j] = left + sent[j]
                    sent[j + 1] = sent[j + 1].rstrip(",") + right
                end = "." if stop[s] < 0.9 else ("?" if stop[s] < 0.96 else "!")
                sent[-1] = sent[-1].rstrip(",") + end
                parts.append(" ".join(sent) + " ")
                s += 1
            p += 1
            paragraphs.append("".join(parts).strip())
        return [p for p in paragraphs if p], plain

    def answer(self, title: str, plain: list[str], n_words: int) -> str:
        """A summary-like answer: an opening, then sentences of document spans and instruction phrases."""
        rng = self.rng
        opening = re.sub(r"^How to ", "", title).lower().split()
        draws = rng.random(4 * n_words + 8).tolist()
        ints = rng.integers(0, 1 << 30, 4 * n_words + 8).tolist()
        spans = np.minimum(rng.geometric(0.42, 4 * n_words + 8), 8).tolist()
        targets = np.clip(rng.normal(18, 5, n_words), 8, 32).astype(int).tolist()
        sentences: list[str] = []
        count = d = 0
        while count < n_words:
            target = targets[len(sentences)]
            if not sentences:
                out = ["To", *opening]
                out[-1] += ","
            else:
                out = [_GLUE[ints[d] % len(_GLUE)]]
                d += 1
            while len(out) < target:
                if draws[d] < 0.72 and plain:
                    k = spans[d]
                    j = ints[d] % max(1, len(plain) - k)
                    out.extend(plain[j : j + k])
                else:
                    out.extend(_GLUE[ints[d] % len(_GLUE)].split())
                d += 1
            text = " ".join(out)
            sentences.append(text[:1].upper() + text[1:] + ".")
            count += len(out)
        return " ".join(sentences)


def _topics(
    rng: np.random.Generator, n_questions: int, group_share: float
) -> list[tuple[_Topic, int | None]]:
    """Distinct topics, some repeated as planted paraphrase groups: ``(topic, group or None)``."""
    cats = _categories()
    names = [c.name for c in cats]
    weights = np.array([_CATEGORY_WEIGHTS[n] for n in names], dtype=float)
    weights /= weights.sum()
    seen: set[tuple[int, int, int, int, int]] = set()
    taken: set[tuple[int, int, int, int]] = set()  # (category, verb, object, qualifier) so far
    grouped: set[tuple[int, int, int, int]] = set()  # ... of the paraphrase groups
    out: list[tuple[_Topic, int | None]] = []
    group = 0
    while len(out) < n_questions:
        c = int(rng.choice(len(cats), p=weights))
        cat = cats[c]
        key = (
            c,
            int(rng.integers(len(cat.verbs))),
            int(rng.integers(len(cat.objects))),
            int(rng.integers(-1, len(cat.qualifiers))),
            int(rng.integers(len(_MODIFIERS))),
        )
        # A paraphrase group's verb, object and qualifier are its own: no other question has all three.
        if key in seen or key[:4] in grouped:
            continue
        seen.add(key)
        topic = _Topic(*key)
        if key[:4] not in taken and rng.random() < group_share / 3 and n_questions - len(out) >= 2:
            size = int(min(rng.integers(2, 5), n_questions - len(out)))
            out.extend((topic, group) for _ in range(size))
            grouped.add(key[:4])
            group += 1
        else:
            out.append((topic, None))
        taken.add(key[:4])
    return out


@dataclass(frozen=True)
class SyntheticQuestion:
    """A generated question: its title, category, planted paraphrase group (or None) and topic words."""

    title: str
    category: str
    group: int | None
    topic_words: tuple[str, ...]


def generate_questions(
    n_questions: int, seed: int = 0, *, group_share: float = 0.12
) -> list[SyntheticQuestion]:
    """Distinct "How to ..." questions; about ``group_share`` of them in planted paraphrase groups of 2–4.

    These are the questions of ``generate_corpus`` with the same arguments.
    """
    if n_questions < 1:
        raise ValueError("need at least one question")
    rng = np.random.default_rng([seed, 0])
    cats = _categories()
    titles: set[str] = set()
    out: list[SyntheticQuestion] = []
    for q, (topic, group) in enumerate(_topics(rng, n_questions, group_share)):
        title, topic_words = _phrase(rng, topic)
        tries = 0
        while title in titles and tries < 20:  # paraphrases must differ in wording
            title, topic_words = _phrase(rng, topic)
            tries += 1
        if title in titles:
            title = f"{title} ({q})"
        titles.add(title)
        cat_words = [w for o in cats[topic.category].objects for w in o[0].split()]
        words = tuple(topic_words + cat_words[:12])
        out.append(SyntheticQuestion(title, cats[topic.category].name, group, words))
    return out


def generate_corpus(
    n_questions: int = PAPER_QUESTIONS,
    n_documents: int = PAPER_DOCUMENTS,
    seed: int = 0,
    *,
    group_share: float = 0.12,
    passages: bool = True,
) -> tuple[list[Example], list[Document]]:
    """Examples and documents of a synthetic corpus; the same arguments give the same corpus.

    About ``group_share`` of the questions belong to planted paraphrase groups of 2–4, marked in
    ``Example.extra["paraphrase_group"]``; splits and clusters are left unset.
    """
    if n_questions < 1 or n_documents < n_questions:
        raise ValueError("need at least one question and at least one document per question")
    questions = generate_questions(n_questions, seed, group_share=group_share)
    rng = np.random.default_rng([seed, 1])
    writer = _Writer(rng)
    # Documents per question: at least one, the rest spread with a skewed (gamma) weight.
    weights = rng.gamma(1.5, size=n_questions)
    doc_counts = (1 + rng.multinomial(n_documents - n_questions, weights / weights.sum())).tolist()
    lengths = np.clip(rng.lognormal(np.log(550), 0.85, n_documents), 80, 12_000).astype(int).tolist()
    stamps = rng.integers(0, 10 * 365 * 86_400, n_documents).tolist()
    sites = rng.integers(200, 3000, (n_documents, 2)).tolist()
    answer_lengths = np.clip(rng.normal(88, 18, n_questions), 45, 160).astype(int).tolist()
    examples: list[Example] = []
    documents: list[Document] = []
    k = 0
    for q, question in enumerate(questions):
        article_id = 1_000_000 + q
        urls: list[str] = []
        plain_all: list[str] = []
        slug = "-".join(question.title.lower().split()[2:6])
        for d in range(doc_counts[q]):
            paragraphs, plain = writer.document(lengths[k], list(question.topic_words))
            plain_all.extend(plain[:3000])
            stamp = (_EPOCH + timedelta(seconds=stamps[k])).strftime("%Y%m%d%H%M%S")
            original = f"https://www.{writer.words[sites[k][0]]}{writer.words[sites[k][1]]}.com/{slug}-{d}"
            archive = f"http://web.archive.org/web/{stamp}/{original}"
            urls.append(archive)
            documents.append(
                Document(
                    article_id=article_id,
                    original_url=original,
                    archive_url=archive,
                    parsed_text="\n\n".join(paragraphs),
                    title=_title(" ".join(plain[:6])),
                    passages=tuple(paragraphs) if passages else (),
                )
            )
            k += 1
        examples.append(
            Example(
                article_id=article_id,
                question=question.title,
                answer=writer.answer(question.title, plain_all, answer_lengths[q]),
                related_document_urls_wayback_snapshots=tuple(urls),
                category=question.category,
                extra={"paraphrase_group": question.group} if question.group is not None else {},
            )
        )
    return examples, documents


def write_corpus(
    out: Path,
    n_questions: int = PAPER_QUESTIONS,
    n_documents: int = PAPER_DOCUMENTS,
    seed: int = 0,
    *,
    overwrite: bool = False,
    passages: bool = True,
) -> DatasetFolder:
    """Generate a corpus and write it as a dataset folder."""
    examples, documents = generate_corpus(n_questions, n_documents, seed, passages=passages)
    manifest = {
        "source": "synthetic (wikihowqa.synthetic.dataset); not real data",
        "settings": {"questions": n_questions, "documents": n_documents, "seed": seed},
        "counts": {"questions": len(examples), "documents": len(documents)},
    }
    return write_dataset_folder(out, examples, documents, manifest, overwrite=overwrite)


def ensure_corpus(
    out: Path, n_questions: int = PAPER_QUESTIONS, n_documents: int = PAPER_DOCUMENTS, seed: int = 0
) -> DatasetFolder:
    """The corpus at ``out``, generated only if the folder does not already hold it (for benchmarks)."""
    folder = DatasetFolder(Path(out))
    if folder.path.is_dir():
        try:
            if (
                folder.manifest().get("settings")
                == {
                    "questions": n_questions,
                    "documents": n_documents,
                    "seed": seed,
                }
                and (folder.path / "qa.jsonl").is_file()
                and (folder.path / "documents.jsonl").is_file()
            ):
                return folder
        except DatasetError:
            pass  # an unreadable manifest: write the corpus again
    return write_corpus(folder.path, n_questions, n_documents, seed, overwrite=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m wikihowqa.synthetic", description=__doc__.split("\n")[0]
    )
    parser.add_argument("out", type=Path, help="dataset folder to write")
    parser.add_argument("--questions", type=int, default=PAPER_QUESTIONS, help="number of questions")
    parser.add_argument("--documents", type=int, default=PAPER_DOCUMENTS, help="number of documents")
    parser.add_argument("--seed", type=int, default=0, help="random seed")
    parser.add_argument("--overwrite", action="store_true", help="replace OUT if it holds files")
    args = parser.parse_args(argv)
    folder = write_corpus(args.out, args.questions, args.documents, args.seed, overwrite=args.overwrite)
    print(f"wrote {args.questions} questions and {args.documents} documents to {folder.path}")


if __name__ == "__main__":
    main()
