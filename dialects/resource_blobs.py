"""The builtin dialect's resource blobs kept as bytes.

xDSL's own storage (`OpAsmDialectInterface`) keeps each blob as the hex text
MLIR prints (`"0x04000000..."`): two characters per byte, decoded again at
every read. For a model with 440 MB of weights that is 880 MB of text, and a
full copy at each read. `ByteBlobStorage` keeps the bytes themselves and makes
the hex text only when the IR is printed; parsed text is decoded once. It
takes the place of the builtin dialect's storage when this module is
imported (`storage()`), keeping any blob already declared.
"""

from __future__ import annotations

from collections.abc import Iterable

from xdsl.dialect_interfaces.op_asm import OpAsmDialectInterface
from xdsl.dialects.builtin import Builtin

ALIGNMENT = 4
"""The alignment written in front of a blob we create (MLIR's blob format:
a little-endian uint32, then the bytes)."""


class ByteBlobStorage(OpAsmDialectInterface):
    """Resource blobs by handle: the alignment and the bytes of each."""

    def __init__(self) -> None:
        super().__init__()
        self._data: dict[str, tuple[int, bytes]] = {}

    def parse_resource(self, key: str, val: str) -> None:
        super().parse_resource(key, val)  # checks the text and the key
        raw = bytes.fromhex(val[2:])
        self.store(key, raw[4:], int.from_bytes(raw[:4], "little"))

    def store(self, key: str, data: bytes, alignment: int = ALIGNMENT) -> None:
        """Give the declared resource `key` its bytes."""
        if key not in self._blob_storage:
            raise KeyError(f"Resource with key {key} wasn't declared")
        self._blob_storage[key] = "0x"  # declared and set: see `build_resources`
        self._data[key] = (alignment, data)

    def data(self, key: str) -> bytes | None:
        """The bytes of `key` (without the alignment), None when unset."""
        found = self._data.get(key)
        return None if found is None else found[1]

    def lookup(self, key: str) -> str | None:
        found = self._data.get(key)
        if found is None:
            return None
        alignment, data = found
        return "0x" + (alignment.to_bytes(4, "little") + data).hex()

    def build_resources(self, keys: Iterable[str]) -> dict[str, str]:
        built: dict[str, str] = {}
        for key in keys:
            text = self.lookup(key)
            if text is not None:
                built[key] = text
        return built

    def forget(self, key: str) -> None:
        self._blob_storage.pop(key, None)
        self._data.pop(key, None)

    def keys(self) -> set[str]:
        return set(self._blob_storage)


def storage() -> ByteBlobStorage:
    """The builtin dialect's blob storage (installed on first use)."""
    found = Builtin.get_interface(OpAsmDialectInterface)
    if isinstance(found, ByteBlobStorage):
        return found
    replacement = ByteBlobStorage()
    if found is not None:
        for key, text in found._blob_storage.items():  # pyright: ignore[reportPrivateUsage]
            replacement.declare_resource(key)
            if text:
                replacement.parse_resource(key, text)
    Builtin._interfaces = [  # pyright: ignore[reportPrivateUsage]
        replacement if i is found else i
        for i in Builtin._interfaces  # pyright: ignore[reportPrivateUsage]
    ]
    if found is None:
        Builtin._interfaces.append(replacement)  # pyright: ignore[reportPrivateUsage]
    return replacement


storage()
