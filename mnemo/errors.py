"""The MnemoError family: every failure a user can cause or meet has a class here.

The CLI turns these into ``Error: <message>`` (+ ``hint``) with exit code 1; the daemon API
turns them into JSON error bodies with the class name, so the remote client can raise the same
class again on the other side.
"""

from __future__ import annotations


class MnemoError(Exception):
    """Base class. ``hint`` tells the user how to fix it, where there is a fix."""

    code = "error"
    http_status = 400

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def to_dict(self) -> dict[str, str | None]:
        return {"error": type(self).__name__, "code": self.code, "message": self.message, "hint": self.hint}


class InvalidInput(MnemoError):
    code = "invalid_input"


class NotFound(MnemoError):
    code = "not_found"
    http_status = 404


class ConfigError(MnemoError):
    code = "config"


class HomeError(MnemoError):
    code = "home"


class LockedError(MnemoError):
    """Another process owns the store (the one-owner rule of design.md §2)."""

    code = "locked"
    http_status = 409


class VaultError(MnemoError):
    code = "vault"


class UnsafePath(VaultError):
    code = "unsafe_path"


class ConflictError(MnemoError):
    """A file changed under us between read and write; nothing was clobbered."""

    code = "conflict"
    http_status = 409


class StorageError(MnemoError):
    code = "storage"
    http_status = 500


class DaemonError(MnemoError):
    code = "daemon"
    http_status = 503


class AuthError(MnemoError):
    code = "auth"
    http_status = 401


ERROR_CLASSES: dict[str, type[MnemoError]] = {
    cls.__name__: cls
    for cls in (
        MnemoError,
        InvalidInput,
        NotFound,
        ConfigError,
        HomeError,
        LockedError,
        VaultError,
        UnsafePath,
        ConflictError,
        StorageError,
        DaemonError,
        AuthError,
    )
}


def error_from_dict(data: dict) -> MnemoError:
    cls = ERROR_CLASSES.get(str(data.get("error")), MnemoError)
    return cls(str(data.get("message", "unknown error")), data.get("hint"))
