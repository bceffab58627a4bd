"""Help the Anki tests: the real Anki client (``anki`` from PyPI), opened and fed a package."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


@contextmanager
def anki_collection(folder: Path) -> Iterator[Any]:
    """Open a fresh Anki collection in ``folder`` (the real client, anki from PyPI)."""
    from anki.collection import Collection

    collection = Collection(os.fspath(folder / "collection.anki2"))
    try:
        yield collection
    finally:
        collection.close()


def import_package(collection: Any, data: bytes, path: Path) -> Any:
    """Import .apkg bytes as Anki's File > Import does (update notes if newer); return the
    import log."""
    from anki.collection import ImportAnkiPackageOptions, ImportAnkiPackageRequest

    path.write_bytes(data)
    return collection.import_anki_package(ImportAnkiPackageRequest(
        package_path=os.fspath(path), options=ImportAnkiPackageOptions())).log
