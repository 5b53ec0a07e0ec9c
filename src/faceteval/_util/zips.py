"""Zip archives read without trusting what they say of their own sizes (zip bombs).

A zip's directory says how large each member is, packed and unpacked; a hostile one says little and
inflates to gigabytes, or declares gigabytes that a few kilobytes of deflate make. `check_zip` is run
on an archive's bytes before anything reads a member: it refuses, naming the file and the member,

- an archive of more than `ZipLimits.members` members, or one naming a member twice;
- a member packed other than stored or deflated (bzip2 and lzma inflate without bound in zipfile), or
  encrypted;
- a member declaring more than `ZipLimits.member_bytes`, or members declaring more than
  `ZipLimits.total_bytes` in all;
- a member, or the whole, declaring more than `ZipLimits.ratio` times its packed size (past
  `ZipLimits.ratio_floor`: small files of repeated bytes pack well);
- a member whose data, inflated here a chunk at a time (at most `CHUNK` bytes at once, counted as
  they come), is not exactly its declared size with its declared CRC-32: more than declared is refused
  as soon as it passes the declared size, so a member that lies inflates no further than that.

`read_zip` reads a file and checks it. Once an archive passes, reading any member whole (zipfile's
``read``, as skops does) makes exactly its declared size, which the limits bound.
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

from faceteval.errors import FacetevalError

MIB = 1 << 20
CHUNK = MIB
"""The most bytes a member is inflated by at once while it is checked."""
FEED = 64 << 10
"""The most bytes of a member's packed data handed to zlib at once while it is checked."""
_LOCAL_HEADER = struct.Struct("<4s22xHH")
"""A member's local header: its signature, then (at 26) the lengths of its name and extra field."""
_PACKINGS = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflated"}


@dataclass(frozen=True, slots=True)
class ZipLimits:
    """What an archive may hold.

    Attributes:
        members: The most members.
        member_bytes: The most one member may inflate to.
        total_bytes: The most all members may inflate to, and the largest archive read at all.
        ratio: The most a member, or the whole archive, may inflate to per byte packed.
        ratio_floor: Inflated sizes up to which the ratio is not checked.
    """

    members: int
    member_bytes: int
    total_bytes: int
    ratio: int = 100
    ratio_floor: int = MIB


def read_zip(path: Path, limits: ZipLimits) -> bytes:
    """The bytes of the zip archive at ``path``, checked by `check_zip`; a file larger than
    ``limits.total_bytes`` is refused unread.

    Raises:
        OSError: The file cannot be read.
        zipfile.BadZipFile, FacetevalError: See `check_zip`.
    """
    _check_size(path.stat().st_size, str(path), limits)
    data = path.read_bytes()
    check_zip(data, str(path), limits)
    return data


def check_zip(data: bytes, name: str, limits: ZipLimits) -> None:
    """Check the zip archive ``data`` (the file ``name``) against ``limits`` before any member is read.

    Raises:
        zipfile.BadZipFile: Not a zip archive (the caller says what it expected).
        FacetevalError: An archive that breaks a limit or whose member does not inflate to what it
            declares (see the module docstring); the message names ``name`` and the member.
    """
    _check_size(len(data), name, limits)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:  # reading the directory inflates nothing
        members = archive.infolist()
    _check_directory(members, name, limits, len(data))
    for member in members:
        _check_data(data, member, name)


def _check_size(size: int, name: str, limits: ZipLimits) -> None:
    if size > limits.total_bytes:
        raise FacetevalError(
            f"{name}: {size:,} bytes, over the {limits.total_bytes:,} an archive may hold: not loaded"
        )


def _check_directory(members: list[zipfile.ZipInfo], name: str, limits: ZipLimits, size: int) -> None:
    """What the archive's directory declares, against ``limits``."""
    if len(members) > limits.members:
        raise FacetevalError(
            f"{name}: {len(members):,} members, over the {limits.members:,} an archive may hold: not loaded"
        )
    seen: set[str] = set()
    for member in members:
        where = f"{name}: member {member.filename!r}"
        if member.filename in seen:
            raise FacetevalError(f"{where} is named twice: not loaded")
        seen.add(member.filename)
        if member.compress_type not in _PACKINGS or member.flag_bits & 0x1:
            how = "encrypted" if member.flag_bits & 0x1 else f"packed with method {member.compress_type}"
            raise FacetevalError(f"{where} is {how}, not stored or deflated: not loaded")
        if member.file_size > limits.member_bytes:
            raise FacetevalError(
                f"{where} declares {member.file_size:,} bytes, over the {limits.member_bytes:,} a member "
                "may hold: not loaded"
            )
        _check_ratio(member.file_size, member.compress_size, f"{where} declares", limits)
    total = sum(member.file_size for member in members)
    if total > limits.total_bytes:
        raise FacetevalError(
            f"{name}: its members declare {total:,} bytes, over the {limits.total_bytes:,} an archive may "
            "hold: not loaded"
        )
    _check_ratio(total, size, f"{name}: its members declare", limits)


def _check_ratio(inflated: int, packed: int, declares: str, limits: ZipLimits) -> None:
    """``inflated`` bytes from ``packed`` (what ``declares`` says), against ``limits.ratio``."""
    if inflated > limits.ratio_floor and inflated > limits.ratio * packed:
        raise FacetevalError(
            f"{declares} {inflated:,} bytes from {packed:,} packed, over {limits.ratio} times as many: "
            "not loaded (a zip bomb?)"
        )


def _check_data(data: bytes, member: zipfile.ZipInfo, name: str) -> None:
    """Inflate ``member`` a chunk at a time, counting: exactly its declared size and CRC-32, or refused."""
    where = f"{name}: member {member.filename!r}"
    start = _data_start(data, member, where)
    packed = memoryview(data)[start : start + member.compress_size]
    if len(packed) != member.compress_size:
        raise FacetevalError(f"{where}: the archive ends inside its data: not loaded")
    if member.compress_type == zipfile.ZIP_STORED:
        size, crc = len(packed), zlib.crc32(packed)
    else:
        size, crc = _inflate(packed, member.file_size, where)
    if size != member.file_size:
        raise FacetevalError(
            f"{where} inflates to {size:,} bytes, not the {member.file_size:,} it declares: not loaded"
        )
    if crc != member.CRC:
        raise FacetevalError(f"{where} does not match its CRC-32: not loaded")


def _inflate(packed: memoryview, declared: int, where: str) -> tuple[int, int]:
    """The size and CRC-32 of the deflate stream ``packed`` inflates to, refused past ``declared``.

    The stream is fed `FEED` bytes at a time and inflated at most `CHUNK` bytes at once, so neither
    what is held nor what zlib hands back as unread grows with the member.
    """
    inflater = zlib.decompressobj(-zlib.MAX_WBITS)
    size = crc = 0
    feeds: list[bytes | memoryview] = [packed[start : start + FEED] for start in range(0, len(packed), FEED)]
    for pending in [*feeds, b""]:  # at the end, what zlib still holds
        while not inflater.eof:
            try:
                chunk = inflater.decompress(pending, CHUNK)
            except zlib.error as exc:
                raise FacetevalError(f"{where}: its data are not deflate ({exc}): not loaded") from exc
            pending = inflater.unconsumed_tail
            size += len(chunk)
            if size > declared:
                raise FacetevalError(f"{where} inflates past the {declared:,} bytes it declares: not loaded")
            crc = zlib.crc32(chunk, crc)
            if not pending and len(chunk) < CHUNK:
                break  # this feed is inflated: the next one
    if not inflater.eof:
        raise FacetevalError(f"{where}: its data end before its stream does: not loaded")
    return size, crc


def _data_start(data: bytes, member: zipfile.ZipInfo, where: str) -> int:
    """Where ``member``'s data begin: after its local header, which must be there and name it."""
    offset = member.header_offset
    header = data[offset : offset + _LOCAL_HEADER.size]
    if len(header) != _LOCAL_HEADER.size or header[:4] != b"PK\x03\x04":
        raise FacetevalError(f"{where}: no member header where the directory puts it: not loaded")
    name_length, extra_length = (int(length) for length in _LOCAL_HEADER.unpack(header)[1:])
    named = data[offset + _LOCAL_HEADER.size : offset + _LOCAL_HEADER.size + name_length]
    encoding = "utf-8" if member.flag_bits & 0x800 else "cp437"
    if named.decode(encoding, "replace") != member.orig_filename:
        raise FacetevalError(f"{where}: its header names {named.decode(encoding, 'replace')!r}: not loaded")
    return offset + _LOCAL_HEADER.size + name_length + extra_length
