from .defaults import GROUNDING_THRESHOLD as GROUNDING_THRESHOLD
from .pipeline import Evaluation as Evaluation
from .pipeline import EvaluationSettings as EvaluationSettings
from .pipeline import evaluate as evaluate
from .report import EvaluationReport as EvaluationReport
from .report import write_report as write_report
from .stage import evaluate_predictions as evaluate_predictions
