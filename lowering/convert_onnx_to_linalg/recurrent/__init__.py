"""The recurrent lowerings of convert-onnx-to-linalg."""
