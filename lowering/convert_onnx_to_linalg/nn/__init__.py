"""The nn lowerings of convert-onnx-to-linalg."""
