"""Real server software on loopback for the collector's tests: Debian's MediaWiki 1.39 and pywb 2.10.

* :class:`MediaWikiServer` installs a fresh wiki (SQLite, ``maintenance/install.php``) in a temporary
  folder, imports a corpus folder as an XML dump with ``importDump.php`` (articles with all their
  revisions, the ``Summary:`` pages of namespace 30, the ``Category:`` pages with their parents), gives
  the pages the corpus's page ids (the release's ``article_id`` is the wiki's page id, and MediaWiki's
  importer numbers pages itself), and serves it with PHP's built-in server.
* :class:`PywbServer` writes the corpus's captures as a WARC file with ``warcio`` (capture dates as
  ``WARC-Date``), indexes it as a pywb collection ``web`` with ``wb-manager`` and runs pywb's ``wayback``
  with Memento enabled. pywb pins old versions of several libraries, so it lives in its own virtual
  environment (``scripts/test.sh`` creates ``.venv-pywb``) and runs as a subprocess.

Both are what a user would run; :func:`mediawiki_missing` and :func:`pywb_missing` say why one cannot be
started here (the tests skip with that reason).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from xml.sax.saxutils import escape

from wikihowqa.replay import load_corpus
from wikihowqa.replay.corpus import Corpus
from wikihowqa.replay.pywb import PywbServer, free_port, start_listening
from wikihowqa.replay.wiki import CATEGORY_NS, SUMMARY_NS, Wiki
from wikihowqa.runtime.processes import stop_group

ROOT = Path(__file__).resolve().parents[2]
MEDIAWIKI_DIR = Path(os.environ.get("WIKIHOWQA_MEDIAWIKI_DIR", "/usr/share/mediawiki"))
# Resolved: the pywb commands run with the test's temporary folder as their working directory.
PHP = shutil.which("php") or "php"
#: A page the test wiki creates by an edit (so the page-creation log has an entry): title, target.
CREATED_REDIRECT = ("How to Make Fresh Coffee", "How to Brew Pour-Over Coffee")
#: Tables whose rows name a page by id (MediaWiki 1.39's schema): rewritten when a page gets its id.
_PAGE_ID_COLUMNS = (
    ("page", "page_id"),
    ("revision", "rev_page"),
    ("categorylinks", "cl_from"),
    ("pagelinks", "pl_from"),
    ("templatelinks", "tl_from"),
    ("imagelinks", "il_from"),
    ("externallinks", "el_from"),
    ("langlinks", "ll_from"),
    ("iwlinks", "iwl_from"),
    ("redirect", "rd_from"),
    ("page_props", "pp_page"),
    ("page_restrictions", "pr_page"),
    ("recentchanges", "rc_cur_id"),
    ("logging", "log_page"),
)


# --------------------------------------------------------------------------- MediaWiki


def mediawiki_missing() -> str | None:
    """Why Debian's MediaWiki cannot run here, or ``None``."""
    if not (MEDIAWIKI_DIR / "maintenance" / "install.php").is_file():
        return f"MediaWiki is not installed at {MEDIAWIKI_DIR} (apt-get install mediawiki)"
    if shutil.which(PHP) is None:
        return "php is not installed (apt-get install php-cli)"
    modules = subprocess.run([PHP, "-m"], capture_output=True, text=True).stdout.lower().split()
    missing = [m for m in ("pdo_sqlite", "mbstring", "xml", "intl") if m not in modules]
    if missing:
        return f"PHP lacks {', '.join(missing)} (apt-get install php-sqlite3 php-mbstring php-xml php-intl)"
    return None


def _xml_page(title: str, ns: int, revisions: list[tuple[str, str, str, str]]) -> str:
    """One ``<page>`` of an export dump: revisions as ``(timestamp, user, comment, wikitext)``."""
    revs = "".join(
        "<revision>"
        f"<timestamp>{escape(ts)}</timestamp>"
        f"<contributor><username>{escape(user)}</username></contributor>"
        f"<comment>{escape(comment)}</comment>"
        "<model>wikitext</model><format>text/x-wiki</format>"
        f'<text xml:space="preserve">{escape(text)}</text>'
        "</revision>"
        for ts, user, comment, text in revisions
    )
    return f"<page><title>{escape(title)}</title><ns>{ns}</ns>{revs}</page>\n"


def dump_xml(corpus: Corpus, *, summary_namespace: str = "Summary") -> tuple[str, dict[tuple[int, str], int]]:
    """The corpus as a MediaWiki export dump (schema 0.11), and the page id each title must get.

    The pages are the ones the replay site serves (:class:`~wikihowqa.replay.wiki.Wiki` derives the
    ``Summary:`` and ``Category:`` pages the corpus implies); every revision carries the page's current
    text, as the replay site replays it."""
    wiki = Wiki(corpus)
    pages = []
    ids: dict[tuple[int, str], int] = {}
    for page in sorted(wiki.by_id.values(), key=lambda p: p.pageid):
        title = wiki.title_of(page).prefixed
        if page.ns == SUMMARY_NS:
            title = f"{summary_namespace}:{wiki.title_of(page).text}"
        wikitext = page.wikitext
        if page.ns == CATEGORY_NS and wiki.is_hidden_category(wiki.title_of(page).text):
            wikitext = "__HIDDENCAT__\n" + wikitext
        if page.redirect is not None:
            wikitext = f"#REDIRECT [[{page.redirect}]]"
        elif page.ns != CATEGORY_NS and page.categories:
            # The replay site keeps categories beside the text; MediaWiki reads them from it.
            wikitext += "\n" + "".join(f"[[Category:{c}]]" for c in page.categories)
        revisions = [(r.timestamp, r.user, r.comment, wiki.content(page, r)) for r in page.revisions]
        revisions[-1] = (*revisions[-1][:3], wikitext)
        if page.ns != CATEGORY_NS:
            revisions = [(ts, user, comment, wikitext) for ts, user, comment, _ in revisions]
        pages.append(_xml_page(title, page.ns, revisions))
        if page.ns != CATEGORY_NS:
            ids[(page.ns, wiki.title_of(page).dbkey)] = page.pageid
    head = (
        '<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.11/" version="0.11" xml:lang="en">\n'
        f"<siteinfo><sitename>{escape(corpus.site.sitename)}</sitename><case>first-letter</case>"
        "<namespaces>"
        '<namespace key="0" case="first-letter" />'
        '<namespace key="14" case="first-letter">Category</namespace>'
        f'<namespace key="{SUMMARY_NS}" case="first-letter">{escape(summary_namespace)}</namespace>'
        "</namespaces></siteinfo>\n"
    )
    return head + "".join(pages) + "</mediawiki>\n", ids


class MediaWikiServer:
    """A stock MediaWiki holding a corpus, on 127.0.0.1; a context manager."""

    def __init__(self, corpus_dir: Path, workdir: Path, *, summary_namespace: str = "Summary") -> None:
        self.corpus_dir = Path(corpus_dir)
        self.workdir = Path(workdir)
        self.summary_namespace = summary_namespace
        self.port = free_port()
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_url(self) -> str:
        return f"{self.url}/api.php"

    @property
    def settings_file(self) -> Path:
        return self.workdir / "LocalSettings.php"

    def _php(self, *args: str) -> None:
        done = subprocess.run(
            [PHP, *args], cwd=MEDIAWIKI_DIR, capture_output=True, text=True, env=self._env(), timeout=600
        )
        if done.returncode != 0:
            raise RuntimeError(
                f"php {' '.join(args[:2])} failed: {done.stdout[-1500:]} {done.stderr[-1500:]}"
            )

    def _php_stdin(self, text: str, *args: str) -> None:
        done = subprocess.run(
            [PHP, *args],
            cwd=MEDIAWIKI_DIR,
            input=text,
            capture_output=True,
            text=True,
            env=self._env(),
            timeout=600,
        )
        if done.returncode != 0:
            raise RuntimeError(
                f"php {' '.join(args[:2])} failed: {done.stdout[-1500:]} {done.stderr[-1500:]}"
            )

    def _env(self) -> dict[str, str]:
        return {**os.environ, "MW_CONFIG_FILE": str(self.settings_file)}

    def install(self) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        data = self.workdir / "data"
        data.mkdir(exist_ok=True)
        self._php(
            "maintenance/install.php",
            "--dbtype=sqlite",
            f"--dbpath={data}",
            "--dbname=wiki",
            f"--confpath={self.workdir}",
            f"--server={self.url}",
            "--scriptpath=",
            f"--pass={secrets.token_urlsafe(16)}",
            "--skins=",
            "--quiet",
            load_corpus(self.corpus_dir).site.sitename,
            "Admin",
        )
        with self.settings_file.open("a", encoding="utf-8") as fh:
            fh.write(
                "\n# wikihowqa test wiki\n"
                f'$wgExtraNamespaces[{SUMMARY_NS}] = "{self.summary_namespace}";\n'
                f'$wgExtraNamespaces[{SUMMARY_NS + 1}] = "{self.summary_namespace}_talk";\n'
                "$wgNamespacesWithSubpages[NS_MAIN] = false;\n"
                "$wgMainCacheType = CACHE_NONE;\n$wgParserCacheType = CACHE_NONE;\n"
                "$wgJobRunRate = 0;\n$wgRateLimits = [];\n$wgShowExceptionDetails = true;\n"
                '$wgDefaultSkin = "fallback";\n'
            )
        corpus = load_corpus(self.corpus_dir)
        xml, ids = dump_xml(corpus, summary_namespace=self.summary_namespace)
        dump = self.workdir / "corpus.xml"
        dump.write_text(xml, encoding="utf-8")
        self._php("maintenance/importDump.php", "--no-local-users", str(dump))
        # The installer's Main Page is no article of the corpus.
        (self.workdir / "delete.txt").write_text("Main Page\n", encoding="utf-8")
        self._php(
            "maintenance/deleteBatch.php", "-r", "not part of the corpus", str(self.workdir / "delete.txt")
        )
        # One page created by an edit, as every wiki page since MediaWiki 1.x's creation log: imported
        # pages have no entry in it. A redirect, so no build reads it as an article.
        self._php_stdin(
            f"#REDIRECT [[{CREATED_REDIRECT[1]}]]",
            "maintenance/edit.php",
            "--summary=created",
            CREATED_REDIRECT[0],
        )
        self._php("maintenance/runJobs.php")
        self._renumber(data / "wiki.sqlite", ids)
        self._php("maintenance/initSiteStats.php", "--update")

    def _renumber(self, db_path: Path, ids: dict[tuple[int, str], int]) -> None:
        """Give each page the id the corpus names (MediaWiki's importer numbers pages itself)."""
        db = sqlite3.connect(db_path)
        try:
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            columns = [
                (t, c)
                for t, c in _PAGE_ID_COLUMNS
                if t in tables and c in {r[1] for r in db.execute(f"PRAGMA table_info({t})")}
            ]
            for (ns, dbkey), new_id in ids.items():
                row = db.execute(
                    "SELECT page_id FROM page WHERE page_namespace = ? AND page_title = ?", (ns, dbkey)
                ).fetchone()
                if row is None:
                    raise RuntimeError(f"the import lost page {ns}:{dbkey}")
                for table, column in columns:
                    db.execute(f"UPDATE {table} SET {column} = ? WHERE {column} = ?", (new_id, row[0]))
            for table in ("objectcache", "searchindex"):  # caches and the search index name old ids
                if table in tables:
                    db.execute(f"DELETE FROM {table}")
            db.commit()
        finally:
            db.close()

    def start(self) -> MediaWikiServer:
        self.install()

        def command(port: int) -> list[str]:
            if port != self.port:  # a new port (the chosen one was taken): the wiki's own address follows
                self._move_to(port)
            return [PHP, "-S", f"127.0.0.1:{port}", "-t", str(MEDIAWIKI_DIR)]

        # PHP's built-in server forks its workers (PHP_CLI_SERVER_WORKERS): its own process group, ended
        # whole (stopping only the first process left the workers serving, issue 26).
        self.port, self.process = start_listening(
            command,
            "/api.php?action=query&meta=siteinfo&format=json",
            self.workdir / "php-server.log",
            self.port,
            cwd=MEDIAWIKI_DIR,
            env={**self._env(), "PHP_CLI_SERVER_WORKERS": "4"},
        )
        return self

    def _move_to(self, port: int) -> None:
        """Point ``$wgServer`` (written by the installer) at ``port``."""
        settings = self.settings_file.read_text(encoding="utf-8")
        moved = settings.replace(f'"{self.url}"', f'"http://127.0.0.1:{port}"')
        if moved == settings:
            raise RuntimeError(f"{self.settings_file}: no $wgServer = {self.url!r} to move")
        self.settings_file.write_text(moved, encoding="utf-8")
        self.port = port

    def stop(self) -> None:
        stop_group(self.process)
        self.process = None

    def __enter__(self) -> MediaWikiServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main() -> None:  # pragma: no cover - a manual check: serve the demo corpus on both servers
    from wikihowqa.demo.paths import corpus_path

    work = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/realservers")
    with contextlib.ExitStack() as stack:
        wiki = stack.enter_context(MediaWikiServer(corpus_path(), work / "wiki"))
        archive = stack.enter_context(PywbServer(corpus_path(), work / "pywb"))
        print(wiki.api_url, archive.cdx_url, flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            while True:
                time.sleep(3600)


if __name__ == "__main__":  # pragma: no cover
    main()
