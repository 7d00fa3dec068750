"""What became of a cited URL, in funnel order: the reasons a reference is rejected, and ``kept``.

A lookup ends before a snapshot is found (nothing usable in the archive), or after (the capture chosen
fails at playback), or with a fetched snapshot, which the parse stage keeps or rejects. Each way a
reference can fail has its own name, so the funnel says *why* references were lost, not only where.
"""

from __future__ import annotations

#: Nothing usable in the archive: no snapshot is found.
NO_SNAPSHOT = "no_snapshot"  # the archive holds no capture of the URL
NO_200_CAPTURE = "no_200_capture"  # archived, but never with status 200 (and no redirect to follow)
REDIRECT_UNRESOLVED = "redirect_unresolved"  # its redirect captures lead to a URL without a 200 capture
REDIRECT_LIMIT = "redirect_limit"  # more redirect captures in a row than followed, or a loop
#: A lookup or playback that failed (an error, a refusal, a timeout): ``--retry-failed`` asks again.
FETCH_FAILED = "fetch_failed"
#: The archive asked to wait longer (``Retry-After``) than the client's cap: not an answer, so the next run
#: asks again by itself (no ``--retry-failed`` needed).
DEFERRED = "deferred"
#: A capture was chosen, but its playback does not confirm it.
CAPTURE_NOT_200 = "capture_not_200"  # the CDX row says 200, the played capture another status
CAPTURE_UNVERIFIED = "capture_unverified"  # the playback is no capture (no Memento-Datetime), or another
REDIRECT_OUTSIDE_ARCHIVE = "redirect_outside_archive"  # the playback redirects out of the archive
FETCHED = "fetched"
#: What the parse stage makes of a fetched snapshot.
EMPTY_BODY, NON_HTML, EMPTY_TEXT, KEPT = "empty_body", "non_html", "empty_text", "kept"
#: A capture past the size cap: its body over ``max_body_bytes`` as it arrived (decompressed), or a page
#: the parser gave up on for its size or memory. An answer, kept on resume: it is never fetched again.
TOO_LARGE = "too_large"

#: Rejections before a snapshot is found, and after it (the lookup's failures are either, by where).
NOT_FOUND = (NO_SNAPSHOT, NO_200_CAPTURE, REDIRECT_UNRESOLVED, REDIRECT_LIMIT)
NOT_CONFIRMED = (CAPTURE_NOT_200, CAPTURE_UNVERIFIED, REDIRECT_OUTSIDE_ARCHIVE)
#: Every rejection of a reference, in funnel order (the manifest's ``reference_*`` keys).
REFERENCE_REJECTIONS = (
    *NOT_FOUND,
    FETCH_FAILED,
    DEFERRED,
    *NOT_CONFIRMED,
    EMPTY_BODY,
    NON_HTML,
    TOO_LARGE,
    EMPTY_TEXT,
)
#: Outcomes ``--retry-failed`` forgets: answers that may differ when asked again (they were all counted
#: as ``fetch_failed`` before playback verdicts had names of their own).
RETRIED = (FETCH_FAILED, *NOT_CONFIRMED)
