"""The text lowerings of convert-onnx-to-linalg."""
