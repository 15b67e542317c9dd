"""The kernels lowerings of convert-onnx-to-linalg."""
