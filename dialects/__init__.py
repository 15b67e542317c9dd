"""The dialects onnxc defines: `onnx` (one operation per ONNX operator)."""
