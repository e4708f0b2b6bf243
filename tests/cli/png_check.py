#!/usr/bin/python3
"""Checks that a file is a valid PNG of a given size, with the standard library only: the
signature, every chunk's CRC (zlib.crc32 over type and data), IHDR first with the expected width
and height, IEND last, and the concatenated IDAT data inflating (zlib) to exactly the bytes a
non-interlaced image of that size, bit depth and colour type holds (one filter byte per row).
Usage: png_check.py FILE WIDTH HEIGHT [FILE WIDTH HEIGHT ...]; exits 0 if all are valid, else 1
after one line per fault."""
import struct
import sys
import zlib

CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}  # colour type -> samples per pixel


def check(path, want_w, want_h):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return "not a PNG signature"
    pos, chunks = 8, []
    while pos < len(data):
        if pos + 12 > len(data):
            return "truncated chunk header at byte %d" % pos
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        ctype = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        if len(body) != length or pos + 12 + length > len(data):
            return "chunk %r truncated" % ctype
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        if zlib.crc32(ctype + body) & 0xFFFFFFFF != crc:
            return "chunk %r at byte %d: CRC mismatch" % (ctype, pos)
        chunks.append((ctype, body))
        pos += 12 + length
    if not chunks or chunks[0][0] != b"IHDR" or len(chunks[0][1]) != 13:
        return "IHDR is not the first chunk"
    if chunks[-1][0] != b"IEND":
        return "IEND is not the last chunk"
    w, h, depth, ctype, comp, filt, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    if (w, h) != (want_w, want_h):
        return "size %dx%d, expected %dx%d" % (w, h, want_w, want_h)
    if ctype not in CHANNELS or comp != 0 or filt != 0 or interlace != 0:
        return "unexpected IHDR: colour type %d, compression %d, filter %d, interlace %d" % (
            ctype, comp, filt, interlace)
    idat = b"".join(body for t, body in chunks if t == b"IDAT")
    if not idat:
        return "no IDAT chunk"
    try:
        raw = zlib.decompress(idat)
    except zlib.error as e:
        return "IDAT does not inflate: %s" % e
    row = (w * depth * CHANNELS[ctype] + 7) // 8
    if len(raw) != h * (1 + row):
        return "IDAT inflates to %d bytes, expected %d" % (len(raw), h * (1 + row))
    if any(raw[y * (1 + row)] > 4 for y in range(h)):
        return "a row has a filter type above 4"
    return None


def main(argv):
    if len(argv) < 4 or (len(argv) - 1) % 3:
        sys.exit("usage: png_check.py FILE WIDTH HEIGHT [FILE WIDTH HEIGHT ...]")
    bad = 0
    for k in range(1, len(argv), 3):
        path, w, h = argv[k], int(argv[k + 1]), int(argv[k + 2])
        try:
            fault = check(path, w, h)
        except OSError as e:
            fault = str(e)
        if fault:
            print("%s: %s" % (path, fault))
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
