"""The text engines of the string operators: a regex parser and DFA builder,
and the Unicode case tables the C runtime carries."""
