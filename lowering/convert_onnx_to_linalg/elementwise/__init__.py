"""The elementwise lowerings of convert-onnx-to-linalg."""
