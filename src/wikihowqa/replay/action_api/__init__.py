"""What the replay site serves at ``/api.php``: the MediaWiki Action API, split along its seams.

``request`` (parameters, errors, page-set entries) → ``continuation`` → ``props`` / ``lists`` / ``meta``
(the query modules) → ``pageset`` → ``query`` (``action=query``) and ``summary`` (wikiHow's
``action=summary_section``) → ``endpoint`` (the envelope: format, ``maxlag``, errors, warnings).
"""

from wikihowqa.replay.action_api.endpoint import MediaWikiApi
from wikihowqa.replay.action_api.request import ApiError

__all__ = ["ApiError", "MediaWikiApi"]
