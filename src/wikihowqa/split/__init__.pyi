from .audit import AuditResult as AuditResult
from .audit import audit_dataset as audit_dataset
from .audit import audit_examples as audit_examples
from .splitter import SplitResult as SplitResult
from .splitter import SplitSettings as SplitSettings
from .splitter import split_dataset as split_dataset
from .splitter import split_examples as split_examples
