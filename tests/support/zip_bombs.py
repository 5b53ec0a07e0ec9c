"""Zip archives written byte by byte, to say of their members what a hostile archive says.

`zip_archive` writes the local headers, data and central directory itself, so a member may declare
any size and CRC-32 whatever its data inflate to. `deflated_zeros` makes the deflate stream of
gigabytes of zero bytes in a fraction of a second (one 16 MiB block, flushed so that it stands alone,
repeated: about 1,030 bytes inflate per byte of stream).
"""

from __future__ import annotations

import bz2
import functools
import struct
import zipfile
import zlib
from dataclasses import dataclass

BLOCK = 1 << 24
"""Zero bytes per repeated deflate block."""
GIB = 1 << 30


@dataclass(frozen=True, slots=True)
class Member:
    """A member as the archive has it: its data (packed as ``method`` says) and what it declares."""

    name: str
    data: bytes
    size: int
    """The inflated size declared (in the local header and the directory alike)."""
    crc: int
    method: int = zipfile.ZIP_DEFLATED
    offset: int | None = None
    """Where the directory says its local header is (None: where it is)."""


def stored(name: str, data: bytes) -> Member:
    """An honest stored member."""
    return Member(name, data, len(data), zlib.crc32(data), zipfile.ZIP_STORED)


def deflated(name: str, data: bytes) -> Member:
    """An honest deflated member."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    return Member(name, compressor.compress(data) + compressor.flush(), len(data), zlib.crc32(data))


def bzip2ed(name: str, data: bytes) -> Member:
    """An honest member packed with bzip2 (which zipfile inflates whole, without bound)."""
    return Member(name, bz2.compress(data), len(data), zlib.crc32(data), zipfile.ZIP_BZIP2)


def deflated_zeros(size: int) -> bytes:
    """A deflate stream of ``size`` zero bytes (a multiple of `BLOCK`)."""
    assert size % BLOCK == 0, size
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = compressor.compress(bytes(BLOCK)) + compressor.flush(zlib.Z_FULL_FLUSH)
    return block * (size // BLOCK) + compressor.flush()


@functools.cache
def zeros_crc(size: int) -> int:
    """The CRC-32 of ``size`` zero bytes (a multiple of `BLOCK`)."""
    crc, block = 0, bytes(BLOCK)
    for _ in range(size // BLOCK):
        crc = zlib.crc32(block, crc)
    return crc


def bomb(name: str, inflated: int, *, declared: int | None = None) -> Member:
    """A member whose data inflate to ``inflated`` zero bytes, declaring ``declared`` (its true size by
    default; if smaller, with the CRC-32 of that many zero bytes, as a lying archive would)."""
    said = inflated if declared is None else declared
    crc = zeros_crc(inflated) if declared is None else zlib.crc32(bytes(declared))
    return Member(name, deflated_zeros(inflated), said, crc)


def zip_archive(members: list[Member]) -> bytes:
    """The archive of ``members``, in order, each declaring what it says it holds."""
    out, directory = bytearray(), bytearray()
    for member in members:
        offset, name = len(out), member.name.encode()
        fields = (member.method, 0, 0x21, member.crc, len(member.data), member.size, len(name), 0)
        out += struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0, *fields) + name + member.data
        where = offset if member.offset is None else member.offset
        directory += struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, 20, 0, *fields, 0, 0, 0, 0, where)
        directory += name
    end = struct.pack(
        "<4sHHHHIIH", b"PK\x05\x06", 0, 0, len(members), len(members), len(directory), len(out), 0
    )
    return bytes(out + directory + end)
