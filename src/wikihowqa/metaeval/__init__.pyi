from .agreement import MetaSettings as MetaSettings
from .agreement import meta_evaluate as meta_evaluate
from .stage import meta_evaluate_folders as meta_evaluate_folders
from .stage import write_study_predictions as write_study_predictions
