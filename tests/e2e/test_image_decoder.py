"""ImageDecoder against the frozen data of the ONNX backend cases (made with
Pillow); against images written by the small encoders below, whose pixels are
known (each PNG filter type, stored / fixed / dynamic deflate, Adam7
interlace, 16-bit samples, palettes; BMP bottom-up and top-down; TIFF strips,
Deflate and the horizontal predictor;
PNM plain and raw); against Pillow's decoding where Pillow is installed
(Pillow's own JPEG, PNG, BMP, TIFF and PPM files of odd sizes and modes, JPEG
restart markers, and JPEGs written below with sampling factors Pillow does not
write); on corrupt, truncated, hostile and unknown streams (an empty [0, 0, C]
output, as the spec asks); and the generated C with the decoder builds
warning-free under strict C99."""

from __future__ import annotations

import functools
import io
import shutil
import struct
import subprocess
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper
from onnx.backend.test.case.node import _image_decoder_data as frozen

import onnxc
from onnxc.runtime_c import runtime_files
from tests.e2e.run_time import target_for

FORMATS = ("RGB", "BGR", "Grayscale")
STRICT = ["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-O2", "-c"]
RNG = np.random.default_rng(20)


def model(pixel_format: str) -> onnx.ModelProto:
    node = helper.make_node("ImageDecoder", ["x"], ["y"], pixel_format=pixel_format)
    graph = helper.make_graph(
        [node],
        "image",
        [helper.make_tensor_value_info("x", TensorProto.UINT8, ["N"])],
        [helper.make_tensor_value_info("y", TensorProto.UINT8, ["H", "W", "C"])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])


@functools.cache
def decoder(pixel_format: str) -> onnxc.CompiledModel:
    return onnxc.compile(model(pixel_format), name=f"image_{pixel_format.lower()}")


def decode(data: bytes | np.ndarray, pixel_format: str = "RGB") -> np.ndarray:
    stream = np.frombuffer(bytes(data), np.uint8) if isinstance(data, bytes) else data
    (image,) = decoder(pixel_format)(stream)
    return image


def luma(rgb: np.ndarray) -> np.ndarray:
    """Pillow's convert("L"): ITU-R 601-2 luma in 16-bit fixed point."""
    r, g, b = (rgb[..., k].astype(np.uint32) for k in range(3))
    return ((r * 19595 + g * 38470 + b * 7471 + 0x8000) >> 16).astype(np.uint8)[..., None]


def in_format(rgb: np.ndarray, pixel_format: str) -> np.ndarray:
    if pixel_format == "BGR":
        return rgb[..., ::-1]
    if pixel_format == "Grayscale":
        return luma(rgb)
    return rgb


def assert_decodes(data: bytes, rgb: np.ndarray) -> None:
    for pixel_format in FORMATS:
        np.testing.assert_array_equal(
            decode(data, pixel_format), in_format(rgb, pixel_format), err_msg=pixel_format
        )


def assert_empty(data: bytes | np.ndarray) -> None:
    for pixel_format in FORMATS:
        channels = 1 if pixel_format == "Grayscale" else 3
        assert decode(data, pixel_format).shape == (0, 0, channels), pixel_format


def frozen_case(name: str) -> tuple[np.ndarray, np.ndarray]:
    case: Any = getattr(frozen, f"image_decoder_decode_{name}")
    return np.asarray(case.data, np.uint8), np.asarray(case.output, np.uint8)


# --- the backend cases' frozen data ---------------------------------------------


@pytest.mark.parametrize("name", ["bmp_rgb", "pnm_rgb", "tiff_rgb", "png_rgb", "jpeg_rgb"])
def test_frozen_data_in_every_pixel_format(name: str) -> None:
    data, rgb = frozen_case(name)
    assert_decodes(data.tobytes(), rgb)


@pytest.mark.parametrize("name", ["jpeg_bgr", "jpeg_grayscale"])
def test_frozen_jpeg_bgr_and_grayscale(name: str) -> None:
    data, want = frozen_case(name)
    pixel_format = "BGR" if name.endswith("bgr") else "Grayscale"
    np.testing.assert_array_equal(decode(data, pixel_format), want)


def test_grayscale_is_pillows_luma() -> None:
    _, rgb = frozen_case("jpeg_rgb")
    _, gray = frozen_case("jpeg_grayscale")
    np.testing.assert_array_equal(luma(rgb), gray)


@pytest.mark.parametrize("name", ["jpeg2k_rgb", "webp_rgb"])
def test_formats_not_implemented_are_empty(name: str) -> None:
    assert_empty(frozen_case(name)[0])


# --- lossless images encoded here -------------------------------------------------


def pixels(height: int, width: int, channels: int = 3) -> np.ndarray:
    ramp = np.add.outer(np.arange(height) * 9, np.arange(width) * 5)[..., None]
    noise = RNG.integers(0, 40, (height, width, channels))
    return ((ramp + noise) % 256).astype(np.uint8)


def png_chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def png_filtered(lines: np.ndarray, bpp: int, filters: list[int]) -> bytes:
    """`lines` (rows of bytes, `bpp` bytes a pixel), line y with filter filters[y]."""
    lines = lines.astype(np.int32)
    out = bytearray()
    for y, line in enumerate(lines):
        up = lines[y - 1] if y else np.zeros_like(line)
        left = np.concatenate([np.zeros(bpp, np.int32), line[:-bpp]])
        corner = np.concatenate([np.zeros(bpp, np.int32), up[:-bpp]])
        kind = filters[y % len(filters)]
        if kind == 0:
            pred = np.zeros_like(line)
        elif kind == 1:
            pred = left
        elif kind == 2:
            pred = up
        elif kind == 3:
            pred = (left + up) // 2
        else:
            p = left + up - corner
            pa, pb, pc = np.abs(p - left), np.abs(p - up), np.abs(p - corner)
            pred = np.where((pa <= pb) & (pa <= pc), left, np.where(pb <= pc, up, corner))
        out.append(kind)
        out += ((line - pred) % 256).astype(np.uint8).tobytes()
    return bytes(out)


ADAM7 = [
    (0, 0, 8, 8),
    (4, 0, 8, 8),
    (0, 4, 4, 8),
    (2, 0, 4, 4),
    (0, 2, 2, 4),
    (1, 0, 2, 2),
    (0, 1, 1, 2),
]


def png(image: np.ndarray, color_type: int, filters: list[int], level: int = 6, **kw: Any) -> bytes:
    """A PNG of `image` (H, W, C; uint8, or uint16 for 16-bit samples), Adam7
    interlaced with `interlace=True`, deflated at `level` with `strategy`."""
    height, width, channels = image.shape
    depth = 16 if image.dtype == np.uint16 else 8
    interlace = kw.get("interlace", False)
    header = struct.pack(">IIBBBBB", width, height, depth, color_type, 0, 0, int(interlace))
    raw = b""
    for x0, y0, dx, dy in ADAM7 if interlace else [(0, 0, 1, 1)]:
        part = image[y0::dy, x0::dx]
        if part.size:
            lines = part.astype(">u2" if depth == 16 else np.uint8).view(np.uint8)
            raw += png_filtered(lines.reshape(part.shape[0], -1), channels * depth // 8, filters)
    packed = zlib.compressobj(level, zlib.DEFLATED, 15, 9, kw.get("strategy", 0))
    data = packed.compress(raw) + packed.flush()
    chunks = [png_chunk(b"IHDR", header)]
    if "palette" in kw:
        chunks.append(png_chunk(b"PLTE", kw["palette"].tobytes()))
    cut = len(data) // 2  # the stream split over two IDAT chunks
    chunks += [png_chunk(b"IDAT", data[:cut]), png_chunk(b"IDAT", data[cut:])]
    return b"\x89PNG\r\n\x1a\n" + b"".join(chunks) + png_chunk(b"IEND", b"")


@pytest.mark.parametrize("filter_type", [0, 1, 2, 3, 4])
@pytest.mark.parametrize("channels", [3, 4])
def test_png_each_filter(filter_type: int, channels: int) -> None:
    image = pixels(9, 17, channels)
    assert_decodes(png(image, 2 if channels == 3 else 6, [filter_type]), image[..., :3])


@pytest.mark.parametrize(
    "level, strategy", [(0, 0), (9, zlib.Z_FIXED), (9, zlib.Z_DEFAULT_STRATEGY)]
)
def test_png_stored_fixed_and_dynamic_deflate(level: int, strategy: int) -> None:
    image = pixels(31, 33)
    assert_decodes(png(image, 2, [0, 1, 2, 3, 4], level, strategy=strategy), image)


def test_png_gray_and_palette() -> None:
    gray = pixels(5, 7, 1)
    assert_decodes(png(gray, 0, [4, 1]), np.repeat(gray, 3, axis=2))
    assert_decodes(png(np.concatenate([gray, gray], 2), 4, [2]), np.repeat(gray, 3, axis=2))
    palette = RNG.integers(0, 256, (16, 3)).astype(np.uint8)
    index = RNG.integers(0, 16, (6, 5, 1)).astype(np.uint8)
    assert_decodes(png(index, 3, [0, 3], palette=palette), palette[index[..., 0]])


@pytest.mark.parametrize("height, width", [(1, 1), (3, 2), (9, 17), (17, 9), (8, 8)])
def test_png_interlaced_and_16_bit(height: int, width: int) -> None:
    image = pixels(height, width, 4)
    assert_decodes(png(image, 6, [4, 0, 1], interlace=True), image[..., :3])
    gray = pixels(height, width, 1)
    assert_decodes(png(gray, 0, [2], interlace=True), np.repeat(gray, 3, axis=2))
    wide = RNG.integers(0, 65536, (height, width, 3)).astype(np.uint16)
    high = (wide >> 8).astype(np.uint8)  # Pillow reads 16-bit samples as their high byte
    assert_decodes(png(wide, 2, [1, 4]), high)
    assert_decodes(png(wide, 2, [3], interlace=True), high)


def test_png_16_bit_interlaced_like_pillow() -> None:
    wide = RNG.integers(0, 65536, (13, 11, 4)).astype(np.uint16)
    pillow_case_bytes(png(wide, 6, [1, 4], interlace=True))
    pillow_case_bytes(png(wide[..., :2], 4, [2], interlace=True))


def bmp(image: np.ndarray, bits: int = 24, top_down: bool = False) -> bytes:
    height, width = image.shape[:2]
    stride = (width * bits + 31) // 32 * 4
    rows = image if top_down else image[::-1]
    body = bytearray()
    for row in rows:
        line = row[:, ::-1]  # BGR
        if bits == 32:
            line = np.concatenate([line, np.full((width, 1), 255, np.uint8)], 1)
        raw = line.tobytes()
        body += raw + bytes(stride - len(raw))
    info = struct.pack("<IiiHHIIiiII", 40, width, -height if top_down else height, 1, bits, 0,
                       len(body), 2835, 2835, 0, 0)  # fmt: skip
    head = b"BM" + struct.pack("<IHHI", 54 + len(body), 0, 0, 54)
    return head + info + bytes(body)


@pytest.mark.parametrize("bits", [24, 32])
@pytest.mark.parametrize("top_down", [False, True])
def test_bmp_bottom_up_and_top_down(bits: int, top_down: bool) -> None:
    image = pixels(9, 17)
    assert_decodes(bmp(image, bits, top_down), image)


def test_pnm_raw_and_plain() -> None:
    image = pixels(4, 5)
    gray = image[..., :1]
    assert_decodes(b"P6\n# a comment\n5 4\n255\n" + image.tobytes(), image)
    assert_decodes(b"P5 5 4 255\n" + gray.tobytes(), np.repeat(gray, 3, axis=2))
    plain = " ".join(str(v) for v in image.reshape(-1)).encode()
    assert_decodes(b"P3\n5 4\n255\n" + plain + b"\n", image)


def tiff(image: np.ndarray, rows_per_strip: int, deflate: bool = False) -> bytes:
    """A little-endian TIFF of `image` in strips of `rows_per_strip`:
    uncompressed, or with `deflate` zlib-compressed after the horizontal
    predictor."""
    height, width, channels = image.shape
    if deflate:  # each sample less the one a pixel before it
        image = image.copy()
        image[:, 1:] -= image[:, :-1].copy()
    strips = [image[y : y + rows_per_strip].tobytes() for y in range(0, height, rows_per_strip)]
    if deflate:
        strips = [zlib.compress(strip) for strip in strips]
    count = 11 if deflate else 10
    arrays = bytearray()  # the values too long for their entry, after the IFD
    arrays_at = 8 + 2 + 12 * count + 4

    def entry(tag: int, kind: int, values: list[int]) -> bytes:
        code = "<H" if kind == 3 else "<I"
        packed = b"".join(struct.pack(code, v) for v in values)
        if len(packed) > 4:
            at = arrays_at + len(arrays)
            arrays.extend(packed)
            packed = struct.pack("<I", at)
        return struct.pack("<HHI", tag, kind, len(values)) + packed.ljust(4, b"\0")

    data_at = arrays_at + 2 * channels + 8 * len(strips)  # what the arrays take
    offsets = [data_at + sum(len(s) for s in strips[:k]) for k in range(len(strips))]
    table = [
        entry(256, 3, [width]),
        entry(257, 3, [height]),
        entry(258, 3, [8] * channels),
        entry(259, 3, [8 if deflate else 1]),
        entry(262, 3, [2 if channels >= 3 else 1]),
        entry(273, 4, offsets),
        entry(277, 3, [channels]),
        entry(278, 3, [rows_per_strip]),
        entry(279, 4, [len(s) for s in strips]),
        entry(284, 3, [1]),
        *([entry(317, 3, [2])] if deflate else []),
    ]
    head = b"II*\0" + struct.pack("<IH", 8, count) + b"".join(table) + bytes(4)
    body = bytes(arrays).ljust(data_at - arrays_at, b"\0")
    return head + body + b"".join(strips)


@pytest.mark.parametrize("channels, rows_per_strip", [(3, 3), (3, 100), (1, 2), (4, 5)])
@pytest.mark.parametrize("deflate", [False, True])
def test_tiff_strips(channels: int, rows_per_strip: int, deflate: bool) -> None:
    image = pixels(11, 6, channels)
    want = image[..., :3] if channels >= 3 else np.repeat(image, 3, axis=2)
    assert_decodes(tiff(image, rows_per_strip, deflate), want)


# --- against Pillow ---------------------------------------------------------------


def pillow_case(image: Any, **save: Any) -> None:
    """`image` saved by Pillow with `save`, decoded by onnxc and by Pillow."""
    stream = io.BytesIO()
    image.save(stream, **save)
    pillow_case_bytes(stream.getvalue(), str(save))


def pillow_case_bytes(data: bytes, label: str = "") -> None:
    """`data` decoded by onnxc and by Pillow as onnx.reference does (the
    colour image, then convert("L") for Grayscale)."""
    pil = pytest.importorskip("PIL.Image")
    reference = pil.open(io.BytesIO(data))
    rgb = np.asarray(reference.convert("RGB"))
    for pixel_format in FORMATS:
        got = decode(data, pixel_format)
        if pixel_format == "Grayscale":
            want = np.asarray(pil.open(io.BytesIO(data)).convert("L"))[..., None]
        else:
            want = in_format(rgb, pixel_format)
        np.testing.assert_array_equal(got, want, err_msg=f"{label} {pixel_format}")


SIZES = [(1, 1), (3, 2), (9, 17), (17, 9), (31, 33), (7, 100)]


@pytest.mark.parametrize("height, width", SIZES)
@pytest.mark.parametrize("subsampling", [0, 1, 2])
def test_jpeg_like_pillow(height: int, width: int, subsampling: int) -> None:
    pil = pytest.importorskip("PIL.Image")
    image = pil.fromarray(pixels(height, width))
    for quality in (30, 75, 95):
        pillow_case(image, format="JPEG", quality=quality, subsampling=subsampling)


def test_jpeg_gray_optimized_and_restart_markers() -> None:
    pil = pytest.importorskip("PIL.Image")
    image = pil.fromarray(pixels(40, 37))
    pillow_case(image.convert("L"), format="JPEG")
    pillow_case(image, format="JPEG", optimize=True)
    pillow_case(image, format="JPEG", restart_marker_blocks=3)
    pillow_case(image, format="JPEG", restart_marker_rows=1, subsampling=2)


ZIGZAG = [
    0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48,
    41, 34, 27, 20, 13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23,
    30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
]  # fmt: skip
DCT = np.array([[np.cos((2 * x + 1) * u * np.pi / 16) * (0.5 if u else 0.5**1.5) for x in range(8)]
                for u in range(8)])  # fmt: skip


class BitWriter:
    def __init__(self) -> None:
        self.out, self.bits, self.count = bytearray(), 0, 0

    def put(self, value: int, size: int) -> None:
        for k in range(size - 1, -1, -1):
            self.bits, self.count = self.bits << 1 | (value >> k & 1), self.count + 1
            if self.count == 8:
                self.out += b"\xff\x00" if self.bits == 0xFF else bytes([self.bits])
                self.bits, self.count = 0, 0

    def flush(self) -> bytes:
        while self.count:
            self.put(1, 1)
        return bytes(self.out)


def jpeg(
    planes: list[np.ndarray], sampling: list[tuple[int, int]], height: int, width: int
) -> bytes:
    """A baseline JPEG of the given component planes (each at its own size)
    and sampling factors: quantizer 4, one code length for every DC symbol
    (4 bits) and every AC symbol (8 bits)."""
    hmax, vmax = max(h for h, _ in sampling), max(v for _, v in sampling)
    mcu_x, mcu_y = -(-width // (8 * hmax)), -(-height // (8 * vmax))
    dc_symbols, ac_symbols = (
        list(range(12)),
        [0, 0xF0] + [r << 4 | s for r in range(16) for s in range(1, 11)],
    )
    dc_code = {s: k for k, s in enumerate(dc_symbols)}
    ac_code = {s: k for k, s in enumerate(ac_symbols)}
    writer, predictors = BitWriter(), [0] * len(planes)

    def code(value: int) -> tuple[int, int]:
        size = abs(value).bit_length()
        return (value if value >= 0 else value + (1 << size) - 1), size

    def block(c: int, plane: np.ndarray, bx: int, by: int) -> None:
        pixels = plane[by * 8 : by * 8 + 8, bx * 8 : bx * 8 + 8].astype(np.float64) - 128
        coefficients = np.rint(DCT @ pixels @ DCT.T / 4).astype(int).reshape(-1)[ZIGZAG]
        bits, size = code(int(coefficients[0]) - predictors[c])
        predictors[c] = int(coefficients[0])
        writer.put(dc_code[size], 4)
        writer.put(bits, size)
        run = 0
        for value in coefficients[1:]:
            if value == 0:
                run += 1
                continue
            while run > 15:
                writer.put(ac_code[0xF0], 8)
                run -= 16
            bits, size = code(int(value))
            writer.put(ac_code[run << 4 | size], 8)
            writer.put(bits, size)
            run = 0
        if run:
            writer.put(ac_code[0], 8)

    padded = []
    for plane, (h, v) in zip(planes, sampling, strict=True):
        rows, columns = mcu_y * v * 8, mcu_x * h * 8
        grown = np.pad(plane, ((0, rows - plane.shape[0]), (0, columns - plane.shape[1])), "edge")
        padded.append(grown)
    if len(planes) == 1:
        blocks_x, blocks_y = -(-width // 8), -(-height // 8)
        for by in range(blocks_y):
            for bx in range(blocks_x):
                block(0, padded[0], bx, by)
    else:
        for my in range(mcu_y):
            for mx in range(mcu_x):
                for c, (h, v) in enumerate(sampling):
                    for by in range(v):
                        for bx in range(h):
                            block(c, padded[c], mx * h + bx, my * v + by)

    def segment(marker: int, body: bytes) -> bytes:
        return struct.pack(">BBH", 0xFF, marker, len(body) + 2) + body

    components = b"".join(bytes([c + 1, h << 4 | v, 0]) for c, (h, v) in enumerate(sampling))
    frame = struct.pack(">BHHB", 8, height, width, len(planes)) + components
    dc_table = bytes([0x00]) + bytes([0, 0, 0, 12] + [0] * 12) + bytes(dc_symbols)
    ac_table = bytes([0x10]) + bytes([0] * 7 + [len(ac_symbols)] + [0] * 8) + bytes(ac_symbols)
    scan = bytes([len(planes)]) + b"".join(bytes([c + 1, 0]) for c in range(len(planes)))
    return b"".join([
        b"\xff\xd8",
        segment(0xDB, bytes([0]) + bytes([4] * 64)),
        segment(0xC0, frame),
        segment(0xC4, dc_table + ac_table),
        segment(0xDA, scan + bytes([0, 63, 0])),
        writer.flush(),
        b"\xff\xd9",
    ])  # fmt: skip


@pytest.mark.parametrize("height, width", [(16, 16), (17, 9), (9, 33), (40, 37)])
@pytest.mark.parametrize(
    "sampling",
    [[(1, 2), (1, 1), (1, 1)], [(2, 1), (1, 1), (1, 1)], [(2, 2), (1, 2), (2, 1)],
     [(4, 1), (1, 1), (1, 1)], [(1, 3), (1, 1), (1, 1)], [(1, 1)], [(2, 2)]],
)  # fmt: skip
def test_jpeg_any_sampling_like_pillow(
    height: int, width: int, sampling: list[tuple[int, int]]
) -> None:
    """Sampling factors Pillow does not write (4:4:0, whose chroma libjpeg
    upsamples h1v2; 4:1:1 and 1x3, box-upsampled; a gray image with factors 2x2),
    in streams encoded above."""
    hmax, vmax = max(h for h, _ in sampling), max(v for _, v in sampling)
    planes = [pixels(-(-height * v // vmax), -(-width * h // hmax), 1)[..., 0] for h, v in sampling]
    pillow_case_bytes(jpeg(planes, sampling, height, width), str(sampling))


@pytest.mark.parametrize("height, width", SIZES)
def test_lossless_formats_like_pillow(height: int, width: int) -> None:
    pil = pytest.importorskip("PIL.Image")
    image = pil.fromarray(pixels(height, width))
    for mode in ("RGB", "L", "RGBA", "LA", "P", "1"):
        variant = image.quantize(13) if mode == "P" else image.convert(mode)
        pillow_case(variant, format="PNG")
        if mode != "LA":
            pillow_case(variant, format="BMP")
        if mode in ("RGB", "L"):
            pillow_case(variant, format="PPM")
        if mode in ("RGB", "L", "RGBA"):
            for compression in (None, "packbits", "tiff_lzw", "tiff_adobe_deflate"):
                pillow_case(variant, format="TIFF", compression=compression)


# --- streams that are no image ------------------------------------------------------


def test_truncated_and_corrupt_streams_are_empty() -> None:
    for name in ("jpeg_rgb", "png_rgb", "bmp_rgb", "tiff_rgb", "pnm_rgb"):
        data = frozen_case(name)[0].tobytes()
        assert_empty(data[: len(data) // 2])
    png_data = bytearray(frozen_case("png_rgb")[0].tobytes())
    png_data[45:60] = b"\xff" * 15  # inside the deflate stream
    assert_empty(bytes(png_data))
    assert_empty(RNG.integers(0, 256, 500, dtype=np.uint8))
    assert_empty(b"BM")
    assert_empty(b"not an image at all")


def test_hostile_sizes_are_empty() -> None:
    image = pixels(2, 2)
    huge = bytearray(bmp(image))
    huge[18:26] = struct.pack("<ii", 100000, 100000)
    assert_empty(bytes(huge))
    assert_empty(b"P6\n100000 100000\n255\n" + bytes(100))
    header = struct.pack(">IIBBBBB", 65535, 65535, 8, 6, 0, 0, 0)
    assert_empty(b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", header) + png_chunk(b"IEND", b""))


def test_mutated_streams_never_crash() -> None:
    """Random byte changes anywhere in every format: a decoded image or an
    empty one, never a crash (the sanitizer runs of the C check the rest)."""
    streams = [frozen_case(n)[0].tobytes() for n in ("jpeg_rgb", "png_rgb", "tiff_rgb")]
    streams.append(bmp(pixels(5, 6)))
    for data in streams:
        for _ in range(40):
            mutated = bytearray(data)
            for at in RNG.integers(0, len(data), 4):
                mutated[at] = int(RNG.integers(0, 256))
            image = decode(bytes(mutated))
            assert image.ndim == 3 and image.shape[2] == 3


# --- the C ----------------------------------------------------------------------------


@pytest.mark.parametrize("compiler", ["gcc", "clang", "arm-none-eabi-gcc"])
def test_generated_c_builds_warning_free(compiler: str, tmp_path: Path) -> None:
    if shutil.which(compiler) is None:
        pytest.skip(f"{compiler} not installed")
    generated = onnxc.generate_c(model("RGB"), name="image", target=target_for(compiler))
    generated.write(tmp_path)
    assert "onnxc_image.c" in generated.c_files()
    cpu = ["-mcpu=cortex-m4", "-mthumb"] if compiler.startswith("arm") else []
    for source in generated.c_files():
        command = [compiler, *STRICT, *cpu, str(tmp_path / source), "-o", str(tmp_path / "m.o")]
        subprocess.run(command, check=True)


def test_decoder_ships_only_with_image_models() -> None:
    assert "onnxc_image.c" not in {p.name for p in runtime_files()}
    node = helper.make_node("Identity", ["x"], ["y"])
    graph = helper.make_graph(
        [node],
        "plain",
        [helper.make_tensor_value_info("x", TensorProto.UINT8, [4])],
        [helper.make_tensor_value_info("y", TensorProto.UINT8, [4])],
    )
    plain = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])
    assert "onnxc_image.c" not in onnxc.generate_c(plain, name="plain").files
