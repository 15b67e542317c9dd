"""onnxc: compile ONNX models to portable C99, and run them from Python."""

__version__ = "0.1.0"
