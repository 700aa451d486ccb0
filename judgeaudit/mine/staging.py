"""Replace a set directory as a whole: build it in a sibling temporary directory, then swap it in.

A crash while the set is being written leaves the old set untouched (and a `.NAME.new-*`
directory that the next run of the set removes); the swap itself is two renames on the same file
system, so the set directory is always either the complete old set or the complete new one
(between the two renames, a crash leaves the old set under `.NAME.old-*` and no half-written one).

Every writer of a set holds `set_lock(set_dir)` (the `files.locked_output_dir` lock of the set's
parent directory: `--out` for `mine`) while it reads the old set and swaps in the new one, so a
second run into the same set waits, or refuses with one line when the wait runs out.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

from judgeaudit.files import locked_output_dir


def _fresh_dir(parent: Path, prefix: str) -> Path:
    path = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(
        path, 0o777 & ~umask
    )  # mkdtemp creates 0700; a set directory gets the usual permissions
    return path


def swap_in(new: Path, final: Path) -> None:
    """Move the complete directory `new` to `final`, replacing any directory there."""
    old: Path | None = None
    if final.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{final.name}.old-", dir=final.parent))
        os.rmdir(old)
        os.replace(final, old)
    os.replace(new, final)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def set_lock(set_dir: str | Path, what: str) -> AbstractContextManager[Path]:
    """The lock every writer of `set_dir` holds: its parent directory's output lock (`what` names the option)."""
    return locked_output_dir(Path(set_dir).parent, what)


def _remove_killed_staging(target: Path) -> None:
    """Delete `.NAME.new-*` directories a killed run of this set left (callers hold `set_lock`)."""
    for stale in target.parent.glob(f".{target.name}.new-*"):
        if stale.is_dir():
            shutil.rmtree(stale, ignore_errors=True)


@contextmanager
def staged_dir(final: str | Path, *, copy_existing: bool = False) -> Iterator[Path]:
    """Yield a sibling temporary directory (a copy of `final` if `copy_existing`); on success it replaces `final`."""
    target = Path(final)
    target.parent.mkdir(parents=True, exist_ok=True)
    _remove_killed_staging(target)
    tmp = _fresh_dir(target.parent, f".{target.name}.new-")
    try:
        if copy_existing and target.is_dir():
            shutil.copytree(target, tmp, dirs_exist_ok=True)
        yield tmp
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    swap_in(tmp, target)
