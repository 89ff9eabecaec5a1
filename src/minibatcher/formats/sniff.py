"""The content rules of :mod:`minibatcher.formats.detect`, one function per format.

Each rule looks at the first bytes of a file (:data:`HEAD`) and returns a
reason when the content proves its format, else ``None``; :func:`by_content`
tries them in order and keeps what each said for the error message.

Example:
    >>> v = Verdict.of_text(b"hello world\\n")
    >>> v.format, v.strong
    ('text', False)
"""

from __future__ import annotations

import re
import struct
import zlib
from dataclasses import dataclass, field

import numpy as np

from .guarded_file import GuardedFile

#: Bytes read from the start of a file to tell its format.
HEAD = 1 << 16
_LINES = 200
_CTF_LINE = re.compile(r"^[ \t]*(\d+[ \t]*)?\|")
_CONFIG = re.compile(r"(?im)^[ \t]*(reader[ \t]*=[ \t]*[\[{(]|readerType[ \t]*="
                     r"|deserializers[ \t]*=)")
_SCP_RANGE = re.compile(r"^[^=\s]+=\S+\[\d+,\d+\]$")
_SCP_NAMED = re.compile(r"^[^=\s]+=\S+$")
_FEATURE_FILE = re.compile(r"\.(htk|mfc|mfcc|fbank|plp|chunk|feat|fea)$", re.IGNORECASE)


@dataclass
class Verdict:
    """``format`` (None: none), whether the content proves it (``strong``), why,
    and what each rule that failed said (``tried``)."""

    format: str | None = None
    strong: bool = False
    reason: str = ""
    tried: list[str] = field(default_factory=list)

    @classmethod
    def of_text(cls, head: bytes, complete: bool = True) -> "Verdict":
        """The verdict of the text rules alone (MLF, CTF, config, SCP, text).

        Example:
            >>> Verdict.of_text(b"u1=a.htk[0,9]\\n").format
            'scp'
        """
        verdict = cls()
        _text_rules(head, complete, verdict)
        return verdict


def compression_of(head: bytes) -> str:
    """``"GZIP"``, ``"ZLIB"`` or ``""`` by the first bytes of a stream.

    Example:
        >>> import gzip, zlib
        >>> [compression_of(h) for h in (gzip.compress(b"x"), zlib.compress(b"x"), b"ab")]
        ['GZIP', 'ZLIB', '']
    """
    if head[:2] == b"\x1f\x8b":
        return "GZIP"
    if len(head) > 1 and head[0] == 0x78 and (head[0] << 8 | head[1]) % 31 == 0:
        return "ZLIB"
    return ""


def tfrecord_compression(path: str) -> str:
    """The compression of a TFRecord file (``""`` for a plain one), by its first bytes.

    Example:
        >>> import tempfile, pathlib
        >>> from minibatcher.formats.tfrecord import TFRecordWriter
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "r.tfrecord.gz"
        >>> with TFRecordWriter(p, "GZIP") as w: w.write(b"record")
        >>> tfrecord_compression(str(p))
        'GZIP'
    """
    head = _head(path)
    kind = compression_of(head)
    return kind if kind and _tfrecord(head) else ""


def _head(path: str) -> bytes:
    with GuardedFile(path, what="file") as f:
        return bytes(f.read(0, min(f.size, HEAD)))


def _tfrecord(head: bytes) -> str | None:
    """The first frame's length CRC matches (after inflating GZIP/ZLIB)."""
    from .tfrecord.crc import masked_crc32c

    how = ""
    if compression_of(head):
        try:
            head, how = zlib.decompressobj(47).decompress(head, 12), "compressed, "
        except zlib.error:
            return None
    if len(head) < 12 or struct.unpack("<I", head[8:12])[0] != masked_crc32c(head[:8]):
        return None
    return f"{how}the first record's length CRC matches (TFRecord framing)"


def _htk(f: GuardedFile) -> str | None:
    """The header is valid and accounts for every byte of the file."""
    from .htk.backend import backend
    from .htk.codes import HAS_CRC, HeaderIssue

    h = backend("native").read_headers(np.array([f.fileno()]), np.array([f.size]), False)
    if int(h["issue"][0]) != HeaderIssue.NONE:
        return None
    exact = int(h["data_start"][0]) + int(h["samples"][0]) * int(h["sample_size"][0]) + (
        2 if int(h["kind"][0]) & HAS_CRC else 0)
    if exact != f.size:
        return None
    return (f"an HTK header for {int(h['samples'][0])} frames of {int(h['dim'][0])} values, "
            "which accounts for every byte of the file")


def _lines(text: str, complete: bool) -> list[str]:
    lines = text.splitlines()
    if not complete and len(lines) > 1:
        lines = lines[:-1]  # the last line read may be cut (a first line is judged by its start)
    return [line for line in lines[:_LINES] if line.strip()]


def _scp(lines: list[str]) -> tuple[bool, bool]:
    """(every line looks like an SCP line, some line proves it)."""
    tokens = [line.strip() for line in lines]
    if not tokens or any(len(t.split()) != 1 for t in tokens):
        return False, False
    ranged = [bool(_SCP_RANGE.match(t)) for t in tokens]
    named = [bool(_SCP_NAMED.match(t)) for t in tokens]
    files = [bool(_FEATURE_FILE.search(t.split("=")[-1].split("[")[0])) for t in tokens]
    proof = any(ranged) or (all(named) and any(files)) or all(files)
    return True, proof


def _text_rules(head: bytes, complete: bool, v: Verdict) -> None:
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    text = head.decode("utf-8", errors="replace")
    bad = text.count("\ufffd") - head.decode("utf-8", errors="ignore").count("\ufffd")
    if bad > max(1, len(text) // 100):  # more than a few stray bytes: not text
        v.tried.append(f"text ({bad} bytes of the first {len(head)} are not UTF-8)")
        return
    if "\x00" in text:
        v.tried.append(f"text (a NUL byte at {text.index(chr(0))}: binary data)")
        return
    first = text.lstrip().split("\n", 1)[0].strip()
    lines = _lines(text, complete)
    if first == "#!MLF!#":
        v.format, v.strong, v.reason = "mlf", True, "the first line is #!MLF!#"
    elif lines and all(_CTF_LINE.match(line) for line in lines):
        v.format, v.strong = "ctf", True
        v.reason = "every line is '[id] |name values' (CNTK text format)"
    elif _CONFIG.search(text):
        v.format, v.strong, v.reason = "config", True, "it assigns a reader section (CNTK config)"
    else:
        looks, proof = _scp(lines)
        if proof:
            v.format, v.strong = "scp", True
            v.reason = "every line names a feature file (name=path[start,end])"
        elif looks:
            v.format = "text"
            v.reason = "UTF-8 text, one token per line (an SCP list when named *.scp)"
        else:
            v.format, v.reason = "text", "UTF-8 text that is none of the structured formats"
    if v.format != "mlf":
        v.tried.append("MLF (the first line is not #!MLF!#)")
    if v.format not in ("ctf", "mlf"):
        v.tried.append("CTF (not every line is '[id] |name values')")


def by_content(path: str) -> Verdict:
    """Tries every content rule on ``path`` (a regular file).

    Example:
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "x"; _ = p.write_bytes(b"")
        >>> by_content(str(p)).tried
        ['content (the file is empty)']
    """
    v = Verdict()
    with GuardedFile(path, what="file") as f:
        if f.size == 0:
            v.tried.append("content (the file is empty)")
            return v
        head = bytes(f.read(0, min(f.size, HEAD)))
        reason = _tfrecord(head)
        if reason is None:
            v.tried.append("TFRecord (the first frame's length CRC does not match)")
            reason = _htk(f) if f.size >= 12 else None
            if reason is None:
                v.tried.append("HTK (the header does not account for the file's size)")
                _text_rules(head, len(head) == f.size, v)
                return v
            v.format = "htk"
        else:
            v.format = "tfrecord"
    v.strong, v.reason = True, reason
    return v


__all__ = ["HEAD", "Verdict", "by_content", "compression_of", "tfrecord_compression"]
