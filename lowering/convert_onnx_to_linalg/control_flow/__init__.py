"""The control flow lowerings of convert-onnx-to-linalg."""
