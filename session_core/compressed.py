"""Reading zstd-compressed transcripts (Codex compresses idle rollouts to ``.jsonl.zst``).

A file is compressed when its first bytes are the zstd magic, whatever its name; it is
decompressed as it is read, in bounded pieces, and never written. The decompressor
accepts a stream cut short without a word, so the frame structure is checked when the
stream ends. A truncated or corrupt file gives the bytes decompressed before the damage,
then raises ``CompressedReadError`` (an ``OSError``, so every reader that already words
an unreadable file as a ``TranscriptError`` does so here too) where its end would be:
a reader reads the lines the damage left, as a plain file's read that fails half way.
"""

from __future__ import annotations

import errno
import io
import os
from typing import IO, Any

from .reader import open_regular

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_PIECE = 1 << 20  # decompressed bytes asked for at a time: the memory bound per read


class CompressedReadError(OSError):
    """A compressed transcript that cannot be decompressed whole (truncated or corrupt)."""

    def __init__(self, why: str) -> None:
        super().__init__(errno.EIO, why)


def is_zstd(head: bytes) -> bool:
    return head[:4] == ZSTD_MAGIC


def open_maybe_compressed(path: str | os.PathLike[str]) -> IO[bytes]:
    """``open_regular``, decompressing a zstd file transparently (same ``OSError``s)."""
    return maybe_decompress(open_regular(path))


def file_read(path: str | bytes | os.PathLike[str] | os.PathLike[bytes]) -> str:
    """The file a reader of ``path`` reads: ``path``, or, where it is not there, the
    compressed copy Codex leaves in its place (``NAME.jsonl.zst`` for ``NAME.jsonl``)."""
    where = os.fsdecode(path)
    packed = where + ".zst"
    if where.endswith(".jsonl") and not os.path.lexists(where) and os.path.exists(packed):
        return packed
    return where


def packed_twin(path: str) -> str | None:
    """The other name of one transcript, compressed or not: ``NAME.jsonl.zst`` for
    ``NAME.jsonl`` and back (one compressed or unpacked in place: ``zstd --rm``, ``zstd
    -d --rm``); None for any other name."""
    if path.endswith(".jsonl"):
        return path + ".zst"
    return path.removesuffix(".zst") if path.endswith(".jsonl.zst") else None


def is_compressed_file(path: str | os.PathLike[str]) -> bool:
    """Does this file start with the zstd magic? (False when it cannot be read.)"""
    try:
        with open_regular(path) as fh:
            return is_zstd(fh.read(4))
    except OSError:
        return False


def maybe_decompress(fh: IO[bytes]) -> IO[bytes]:
    """``fh`` itself, or a reader of its decompressed bytes when it is zstd (takes it over)."""
    try:
        head = fh.read(4)
        fh.seek(0)
    except BaseException:
        fh.close()
        raise
    if not is_zstd(head):
        return fh
    return _Unpacked(_ZstdRaw(fh), buffer_size=1 << 16)


class _Unpacked(io.BufferedReader):
    """A zstd file's decompressed bytes, buffered. A damaged stream's bytes before the
    damage are read as they come; the read that finds the end then raises the damage
    instead of giving nothing (the buffered reader drops what a read gathered when the
    raw read under it raises, so the raw read ends there and says why afterwards):
    a reader that reads to the end (until a read gives nothing) gets every line the
    damage left, then the error."""

    raw: _ZstdRaw

    def _at_end(self) -> None:
        if self.raw.error is not None:
            raise CompressedReadError(self.raw.error)

    def read(self, size: int | None = -1, /) -> bytes:
        got = super().read(size)
        if not got and size != 0:
            self._at_end()
        return got

    def read1(self, size: int = -1, /) -> bytes:
        got = super().read1(size)
        if not got and size != 0:
            self._at_end()
        return got

    def readline(self, size: int | None = -1, /) -> bytes:
        got = super().readline(size)
        if not got and size != 0:
            self._at_end()
        return got

    def readinto(self, buffer: Any, /) -> int:
        got = super().readinto(buffer)
        if not got and len(memoryview(buffer)):
            self._at_end()
        return got

    def readinto1(self, buffer: Any, /) -> int:
        got = super().readinto1(buffer)
        if not got and len(memoryview(buffer)):
            self._at_end()
        return got


class _ZstdRaw(io.RawIOBase):
    """The decompressed bytes of a zstd file, frame after frame, checked whole at the end;
    a damaged stream ends where the damage is, ``error`` saying why (``_Unpacked`` raises it)."""

    def __init__(self, fh: IO[bytes]) -> None:
        super().__init__()
        try:
            import zstandard
        except ImportError as err:  # pragma: no cover - a declared dependency
            fh.close()
            raise CompressedReadError("zstd-compressed, and zstandard is not installed") from err
        self._fh = fh
        self._errors: tuple[type[BaseException], ...] = (zstandard.ZstdError,)
        self._stream: Any = zstandard.ZstdDecompressor().stream_reader(
            fh, read_across_frames=True, closefd=False
        )
        self._done = False
        self.error: str | None = None  # why the stream ended early: truncated, or corrupt

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self._done:
            return 0
        view = memoryview(buffer).cast("B")
        try:  # (``read1``: one decompression at a time, so that what came before a
            # corrupt block is handed on first; ``read`` dropped it with the error)
            data: bytes = self._stream.read1(min(len(view), _PIECE))
        except self._errors as err:
            self._done = True
            self.error = corrupt_words(str(err))
            return 0
        if not data:
            self._done = True
            self.error = frame_problem(self._fh)
            return 0
        view[: len(data)] = data
        return len(data)

    def close(self) -> None:
        if not self.closed:
            try:
                self._stream.close()
            finally:
                self._fh.close()
        super().close()


def corrupt_words(said: str) -> str:
    """What a decompression error means for the file, in words of the file: zstandard's
    own ("Destination buffer is too small", "Data corruption detected") read as a fault
    of tailscope's, and said nothing of the file."""
    if "checksum" in said.lower():
        return "a corrupt zstd stream: what it decompresses to fails its checksum (damaged)"
    return "a corrupt zstd stream: its compressed data is damaged, and cannot be decompressed"


def unpack_whole(fd: int) -> tuple[bytes, str | None] | None:
    """The decompressed bytes of the zstd file open as ``fd`` (None: not zstd), and why
    a damaged one (cut short, corrupt) goes no further than they do: `` past line N: …``
    (None: whole). What ``peek`` shows of it, then its error."""
    if not is_zstd(os.pread(fd, 4, 0)):
        return None
    got: list[bytes] = []
    damage = None
    os.lseek(fd, 0, os.SEEK_SET)  # (a copy shares the offset: unpacked before, at the end)
    with maybe_decompress(os.fdopen(os.dup(fd), "rb")) as fh:
        try:
            while piece := fh.read():  # (to its end: where a damaged stream says why)
                got.append(piece)
        except CompressedReadError as err:
            lines = sum(piece.count(b"\n") for piece in got)
            damage = f"{f' past line {lines:,}' if lines else ''}: {err.strerror}"
    return b"".join(got), damage  # (one piece: that piece, not a copy)


def unpack_grown(fd: int, before: bytes) -> tuple[tuple[bytes, str | None] | None, bool]:
    """``unpack_whole`` of a zstd file unpacked before to ``before`` that changed in
    place, and whether it unpacks to ``before`` and more (frames appended alone: read on,
    not again from line 1). (None, False): a failed read, or no zstd file now (read again
    from line 1, which says why); an unpack that is no growth is the rewritten file's,
    to be read again from line 1 without unpacking it twice."""
    try:
        unpacked = unpack_whole(fd)
    except OSError:
        return None, False
    return unpacked, unpacked is not None and unpacked[0].startswith(before)


def frame_problem(fh: IO[bytes]) -> str | None:
    """Walk the zstd frames of a file by their headers (seeking past block bodies).

    Returns None when the file is whole frames to its end, else why not: the check the
    decompressor leaves out (it stops quietly at a cut).
    """
    end = fh.seek(0, os.SEEK_END)
    at = 0
    while at < end:
        fh.seek(at)
        magic = fh.read(4)
        if len(magic) < 4:
            return "a truncated zstd stream (a cut frame header)"
        if magic[1:] == b"\x2a\x4d\x18" and 0x50 <= magic[0] <= 0x5F:  # skippable frame
            size = fh.read(4)
            if len(size) < 4:
                return "a truncated zstd stream (a cut skippable frame)"
            at += 8 + int.from_bytes(size, "little")
            if at > end:
                return "a truncated zstd stream (a cut skippable frame)"
            continue
        if magic != ZSTD_MAGIC:
            return "a corrupt zstd stream (no frame where one should start)"
        descriptor = fh.read(1)
        if not descriptor:
            return "a truncated zstd stream (a cut frame header)"
        flags = descriptor[0]
        single = bool(flags & 0x20)
        fcs = (0, 2, 4, 8)[flags >> 6] or (1 if single else 0)
        header = (0 if single else 1) + (0, 1, 2, 4)[flags & 0x03] + fcs
        at += 5 + header
        while True:
            fh.seek(at)
            block = fh.read(3)
            if len(block) < 3:
                return "a truncated zstd stream (the last frame is cut)"
            word = int.from_bytes(block, "little")
            kind = (word >> 1) & 0x03
            if kind == 3:
                return "a corrupt zstd stream (a reserved block type)"
            at += 3 + (1 if kind == 1 else word >> 3)
            if word & 1:
                break
        at += 4 if flags & 0x04 else 0  # the content checksum
        if at > end:
            return "a truncated zstd stream (the last frame is cut)"
    return None


__all__ = [
    "ZSTD_MAGIC",
    "CompressedReadError",
    "frame_problem",
    "is_compressed_file",
    "is_zstd",
    "maybe_decompress",
    "open_maybe_compressed",
    "unpack_whole",
]
