"""The reduction lowerings of convert-onnx-to-linalg."""
