from .corpus import write_synthetic_corpus as write_synthetic_corpus
from .dataset import generate_corpus as generate_corpus
from .dataset import generate_questions as generate_questions
from .dataset import write_corpus as write_corpus
