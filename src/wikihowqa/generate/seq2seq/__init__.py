"""The fine-tuned generator (the paper's BART-large row): train on the train split, then generate.

Any Hugging Face model by name or path works: an encoder-decoder (BART, T5: the input builder's string is
the encoder input, the answer the target) or a decoder-only LM (Llama, SmolLM2: the model reads the input
string, ``answer_prefix``, then learns to write the answer; only answer tokens carry loss). Training runs
through ``transformers.Trainer`` — checkpoints every ``save_steps``, resumes from the last checkpoint,
bf16 on a CUDA GPU that supports it. Every setting lives in one YAML/TOML file (:class:`GeneratorConfig`);
the trained model is saved with the settings that shaped its inputs, so generation rebuilds them exactly.

Three modules along the seams: :mod:`.config` (the settings), :mod:`.inference` (loading, inputs,
generation), :mod:`.training` (the Trainer run); their public names are all importable from here.
"""

from wikihowqa.generate.seq2seq.config import (
    ARCHITECTURES,
    GENERATOR_SETTINGS_FILE,
    GenerateSettings,
    GeneratorConfig,
    InputFormat,
    TrainSettings,
    saved_settings,
)
from wikihowqa.generate.seq2seq.inference import (
    Generator,
    GeneratorModel,
    best_device,
    drop_gguf_quantization,
    input_retrieval,
)
from wikihowqa.generate.seq2seq.training import (
    Collator,
    TrainResult,
    fine_tune,
    last_checkpoint,
    train,
    training_arguments,
    use_bf16,
)

__all__ = [
    "ARCHITECTURES",
    "GENERATOR_SETTINGS_FILE",
    "Collator",
    "GenerateSettings",
    "Generator",
    "GeneratorConfig",
    "GeneratorModel",
    "InputFormat",
    "TrainResult",
    "TrainSettings",
    "best_device",
    "drop_gguf_quantization",
    "fine_tune",
    "input_retrieval",
    "last_checkpoint",
    "saved_settings",
    "train",
    "training_arguments",
    "use_bf16",
]
