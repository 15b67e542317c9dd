"""The one exception type onnxc raises for problems with the user's input."""


class OnnxcError(Exception):
    """A problem with the model or the options: the message is one line that names
    what is wrong (the file, node, operator, tensor or dimension) and how to fix it
    where that is known. The command line prints it without a traceback."""
