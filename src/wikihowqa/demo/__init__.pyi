from .paths import corpus_path as corpus_path
from .paths import real_examples_path as real_examples_path
from .run import run_demo as run_demo
