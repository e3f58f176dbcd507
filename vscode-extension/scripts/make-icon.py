"""Writes images/icon.png (128x128): a checklist mark on a rounded indigo tile. Stdlib only."""
import struct, zlib, pathlib

W = H = 128
BG, FG, OK, NO = (55, 48, 163), (240, 240, 255), (74, 222, 128), (248, 113, 113)

def pixel(x, y):
    r = 22  # rounded corners
    cx = min(max(x, r), W - 1 - r); cy = min(max(y, r), H - 1 - r)
    if (x - cx) ** 2 + (y - cy) ** 2 > r * r:
        return (0, 0, 0, 0)
    for i, mark in enumerate((OK, OK, NO)):
        top = 28 + i * 28
        # bullet: a check (two strokes) or a cross in a 16x16 box at x=24..40
        bx, by = x - 24, y - top
        if 0 <= bx < 18 and 0 <= by < 18:
            if mark is OK and (abs(by - (bx + 8)) <= 2 and bx < 7 or abs(by - (22 - bx)) <= 2 and bx >= 5):
                return mark + (255,)
            if mark is NO and (abs(bx - by) <= 2 or abs(bx + by - 17) <= 2):
                return mark + (255,)
        # line of "text"
        if 50 <= x < 104 - i * 12 and top + 6 <= y < top + 12:
            return FG + (255,)
    return BG + (255,)

raw = b"".join(b"\x00" + b"".join(bytes(pixel(x, y)) for x in range(W)) for y in range(H))
def chunk(t, d):
    return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 8, 6, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
out = pathlib.Path(__file__).resolve().parent.parent / "images" / "icon.png"
out.parent.mkdir(exist_ok=True)
out.write_bytes(png)
print(out)
