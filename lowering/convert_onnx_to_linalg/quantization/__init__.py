"""The quantization lowerings of convert-onnx-to-linalg."""
