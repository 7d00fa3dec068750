from .report import StatsReport as StatsReport
from .report import describe as describe
