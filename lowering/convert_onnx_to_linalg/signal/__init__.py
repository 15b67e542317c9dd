"""The signal lowerings of convert-onnx-to-linalg."""
