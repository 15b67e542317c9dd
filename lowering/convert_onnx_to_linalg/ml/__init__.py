"""The ml lowerings of convert-onnx-to-linalg."""
