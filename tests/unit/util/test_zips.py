"""Zip archives checked before any member is read: what they declare, and what their data inflate to."""

from __future__ import annotations

import dataclasses
import io
import random
import tracemalloc
import zipfile
from pathlib import Path

import pytest

from faceteval._util.zips import CHUNK, ZipLimits, check_zip, read_zip
from faceteval.errors import FacetevalError
from tests.support.zip_bombs import BLOCK, Member, bomb, bzip2ed, deflated, stored, zip_archive

LIMITS = ZipLimits(members=20, member_bytes=4 * BLOCK, total_bytes=8 * BLOCK, ratio=100, ratio_floor=BLOCK)
"""Small limits, so that a bomb is a few dozen MiB: 64 MiB in one member at most, 128 MiB in all."""
SCHEMA = stored("schema.json", b'{"__class__": "LinearRegression"}')


def refused(members: list[Member], limits: ZipLimits = LIMITS) -> str:
    with pytest.raises(FacetevalError) as caught:
        check_zip(zip_archive(members), "agg.skops", limits)
    message = str(caught.value)
    assert message.startswith("agg.skops: ") and message.endswith(("not loaded", "(a zip bomb?)"))
    assert "\n" not in message
    return message


def test_honest_archives_stored_or_deflated_pass_and_read_as_they_declare() -> None:
    text = b"0123456789abcdef" * 100_000  # 1.6 MB packed 300 times: under the ratio's floor
    members = [SCHEMA, deflated("x.npy", text), stored("y.npy", bytes(range(256)) * 100)]
    data = zip_archive(members)

    check_zip(data, "agg.skops", LIMITS)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert archive.read("x.npy") == text


def test_a_file_written_by_zipfile_passes(tmp_path: Path) -> None:
    path = tmp_path / "a.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("schema.json", "{}")
        archive.writestr("big.npy", b"\x01\x02\x03" * 500_000)
        archive.writestr("noise.npy", random.Random(0).randbytes(3_000_000))  # fed to zlib in 46 parts
    assert read_zip(path, LIMITS) == path.read_bytes()


@pytest.mark.parametrize("name", ["schema.json", "w.npy"])
def test_a_member_declaring_more_than_a_member_may_hold_is_refused_unread(name: str) -> None:
    message = refused([stored("a.npy", b"a"), bomb(name, 5 * BLOCK)])
    assert f"member {name!r} declares 83,886,080 bytes, over the 67,108,864 a member may hold" in message


def test_members_declaring_more_than_an_archive_may_hold_are_refused() -> None:
    members = [bomb(f"m{k}.npy", 3 * BLOCK) for k in range(3)]
    message = refused(members, dataclasses.replace(LIMITS, ratio=2_000))
    assert "its members declare 150,994,944 bytes, over the 134,217,728 an archive may hold" in message


@pytest.mark.parametrize("ratio", [100, 500])
def test_a_member_packed_past_the_ratio_is_refused(ratio: int) -> None:
    message = refused([SCHEMA, bomb("w.npy", 2 * BLOCK)], dataclasses.replace(LIMITS, ratio=ratio))
    assert f"member 'w.npy' declares 33,554,432 bytes from 32,632 packed, over {ratio} times" in message


def test_many_small_members_packed_past_the_ratio_together_are_refused() -> None:
    # Each under the ratio's floor; together a thousand times their packed size.
    small = deflated("s", bytes(BLOCK // 2))
    members = [dataclasses.replace(small, name=f"s{k}") for k in range(16)]
    assert "its members declare 134,217,728 bytes from" in refused(members)


@pytest.mark.parametrize("declared", [0, 1_000, BLOCK])
def test_a_member_inflating_past_what_it_declares_is_refused_as_soon_as_it_passes(declared: int) -> None:
    # A lying member: 2 GiB of data behind a small declared size and a CRC-32 that matches its start
    # (zipfile reads it without complaint, having inflated up to 2 GiB at once). Refused once it passes
    # its declared size, having held no more than a chunk of it.
    data = zip_archive([SCHEMA, bomb("w.npy", 128 * BLOCK, declared=declared)])
    tracemalloc.start()
    try:
        with pytest.raises(FacetevalError) as caught:
            check_zip(data, "agg.skops", dataclasses.replace(LIMITS, ratio=10**9))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert f"member 'w.npy' inflates past the {declared:,} bytes it declares" in str(caught.value)
    assert peak < 4 * CHUNK  # a chunk, the one before it, zlib's buffer for the next: not 2 GiB


def test_a_member_inflating_to_less_than_it_declares_or_to_other_bytes_is_refused() -> None:
    short = dataclasses.replace(deflated("w.npy", b"abc" * 1000), size=4_000)
    assert "member 'w.npy' inflates to 3,000 bytes, not the 4,000 it declares" in refused([SCHEMA, short])
    other = dataclasses.replace(deflated("w.npy", b"abc" * 1000), crc=12345)
    assert "member 'w.npy' does not match its CRC-32" in refused([SCHEMA, other])
    stored_short = dataclasses.replace(stored("w.npy", b"abc"), size=4)
    assert "inflates to 3 bytes, not the 4 it declares" in refused([SCHEMA, stored_short])


def test_a_member_whose_stream_is_cut_or_is_not_deflate_is_refused() -> None:
    whole = deflated("w.npy", bytes(range(256)) * 400)
    cut = dataclasses.replace(whole, data=whole.data[: len(whole.data) // 2])
    assert "member 'w.npy': its data end before its stream does" in refused([SCHEMA, cut])
    noise = dataclasses.replace(whole, data=b"\xff" * 64)
    assert "member 'w.npy': its data are not deflate" in refused([SCHEMA, noise])


def test_bzip2_lzma_and_encrypted_members_are_refused() -> None:
    assert "member 'w.npy' is packed with method 12, not stored or deflated" in refused(
        [SCHEMA, bzip2ed("w.npy", bytes(1000))]
    )
    lzma = dataclasses.replace(stored("w.npy", b"x"), method=zipfile.ZIP_LZMA)
    assert "packed with method 14" in refused([SCHEMA, lzma])
    data = bytearray(zip_archive([SCHEMA, stored("w.npy", b"x")]))
    directory = data.rindex(b"PK\x01\x02")
    data[directory + 8] |= 0x1  # the directory's general purpose flags: encrypted
    with pytest.raises(FacetevalError, match=r"member 'w\.npy' is encrypted"):
        check_zip(bytes(data), "agg.skops", LIMITS)


def test_too_many_members_a_member_named_twice_and_a_directory_pointing_elsewhere_are_refused() -> None:
    many = [stored(f"m{k}", b"x") for k in range(21)]
    assert "agg.skops: 21 members, over the 20 an archive may hold" in refused(many)
    assert "member 'schema.json' is named twice" in refused([SCHEMA, SCHEMA])
    # Overlapping members: a second directory entry pointing at the first member's header.
    aliased = dataclasses.replace(deflated("w.npy", b"abc" * 1000), offset=0)
    assert "member 'w.npy': its header names 'schema.json'" in refused([SCHEMA, aliased])
    astray = dataclasses.replace(stored("w.npy", b"x"), offset=3)
    assert "member 'w.npy': no member header where the directory puts it" in refused([SCHEMA, astray])


def test_what_is_not_a_zip_archive_and_a_file_too_large_to_read_are_refused(tmp_path: Path) -> None:
    with pytest.raises(zipfile.BadZipFile):
        check_zip(b"not a zip", "agg.skops", LIMITS)
    large = tmp_path / "large.skops"
    with large.open("wb") as handle:
        handle.truncate(LIMITS.total_bytes + 1)  # sparse: no byte of it is read
    with pytest.raises(FacetevalError, match=r"large.skops: 134,217,729 bytes, over the 134,217,728"):
        read_zip(large, LIMITS)
