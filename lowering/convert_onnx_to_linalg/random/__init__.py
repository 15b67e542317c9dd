"""The random lowerings of convert-onnx-to-linalg."""
