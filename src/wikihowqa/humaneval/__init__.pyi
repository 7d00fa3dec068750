from .analysis import analyze as analyze
from .simulate import SimulationSettings as SimulationSettings
from .simulate import simulate_judgments as simulate_judgments
from .tasks import Study as Study
from .tasks import StudySettings as StudySettings
from .tasks import build_study as build_study
from .tasks import read_study as read_study
from .tasks import write_study as write_study
