"""ImageDecoder: an encoded image (BMP, PNM, TIFF, PNG, JPEG) in a 1-D uint8
tensor, decoded by the runtime's image decoder (``runtime_c/onnxc_image.c``,
built only into models that use it) into uint8 [H, W, C].

`onnxc.image_size` reads the header: the height, the width and the scratch
bytes the decoder needs (pixels and its working memory: the inflated PNG
lines, the JPEG component planes), allocated in the arena at run time.
`onnxc.image_decode` decodes into that scratch; the output, [H, W, C] when it
succeeded and [0, 0, C] when the stream could not be decoded (an unknown or
unsupported format, a corrupt or truncated stream, as the spec asks), is then
copied out of it. JPEG decodes as libjpeg does by default, so the pixels equal
those of onnx.reference (Pillow); Grayscale is Pillow's convert("L") and BGR
the RGB channels reversed, as in onnx.reference.
"""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects import memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.dialects.onnxc import ImageDecodeOp, ImageSizeOp
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    alloc,
    buffer_of,
    element_type,
    row_major,
    unsupported,
)
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import builder_before, index, nest

PIXEL_FORMATS = {"RGB": 0, "BGR": 1, "Grayscale": 2}
"""pixel_format -> the runtime's code (ONNXC_IMAGE_RGB, _BGR, _GRAY)."""


class ImageDecoderOpLowering(OnnxLowering[onnx.ImageDecoderOp]):
    """`onnx.ImageDecoder`: see the module docstring."""

    def rewrite(self, op: onnx.ImageDecoderOp, rewriter: PatternRewriter) -> None:
        pixel_format = op.attr("pixel_format")
        if pixel_format not in PIXEL_FORMATS:
            raise unsupported(op, f"pixel_format '{pixel_format}'")
        channels = 1 if pixel_format == "Grayscale" else 3
        stream = buffer_of(rewriter, op.encoded_stream)
        size = rewriter.insert(ImageSizeOp(stream))
        byte = element_type(op.image)  # uint8
        scratch = alloc(rewriter, MemRefType(byte, [DYNAMIC_INDEX]), [size.scratch])
        decoded = rewriter.insert(ImageDecodeOp(stream, scratch, PIXEL_FORMATS[pixel_format]))
        height = self.shapes.select(decoded.ok, size.height, 0)
        width = self.shapes.select(decoded.ok, size.width, 0)
        image = self.result_buffer(rewriter, op.image, [height, width, channels])
        here = builder_before(op)
        sizes = [index(here, self.shapes.index(s)) for s in (height, width, channels)]

        def copy(b: Builder, position: list[SSAValue], _: list[SSAValue]) -> list[SSAValue]:
            value = b.insert(memref.LoadOp.get(scratch, [row_major(b, position, sizes)])).res
            b.insert(memref.StoreOp.get(value, image, position))
            return []

        nest(here, sizes, [], copy)
        self.replace(rewriter, op, [image])
