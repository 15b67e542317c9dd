"""The tensor lowerings of convert-onnx-to-linalg."""
