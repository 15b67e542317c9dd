"""The normalization lowerings of convert-onnx-to-linalg."""
