"""The changes ``enable_*`` made to a running torch, undone most recent first."""

from __future__ import annotations

from typing import Generic, Protocol, TypeVar


class _Change(Protocol):
    _undone: bool

    def undo(self) -> None: ...


C = TypeVar("C", bound=_Change)


class UndoStack(Generic[C]):
    def __init__(self) -> None:
        self._changes: list[C] = []

    def push(self, change: C) -> None:
        self._changes.append(change)

    def undo_latest(self) -> C | None:
        """Undo the most recent change not undone yet (``undo()`` on its own
        leaves it here); returns it, or None when there is none."""
        while self._changes:
            change = self._changes.pop()
            if not change._undone:
                change.undo()
                return change
        return None
