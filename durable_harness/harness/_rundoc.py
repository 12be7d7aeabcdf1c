"""The run document (``run.json``): provenance, redaction, and the one function that writes it.

Every run document carries the harness's version and git commit and the candidate's spec and
code digest, so reports never mix runs of different code. Secrets are redacted from everything a
run writes: the document, the history, whatever the candidate echoed. ``write_run`` is the only
writer of ``run.json`` (and of the history beside it); it replaces files atomically.

It deliberately does not judge (checkers and ``durable_harness.harness.verdict`` do) or render (``reports`` does).
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Iterable, Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

from durable_harness.harness._redact import redact_text

__all__ = ["FORMAT", "HISTORY_FILE", "RUN_FILE", "harness_provenance", "redact", "redact_text", "write_run"]

FORMAT = "durable-harness/run@2"
RUN_FILE = "run.json"
HISTORY_FILE = "history.jsonl"
_REPO = Path(__file__).resolve().parents[2]


@functools.cache
def harness_provenance() -> dict[str, str | None]:
    """``{"version", "commit"}`` of the harness that is running (commit: None outside a git checkout),
    read once per process: a commit made in the checkout while a catalogue runs changes nothing that
    runs, and must not split one report into two harnesses."""
    return dict(_provenance())


PROVENANCE_ENV = "DH_HARNESS_PROVENANCE"  # what the command line read at its start, for its worker processes


@functools.lru_cache(maxsize=1)
def _provenance() -> tuple[tuple[str, str | None], ...]:
    given = os.environ.get(PROVENANCE_ENV, "")
    if given:
        version, _, commit = given.partition(" ")
        return (("version", version), ("commit", commit if _is_sha(commit) else None))
    try:
        version = metadata.version("durable-harness")
    except metadata.PackageNotFoundError:
        version = "unknown"
    found = (("version", version), ("commit", _git_commit(_REPO)))
    os.environ[PROVENANCE_ENV] = f"{version} {found[1][1] or '-'}"  # the workers started from here read the same
    return found


def _git_commit(root: Path) -> str | None:
    """The commit HEAD names, read from ``.git`` directly (no subprocess, no git needed)."""
    git = root / ".git"
    try:
        if git.is_file():  # a worktree: "gitdir: <path>"
            git = (root / git.read_text("utf-8").split(":", 1)[1].strip()).resolve()
        head = (git / "HEAD").read_text("utf-8").strip()
        if not head.startswith("ref:"):
            return head if _is_sha(head) else None
        ref = head.split(":", 1)[1].strip()
        for base in (git, _common_dir(git)):
            ref_file = base / ref
            if ref_file.is_file():
                sha = ref_file.read_text("utf-8").strip()
                return sha if _is_sha(sha) else None
            packed = base / "packed-refs"
            if packed.is_file():
                for line in packed.read_text("utf-8").splitlines():
                    sha, _, name = line.partition(" ")
                    if name.strip() == ref and _is_sha(sha):
                        return sha
    except (OSError, IndexError, UnicodeDecodeError):
        return None
    return None


def _common_dir(git: Path) -> Path:
    common = git / "commondir"
    return (git / common.read_text("utf-8").strip()).resolve() if common.is_file() else git


def _is_sha(text: str) -> bool:
    return len(text) == 40 and all(c in "0123456789abcdef" for c in text)


def redact(doc: Any, secrets: Iterable[str]) -> Any:
    """``doc`` with every secret replaced, wherever a candidate or a service may have echoed it."""
    return json.loads(redact_text(json.dumps(doc, sort_keys=True), secrets))


def write_run(out_dir: Path, doc: Mapping[str, Any], history_lines: Iterable[str] | None = None,
              secrets: Iterable[str] = ()) -> None:
    """Write ``run.json`` (and ``history.jsonl`` when given) into ``out_dir``, atomically."""
    out_dir.mkdir(parents=True, exist_ok=True)
    secrets = tuple(secrets)
    if history_lines is not None:
        text = "".join(line + "\n" for line in history_lines)
        _replace(out_dir / HISTORY_FILE, redact_text(text, secrets))
    _replace(out_dir / RUN_FILE, redact_text(json.dumps(doc, indent=2, sort_keys=True), secrets) + "\n")


def _replace(target: Path, text: str) -> None:
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
