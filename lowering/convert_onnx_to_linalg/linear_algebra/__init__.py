"""The linear algebra lowerings of convert-onnx-to-linalg."""
