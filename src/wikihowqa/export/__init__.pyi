from .hub import HubSettings as HubSettings
from .hub import export_hub as export_hub
from .lm_eval import LmEvalSettings as LmEvalSettings
from .lm_eval import export_lm_eval as export_lm_eval
