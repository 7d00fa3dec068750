"""Issue 27, item 2: each long stage killed with SIGKILL at a random point, then run again.

A fresh dataset folder goes through the stages again (``Size.chain("kill")``); build, parse, answer
dense+lead (the embedding cache) and evaluate are each killed once at a seeded random point of their work
— when a random share (20–80 %) of what the uninterrupted run stored is stored: responses, parsed pages,
passage vectors, scores — then rerun to the end. Each must end with
the uninterrupted run's bytes (``identity_files``) and must not do again what was done before the kill:

* build: the rerun asks the replay site at most (the uninterrupted run's requests − responses stored
  before the kill) requests: nothing stored is fetched again;
* parse: the rerun says it resumed every page the progress file held at the kill;
* answer dense+lead: the rerun embeds only passages the cache lacked at the kill (cache rows after −
  rows at the kill = passages it embedded; their sum equals the uninterrupted run's);
* evaluate: the score cache ends with exactly the uninterrupted run's number of scores (a score computed
  twice would be appended twice).

Stages between (split and the other answer systems) run uninterrupted. A failed check is printed in
capitals and makes ``paper_scale.py --kill-check`` exit 1.
"""

from __future__ import annotations

import random
import re
import shutil
from pathlib import Path

from benchmarks.paper_measure import checkout_commit, digest, run_measured
from benchmarks.paper_stages import (
    KILLED,
    STAGES,
    Results,
    Site,
    Size,
    _embedded,
    _lines,
    _responses,
    _valid_lines,
    identity_files,
    plan,
)


def _progress_rows(dataset: Path) -> int:
    return _valid_lines(dataset / ".parse-progress.jsonl")


def _resumed(log: Path) -> int | None:
    found = re.findall(r"\((\d+) resumed\)", log.read_text(encoding="utf-8", errors="replace"))
    return int(found[-1]) if found else None


def kill_check(base: Size, results: Results, seed: int, only: list[str] | None = None) -> bool:
    """Run the chain; record every check in ``results``; True when all passed.

    ``only``: check these stages alone (after a fix), each in a copy of the uninterrupted run's dataset
    folder as it stood before the stage (the stage's own output left out), with the seed's kill points."""
    missing = [s for s in STAGES if s != "corpus" and not results.stage(base, s)]
    if missing:
        raise SystemExit(
            f"the kill check at {base.label} needs the uninterrupted run first ({', '.join(missing)})"
        )
    unknown = sorted(set(only or ()) - set(KILLED[1:]))
    if unknown:
        raise SystemExit(f"--stage with --kill-check: {unknown[0]!r} is not one of {', '.join(KILLED[1:])}")
    references = _references(base, results) if not only else _stage_references(base, results)
    size = base.chain("kill")
    if size.dataset.parent.exists():
        shutil.rmtree(size.dataset.parent)
    if only:
        shutil.copytree(base.dataset, size.dataset, ignore=shutil.ignore_patterns("report", "build.sqlite*"))
    size.dataset.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    checks: dict[str, dict] = {}
    ok = True
    for stage in STAGES[1:]:
        if stage in ("stats", "export-hub"):
            continue
        if only and stage not in only:
            if stage in KILLED:
                rng.uniform(0.2, 0.8)  # the same kill point for a stage as in the whole chain
            continue
        reference = references[stage]
        if stage not in KILLED:
            cmd = plan(size, stage)[0]
            run = run_measured(cmd, size.logs / f"{stage}.log")
            if run.rc not in (0, 1):
                raise SystemExit(f"kill check: {stage} failed ({size.logs / (stage + '.log')})")
            continue
        share = rng.uniform(0.2, 0.8)
        check = _kill_and_rerun(size, stage, share, reference)
        check["share"] = share
        check["uninterrupted_s"] = reference["wall_s"]
        check["commit"] = checkout_commit()
        checks[stage] = check
        good = check["identical"] and check["not_redone"]
        ok &= good
        print(
            f"  kill check {stage}: killed after {check['killed_after_s']:.1f} s, "
            f"done before: {check['done']}; "
            f"redone: {check['redone']}; identical: {check['identical']}"
            + ("" if good else "  *** FAILED ***"),
            flush=True,
        )
        results.record_kill(base.label, checks)
    return ok


def _stage_references(base: Size, results: Results) -> dict[str, dict]:
    references = {stage: dict(results.stage(base, stage) or {}) for stage in STAGES[1:]}
    for stage in KILLED[1:]:
        references[stage]["digest"] = digest(*[p for p in identity_files(base, stage) if p.exists()])
    return references


def _references(base: Size, results: Results) -> dict[str, dict]:
    """What each stage's rerun is held to: the uninterrupted run's figures and the digest of its output
    — for build, of an uninterrupted build run now beside (the main folder's build output has since been
    rewritten by parse and split); for the others, of their output in the main folder, which is final."""
    references = _stage_references(base, results)
    side = base.chain("kill-reference")
    kept = results.data.get("kill_reference", {}).get(base.label)
    if kept and (side.dataset / "build.sqlite").is_file():  # made by an earlier try of this check
        print(f"  kill check: the reference build made earlier ({side.dataset})", flush=True)
        references["build"].update(kept)
        return references
    if side.dataset.parent.exists():
        shutil.rmtree(side.dataset.parent)
    side.dataset.mkdir(parents=True)
    with Site(side.corpus, side.logs) as site:
        before = site.requests()
        run = run_measured(plan(side, "build", site)[0], side.logs / "build.log")
        if run.rc != 0:
            raise SystemExit(f"kill check: the reference build failed ({side.logs / 'build.log'})")
        reference = {
            "digest": digest(*identity_files(side, "build")),
            "requests": site.requests() - before,
            "responses_stored": _responses(side.dataset),
            "wall_s": run.wall_s,
        }
    results.update(lambda data: data.setdefault("kill_reference", {}).__setitem__(base.label, reference))
    references["build"].update(reference)
    return references


def _kill_and_rerun(size: Size, stage: str, share: float, reference: dict) -> dict:
    log = size.logs / f"{stage}.log"
    if stage == "build":
        with Site(size.corpus, size.logs) as site:
            cmd = plan(size, stage, site)[0]
            r0 = site.requests()
            goal = share * reference["responses_stored"]
            killed = run_measured(cmd, log, kill_when=lambda: _responses(size.dataset) >= goal)
            stored = _responses(size.dataset)
            r1 = site.requests()
            rerun = run_measured(cmd, log)
            asked = site.requests() - r1
        before = r1 - r0
        check = {
            "done": f"{stored} responses stored ({before} requests before the kill)",
            "redone": f"{before + asked - reference['requests']} requests beyond the uninterrupted "
            f"{reference['requests']}"
            f" (rerun asked {asked}, allowed {reference['requests'] - stored})",
            "not_redone": asked <= reference["requests"] - stored,
        }
    elif stage == "parse":
        cmd = plan(size, stage)[0]
        goal = share * reference["units"]
        killed = run_measured(cmd, log, kill_when=lambda: _progress_rows(size.dataset) >= goal)
        held = _progress_rows(size.dataset)
        rerun = run_measured(cmd, log)
        resumed = _resumed(log)
        check = {
            "done": f"{held} pages in the progress file",
            "redone": f"{held - (resumed or 0)} pages (rerun resumed {resumed})",
            "not_redone": resumed == held,
        }
    elif stage == "answer-dense":
        cmd = plan(size, stage)[0]
        start_rows = _embedded(size.dataset)
        out = plan(size, stage)[2][0]
        goal = start_rows + share * reference["passages_embedded"]
        killed = run_measured(cmd, log, kill_when=lambda: _embedded(size.dataset) >= goal)
        rows = _embedded(size.dataset)
        answered = _valid_lines(out.with_name(out.name + ".partial"))
        rerun = run_measured(cmd, log)
        after = _embedded(size.dataset)
        embedded = after - start_rows
        text = log.read_text(encoding="utf-8", errors="replace")
        earlier = re.findall(r"answered now, (\d+) earlier", text)
        check = {
            "done": f"{rows - start_rows} passages embedded and cached, {answered} answers written",
            "redone": f"{embedded - reference['passages_embedded']} passages (cache grew {embedded}, "
            f"uninterrupted {reference['passages_embedded']}); rerun took "
            f"{earlier[-1] if earlier else '?'} answers as done",
            "not_redone": embedded == reference["passages_embedded"]
            and (not earlier or int(earlier[-1]) == answered),
        }
    elif stage == "evaluate":
        cmd = plan(size, stage)[0]
        cache = size.dataset / "report" / "scores-cache.jsonl"
        goal = share * reference["scores_cached"]
        killed = run_measured(cmd, log, kill_when=lambda: _valid_lines(cache) >= goal)
        held = _valid_lines(cache)
        rerun = run_measured(cmd, log)
        total = _valid_lines(cache)
        check = {
            "done": f"{held} scores cached",
            "redone": f"{total - reference['scores_cached']} scores (cache holds {total}, uninterrupted "
            f"{reference['scores_cached']})",
            "not_redone": total == reference["scores_cached"],
        }
    else:
        raise ValueError(stage)
    if rerun.rc not in (0, 1):
        raise SystemExit(f"kill check: the rerun of {stage} failed ({log})")
    same = digest(*[p for p in identity_files(size, stage) if p.exists()]) == reference["digest"]
    check.update(
        killed_after_s=killed.wall_s,
        was_killed=killed.killed,
        rerun_s=rerun.wall_s,
        identical=same,
        files=[p.name for p in identity_files(size, stage)],
        lines=sum(_lines(p) for p in identity_files(size, stage)),
    )
    if not killed.killed:
        check["not_redone"] = False
        check["redone"] = "NOT KILLED: the stage ended before the kill point"
    return check
