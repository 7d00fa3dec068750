"""The statistics of the paper's human evaluation, computed from a study's key and its judgments.

Modules: :mod:`.statistics` (pure numbers), :mod:`.screening` (which judgments count, and reading them),
:mod:`.measures` (the study's numbers, :func:`analyze`) and :mod:`.report` (the typed report, Markdown,
files).

Definitions (section 5; docs/humaneval-formats.md):
* an edit is *found* when a span labelled ``misleading`` overlaps it (shares a character);
* IDR of a judgment = found edits / edits of its answer; a trial's IDR is the mean over its accepted
  judgments of deteriorated answers (the paper's "average percentage of identified deteriorations"); by
  type, the same restricted to edits of one type; Student's t-test (equal variances) compares trials;
* a false positive is a judgment of an intact answer with at least one misleading span;
* Cohen's kappa is averaged over pairs of assessors who rated at least ``min_common`` common items;
  Krippendorff's alpha uses every rating; the overlap coefficient of two highlight sets of unique words
  is |H1 ∩ H2| / min(|H1|, |H2|), averaged over pairs of judgments of one task;
* a judgment whose attentiveness answer is wrong is rejected (as in the paper), as is one that breaks
  the format (recorded with its reason), a repeat of a (task, assessor) pair, one by an assessor
  already seen in the other trial, or a trial or A/B task of an article the assessor had already judged
  in another task (its other version of the answer gives away the planted errors or the gold side;
  a relevance task hides nothing, so it may come after);
* a judgment whose page-measured time (``client_duration_ms``) disagrees with the server's
  (``duration_ms``) by more than 10 s and 10 % is flagged, not rejected.
"""

from wikihowqa.humaneval.analysis.measures import analyze
from wikihowqa.humaneval.analysis.report import (
    StudyAnalysis,
    fmt,
    idr_rows,
    markdown_report,
    write_analysis,
)
from wikihowqa.humaneval.analysis.screening import (
    CLOCK_TOLERANCE_MS,
    CLOCK_TOLERANCE_SHARE,
    Rejection,
    clock_check,
    clock_disagrees,
    find_study,
    merge_judgments,
    read_judgment_files,
    read_judgments,
    refuse_foreign,
    screen,
    unknown_tasks,
)
from wikihowqa.humaneval.analysis.statistics import (
    cohen_kappa,
    krippendorff_alpha,
    mean_pairwise_kappa,
    overlap_coefficient,
    proportion,
    sign_test,
    student_t,
    summarise,
    wilson_interval,
)
from wikihowqa.humaneval.judgment import EVENT_KINDS, judgment_problem

#: The old spelling of :func:`analyze` (the command is ``wikihowqa analyze``); kept for one release.
analyse = analyze

__all__ = [
    "CLOCK_TOLERANCE_MS",
    "CLOCK_TOLERANCE_SHARE",
    "EVENT_KINDS",
    "Rejection",
    "StudyAnalysis",
    "analyse",
    "analyze",
    "clock_check",
    "clock_disagrees",
    "cohen_kappa",
    "find_study",
    "fmt",
    "idr_rows",
    "judgment_problem",
    "krippendorff_alpha",
    "markdown_report",
    "mean_pairwise_kappa",
    "merge_judgments",
    "overlap_coefficient",
    "proportion",
    "read_judgment_files",
    "read_judgments",
    "refuse_foreign",
    "screen",
    "sign_test",
    "student_t",
    "summarise",
    "unknown_tasks",
    "wilson_interval",
    "write_analysis",
]
