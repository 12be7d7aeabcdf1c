"""Uploaded files as WordPress sees them: allowed types, content sniffing, sizes, file names.

``check_type`` is ``wp_check_filetype_and_ext`` for the types core allows an editor: images (PNG,
JPEG, GIF, WebP, ICO), text (txt, csv, tsv, ics, vtt, css), PDF, office documents, archives,
audio and video. The extension must be allowed; images must really be images (an image with the
wrong extension is renamed, as core does); a PDF must start like one and a text file must be text.
``dimensions`` reads width and height from an image's header (PNG IHDR, GIF, JPEG SOF, WebP
VP8/VP8L/VP8X); ``sub_sizes`` lists the intermediate sizes core would generate for such an image.
``sanitize_file_name`` is core's: accents removed, special characters dropped (``/`` too: a raw
upload's ``../../x.png`` becomes ``x.png`` glued to what preceded it), spaces to dashes, and an
inner extension core does not allow gets an ``_`` (``a.php.png`` -> ``a.php_.png``).

What it deliberately does not do: decode pixels, scale big images (``-scaled``), sniff office,
archive or media formats (their extension decides), or SVG and HTML (not allowed by default).
"""

from __future__ import annotations

import re
import struct
import unicodedata

__all__ = ["check_type", "dimensions", "remove_accents", "sanitize_file_name", "sniff", "sub_sizes"]

ALLOWED = {"png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "jpe": "image/jpeg",
           "gif": "image/gif", "webp": "image/webp", "ico": "image/x-icon",
           "txt": "text/plain", "asc": "text/plain", "c": "text/plain", "cc": "text/plain", "h": "text/plain",
           "srt": "text/plain", "csv": "text/csv", "tsv": "text/tab-separated-values", "ics": "text/calendar",
           "rtx": "text/richtext", "css": "text/css", "vtt": "text/vtt", "pdf": "application/pdf",
           "doc": "application/msword", "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
           "xls": "application/vnd.ms-excel", "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
           "ppt": "application/vnd.ms-powerpoint",
           "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
           "odt": "application/vnd.oasis.opendocument.text", "zip": "application/zip", "gz": "application/x-gzip",
           "tar": "application/x-tar", "rar": "application/rar", "7z": "application/x-7z-compressed",
           "mp3": "audio/mpeg", "m4a": "audio/mpeg", "wav": "audio/wav", "ogg": "audio/ogg",
           "mp4": "video/mp4", "m4v": "video/mp4", "mov": "video/quicktime", "webm": "video/webm"}
_EXT_FOR = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}
_SPECIAL = set("?[]/\\=<>:;,'\"&$#*()|~`!{}%+\x00\u2019\u00ab\u00bb\u201d\u201c")
# (name, width, height, crop) as registered by a default 6.x install.
_SIZES = (("thumbnail", 150, 150, True), ("medium", 300, 300, False), ("medium_large", 768, 0, False),
          ("large", 1024, 1024, False), ("1536x1536", 1536, 1536, False), ("2048x2048", 2048, 2048, False))
_LIGATURES = {"\u00df": "s", "\u00e6": "ae", "\u00c6": "AE", "\u0153": "oe", "\u0152": "OE", "\u00f8": "o",
              "\u00d8": "O", "\u0111": "d", "\u0110": "D", "\u0142": "l", "\u0141": "L", "\u00fe": "th", "\u00f0": "d"}
_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def sniff(data: bytes) -> str | None:
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def remove_accents(text: str) -> str:
    """Latin letters lose their accents (``café`` -> ``cafe``); other scripts are kept as they are."""
    out = []
    for char in text:
        if ord(char) < 0x80 or not unicodedata.name(char, "").startswith("LATIN"):
            out.append(char)
            continue
        base = unicodedata.normalize("NFKD", char).encode("ascii", "ignore").decode("ascii")
        out.append(base or _LIGATURES.get(char, ""))
    return "".join(out)


def sanitize_file_name(name: str) -> str:
    """Core's ``sanitize_file_name`` (6.1)."""
    name = remove_accents(name).replace("\u00a0", " ")
    name = "".join(c for c in name if c not in _SPECIAL)
    name = name.replace("%20", "-").replace("+", "-")
    name = re.sub(r"\.{2,}", ".", name)
    name = re.sub(r"[\r\n\t -]+", "-", name).strip(".-_")
    parts = name.split(".")
    if len(parts) <= 2:
        return name
    out = parts[0]
    for part in parts[1:-1]:  # an inner extension core does not allow is defused with "_"
        out += "." + part + ("_" if re.fullmatch(r"[a-zA-Z]{2,5}\d?", part) and part.lower() not in ALLOWED else "")
    return f"{out}.{parts[-1]}"


def check_type(filename: str, data: bytes) -> tuple[str, str] | None:
    """(final file name, MIME type), or None: "Sorry, you are not allowed to upload this file type." """
    stem, dot, ext = filename.rpartition(".")
    if not dot or not stem or ext.lower() not in ALLOWED:
        return None
    claimed = ALLOWED[ext.lower()]
    if claimed.startswith("image/") and claimed != "image/x-icon":
        real = sniff(data)
        if real is None:
            return None
        if real != claimed:
            return f"{stem}.{_EXT_FOR[real]}", real
        return filename, real
    if claimed == "application/pdf" and not data.startswith(b"%PDF-"):
        return None
    if claimed.startswith("text/") and (b"\x00" in data or not _is_text(data)):
        return None
    return filename, claimed


def _is_text(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def dimensions(data: bytes, mime: str) -> tuple[int, int]:
    """(width, height) from the header, (0, 0) when it cannot be read."""
    try:
        if mime == "image/png" and data[12:16] == b"IHDR":
            width, height = struct.unpack(">II", data[16:24])
            return int(width), int(height)
        if mime == "image/gif":
            width, height = struct.unpack("<HH", data[6:10])
            return int(width), int(height)
        if mime == "image/jpeg":
            return _jpeg_dimensions(data)
        if mime == "image/webp":
            return _webp_dimensions(data)
    except struct.error:
        pass
    return 0, 0


def _jpeg_dimensions(data: bytes) -> tuple[int, int]:
    index = 2
    while index + 9 <= len(data):  # bounded: every step advances by at least one byte
        if data[index] != 0xFF:
            index += 1
            continue
        marker = data[index + 1]
        if marker in _SOF:
            height, width = struct.unpack(">HH", data[index + 5:index + 9])
            return int(width), int(height)
        (length,) = struct.unpack(">H", data[index + 2:index + 4])
        index += 2 + max(int(length), 1)
    return 0, 0


def _webp_dimensions(data: bytes) -> tuple[int, int]:
    chunk = data[12:16]
    if chunk == b"VP8X":
        return 1 + int.from_bytes(data[24:27], "little"), 1 + int.from_bytes(data[27:30], "little")
    if chunk == b"VP8 ":
        width, height = struct.unpack("<HH", data[26:30])
        return int(width) & 0x3FFF, int(height) & 0x3FFF
    if chunk == b"VP8L":
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    return 0, 0


def sub_sizes(width: int, height: int) -> dict[str, tuple[int, int]]:
    """The intermediate sizes core makes: only those smaller than the original."""
    sizes: dict[str, tuple[int, int]] = {}
    if width <= 0 or height <= 0:
        return sizes
    for name, max_w, max_h, crop in _SIZES:
        if crop:
            if width <= max_w and height <= max_h:
                continue
            size = (min(max_w, width), min(max_h, height))
        else:
            ratios = [r for r in (max_w / width if max_w else 0, max_h / height if max_h else 0) if r]
            ratio = min(ratios)
            if ratio >= 1:
                continue
            size = (max(1, round(width * ratio)), max(1, round(height * ratio)))
        if size != (width, height):
            sizes[name] = size
    return sizes
