"""Sequences, optionals and maps resolved into the tensors they hold
(`resolve_containers`): the resolver, the operators it dispatches to, and the
run-time (ragged) form; dependencies run from `resolver` down."""
