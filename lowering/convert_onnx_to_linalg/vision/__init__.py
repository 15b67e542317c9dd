"""The vision lowerings of convert-onnx-to-linalg."""
