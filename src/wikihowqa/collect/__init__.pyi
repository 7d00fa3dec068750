from .build import BuildResult as BuildResult
from .build import BuildSettings as BuildSettings
