"""Decoding as a browser would, without mojibake: BOM, header, <meta>, then detection."""

from __future__ import annotations

import codecs

import pytest

from wikihowqa.parse.decode import codec_for, decode_html, header_charset, meta_charset

FRENCH = "Crème brûlée à la façon de grand-mère : « naïveté » et cœur — 15 €, s’il vous plaît."
JAPANESE = (
    "抹茶ラテの作り方。茶筅で抹茶をよく点ててから、温めた牛乳を注ぎます。甘さはお好みで調整してください。"
)


def page(body: str, head: str = "") -> str:
    return f"<html><head>{head}<title>t</title></head><body><p>{body}</p></body></html>"


def test_header_charset_windows_1252_without_meta():
    data = page(FRENCH).encode("cp1252")
    decoded = decode_html(data, {"Content-Type": "text/html; charset=windows-1252"})
    assert FRENCH in decoded.text and (decoded.encoding, decoded.source) == ("cp1252", "header")


def test_meta_charset_only():
    data = page(FRENCH, '<meta charset="windows-1252">').encode("cp1252")
    decoded = decode_html(data, {"Content-Type": "text/html"})
    assert FRENCH in decoded.text and decoded.source == "meta"


def test_meta_http_equiv_content_type():
    data = page(JAPANESE, '<meta http-equiv="Content-Type" content="text/html; charset=EUC-JP">').encode(
        "euc_jp"
    )
    assert JAPANESE in decode_html(data).text


def test_iso_8859_1_label_decodes_as_windows_1252_like_browsers():
    # curly quotes and the euro sign exist only in windows-1252; latin-1 would give C1 control characters
    data = page("“quoted” 5 €").encode("cp1252")
    text = decode_html(data, {"content-type": "text/html; charset=ISO-8859-1"}).text
    assert "“quoted” 5 €" in text


def test_undeclared_shift_jis_is_detected():
    decoded = decode_html(page(JAPANESE * 3).encode("shift_jis"))
    assert JAPANESE in decoded.text and decoded.source == "detected"


def test_undeclared_windows_1252_is_not_read_as_central_european():
    decoded = decode_html(page(FRENCH * 4).encode("cp1252"))
    assert FRENCH in decoded.text


def test_utf8_page_mislabelled_latin1_by_the_server_is_read_as_utf8():
    data = page(FRENCH).encode("utf-8")
    decoded = decode_html(data, {"Content-Type": "text/html; charset=iso-8859-1"})
    assert FRENCH in decoded.text and decoded.encoding == "utf-8"


def test_declared_utf8_that_is_not_falls_through_to_detection():
    data = page(FRENCH * 4, '<meta charset="utf-8">').encode("cp1252")
    assert FRENCH in decode_html(data).text


def test_a_few_broken_bytes_do_not_turn_a_utf8_page_into_mojibake():
    data = page(FRENCH * 5).encode("utf-8") + b"<p>stray \x92 byte</p>"
    text = decode_html(data).text
    assert FRENCH in text and "\ufffd" in text


def test_byte_order_mark_outranks_a_wrong_header():
    data = codecs.BOM_UTF8 + page(FRENCH).encode("utf-8")
    decoded = decode_html(data, {"Content-Type": "text/html; charset=windows-1252"})
    assert FRENCH in decoded.text and decoded.source == "bom"


def test_utf16_with_bom():
    decoded = decode_html(page(JAPANESE).encode("utf-16"))
    assert JAPANESE in decoded.text and decoded.encoding.startswith("utf-16")


def test_unknown_label_is_ignored():
    data = page(FRENCH).encode("utf-8")
    decoded = decode_html(data, {"Content-Type": "text/html; charset=klingon-8"})
    assert FRENCH in decoded.text


def test_truncated_utf8_in_the_middle_of_a_character_is_still_utf8():
    data = page(FRENCH).encode("utf-8") + "é".encode()[:1]
    assert decode_html(data).encoding == "utf-8"


@pytest.mark.parametrize(
    ("label", "codec"),
    [
        ("ISO-8859-1", "cp1252"),
        ("us-ascii", "cp1252"),
        ("Shift_JIS", "cp932"),
        ("x-sjis", "cp932"),
        ("gb2312", "gb18030"),
        ("UTF8", "utf-8"),
        ("nonsense", None),
        (None, None),
    ],
)
def test_labels_map_to_the_codec_browsers_use(label, codec):
    assert codec_for(label) == codec


def test_charset_is_read_from_header_and_meta():
    assert header_charset({"content-type": 'text/html; charset="EUC-JP"'}) == "EUC-JP"
    assert header_charset({"Content-Type": "text/html"}) is None
    assert meta_charset(b"<html><head><meta charset=shift_jis></head>") == "shift_jis"
    assert meta_charset(b'<?xml version="1.0" encoding="ISO-8859-15"?><html>') == "ISO-8859-15"


def test_utf8_saved_after_a_windows_1252_misreading_is_read_again():
    once = "we’ll pay 15 € — “today”, ©"
    mangled = once.encode("utf-8").decode("cp1252", "wikihowqa-c1")  # "weâ€™ll pay 15 â‚¬ â€” ..."
    assert decode_html(page(mangled).encode("utf-8")).text.count(once) == 1
    twice = mangled.encode("utf-8").decode("cp1252", "wikihowqa-c1")  # "weÃ¢â‚¬â„¢ll ..."
    assert once in decode_html(page(twice).encode("utf-8")).text


def test_text_that_merely_looks_like_mojibake_is_left_alone():
    for text in (FRENCH, "Grüß’ dich", "à « voilà »", "Ç’est", "“NÃO”", "Mädchen — 15 °C", JAPANESE):
        assert text in decode_html(page(text).encode("utf-8")).text
