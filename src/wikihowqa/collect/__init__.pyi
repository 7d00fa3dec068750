from .build import BuildResult as BuildResult
from .build import BuildSettings as BuildSettings
from .build import build as build
from .hydrate import HydrateResult as HydrateResult
from .hydrate import HydrateSettings as HydrateSettings
from .hydrate import hydrate as hydrate
