"""The attention lowerings of convert-onnx-to-linalg."""
