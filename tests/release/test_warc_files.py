"""``hydrate --from-warc`` on WARC files that cannot be read to their end: refused in one line that names
the file and the byte offset of the damaged record or gzip member, never a rebuild that reads as whole.

The WARC file is written by a hydration of the three real instances from the replay site; each test damages
a copy. The expected offsets are read off the undamaged file with warcio, independently of the checks."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

from tests.collect.scripted_server import fast_settings
from wikihowqa.collect.archive_settings import ArchiveSettings
from wikihowqa.core.errors import DatasetError
from wikihowqa.release.hydrate import HydrateSettings, hydrate
from wikihowqa.release.importer import import_release
from wikihowqa.release.warc_files import WARC_FILE
from wikihowqa.replay import ReplaySite
from wikihowqa.replay.release_pages import archive_corpus, release_captures

OFFLINE = HydrateSettings(archive=ArchiveSettings(playback_url="http://127.0.0.1:9/nothing/"))


@pytest.fixture(scope="module")
def written(real_examples_dir: Path, tmp_path_factory: pytest.TempPathFactory):
    """A hydration's WARC file, and the offsets of its records (each a gzip member of its own)."""
    from warcio.archiveiterator import ArchiveIterator

    root = tmp_path_factory.mktemp("warc-written")
    documents = [json.loads(x) for x in (real_examples_dir / "documents.jsonl").read_text().splitlines()]
    with ReplaySite(corpus=archive_corpus(release_captures(documents))) as site:
        dataset = root / "ds"
        import_release([real_examples_dir / "qa.jsonl"], [], dataset)
        settings = HydrateSettings(ArchiveSettings(wayback_url=site.wayback_url), http=fast_settings())
        hydrate(dataset, settings, warc_dir=root / "warc")
    path = root / "warc" / WARC_FILE
    with path.open("rb") as fh:
        records = ArchiveIterator(fh)
        offsets = [records.get_record_offset() for _ in records]
    return path, offsets


def _rebuild(real_examples_dir: Path, tmp_path: Path, warc: Path) -> None:
    dataset = tmp_path / "rebuilt"
    if not dataset.exists():
        import_release([real_examples_dir / "qa.jsonl"], [], dataset)
    hydrate(dataset, OFFLINE, from_warc=warc)


def _copy(written, tmp_path: Path, name: str = WARC_FILE) -> Path:
    (tmp_path / "warc").mkdir()
    return Path(shutil.copyfile(written[0], tmp_path / "warc" / name))


def test_the_undamaged_file_rebuilds_all_sixteen_documents(written, real_examples_dir, tmp_path):
    _rebuild(real_examples_dir, tmp_path, _copy(written, tmp_path).parent)
    assert len((tmp_path / "rebuilt" / "documents.jsonl").read_text().splitlines()) == 16


def test_a_file_cut_to_two_thirds_is_named_with_the_member_it_ends_in(written, real_examples_dir, tmp_path):
    path, offsets = written
    copy = _copy(written, tmp_path)
    cut = path.stat().st_size * 2 // 3
    copy.write_bytes(path.read_bytes()[:cut])
    member = max(o for o in offsets if o < cut)
    with pytest.raises(DatasetError) as caught:
        _rebuild(real_examples_dir, tmp_path, copy.parent)
    assert str(caught.value) == (
        f"{copy}: damaged at byte {member:,} (the file ends inside a gzip member: cut short); "
        "the WARC file cannot be read to its end"
    )
    manifest = json.loads((tmp_path / "rebuilt" / "manifest.json").read_text())
    assert "hydrate" not in manifest and not (tmp_path / "rebuilt" / "hydration" / "status.jsonl").exists()


def test_an_uncompressed_file_cut_inside_a_record_is_named_with_that_record(
    written, real_examples_dir, tmp_path
):
    from warcio.archiveiterator import ArchiveIterator

    plain = tmp_path / "plain.warc"
    plain.write_bytes(gzip.decompress(written[0].read_bytes()))
    with plain.open("rb") as fh:
        records = ArchiveIterator(fh)
        starts = [(records.get_record_offset(), r.rec_type) for r in records]
    (tmp_path / "warc").mkdir()
    copy = tmp_path / "warc" / "hydration.warc"
    cut = starts[len(starts) // 2][0] + 200  # 200 bytes into the middle record
    copy.write_bytes(plain.read_bytes()[:cut])
    offset, kind = starts[len(starts) // 2]
    with pytest.raises(DatasetError, match=rf"damaged at byte {offset:,} \(a {kind} record cut short\)"):
        _rebuild(real_examples_dir, tmp_path, copy.parent)


def test_an_empty_file_and_text_named_warc_gz_are_refused(written, real_examples_dir, tmp_path):
    copy = _copy(written, tmp_path)
    copy.write_bytes(b"")
    with pytest.raises(DatasetError) as caught:
        _rebuild(real_examples_dir, tmp_path, copy.parent)
    assert str(caught.value) == f"{copy}: an empty file (0 bytes), not a WARC file"
    copy.write_text("These are notes, not a WARC file.\n", encoding="utf-8")
    with pytest.raises(DatasetError) as caught:
        _rebuild(real_examples_dir, tmp_path, copy.parent)
    assert str(caught.value).startswith(f"{copy}: damaged at byte 0 (not gzip data, though the name ends in")


def test_a_corrupted_gzip_member_is_named_by_its_offset_without_raw_bytes(
    written, real_examples_dir, tmp_path
):
    path, offsets = written
    ends = [*offsets[1:], path.stat().st_size]
    start, end = max(zip(offsets, ends, strict=True), key=lambda m: m[1] - m[0])  # the largest member
    data = bytearray(path.read_bytes())
    middle = (start + end) // 2
    data[middle : middle + 64] = bytes(255 - b for b in data[middle : middle + 64])
    copy = _copy(written, tmp_path)
    copy.write_bytes(bytes(data))
    with pytest.raises(DatasetError) as caught:
        _rebuild(real_examples_dir, tmp_path, copy.parent)
    message = str(caught.value)
    assert message.startswith(f"{copy}: damaged at byte {start:,} (a corrupted gzip member: ")
    assert message.isprintable() and message.isascii()


def test_a_file_cut_after_a_response_record_is_refused(written, real_examples_dir, tmp_path):
    """Cut between records (each a whole gzip member), the file still lacks the response's metadata."""
    from warcio.archiveiterator import ArchiveIterator

    path, offsets = written
    with path.open("rb") as fh:
        kinds = [r.rec_type for r in ArchiveIterator(fh)]
    last_response = max(i for i, kind in enumerate(kinds) if kind == "response")
    copy = _copy(written, tmp_path)
    copy.write_bytes(path.read_bytes()[: offsets[last_response + 1]])
    with pytest.raises(DatasetError, match="ends with a response record and no metadata record after it"):
        _rebuild(real_examples_dir, tmp_path, copy.parent)


def test_an_uncompressed_file_with_changed_bytes_fails_the_digest_of_their_record(
    written, real_examples_dir, tmp_path
):
    """Same length, other bytes: only the record's digest (WARC-Block-Digest) can tell."""
    from warcio.archiveiterator import ArchiveIterator

    data = bytearray(gzip.decompress(written[0].read_bytes()))
    (tmp_path / "warc").mkdir()
    copy = tmp_path / "warc" / "hydration.warc"
    copy.write_bytes(bytes(data))
    with copy.open("rb") as fh:
        records = ArchiveIterator(fh)
        responses = [records.get_record_offset() for r in records if r.rec_type == "response"]
    where = data.index(b"<body", responses[3])  # inside the fourth response's payload
    data[where + 1 : where + 5] = b"BODY"
    copy.write_bytes(bytes(data))
    with pytest.raises(DatasetError, match=rf"damaged at byte {responses[3]:,} \(block digest failed: sha1:"):
        _rebuild(real_examples_dir, tmp_path, copy.parent)
