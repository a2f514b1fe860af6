"""The native module's stub (src/python/module.cpp): partial, every attribute is Any. The package's public API
is typed in __init__.pyi; this lets type checkers follow the package's own imports of _netdp."""

from typing import Any

def __getattr__(name: str) -> Any: ...
