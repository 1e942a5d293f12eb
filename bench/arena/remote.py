"""Players of another commit: ``hard@<git-ref>`` in the arena.

The ref's ``bot`` package is exported (``git archive``) into a temporary directory and a
worker process imports ``bot`` from there. The arena (this version's engine) runs the
game; for each decision it sends the worker the game's start (rules, dealer and cards, or
the game's seed) and the actions played so far as text, the worker rebuilds the state with
its own engine, builds the seat's view and answers with its level's action as text. Only
the engine's public calls are used on the other side, so views never cross versions; a
ref whose engine disagrees shows up as an action the arena refuses.
"""

from __future__ import annotations

import pickle
import shutil
import struct
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import IO, Any

from bot.engine.state import Action, parse_action


class ArenaError(RuntimeError):
    """A level that cannot be played (an unknown ref, a worker that failed)."""


# The worker runs in the other version's tree; it may use only what every version has:
# new_game, deal, apply, Layout, rules_from_dict, view and choose_action.
WORKER = r'''
import pickle, shutil, struct, sys, time, traceback
root = sys.argv[1]
sys.path.insert(0, root)
import bot
if not bot.__file__.startswith(root):
    raise SystemExit(f"bot imported from {bot.__file__}, not from {root}")
from bot.ai import choose_action
from bot.engine.game import apply, deal, new_game
from bot.engine.rules import rules_from_dict
from bot.engine.state import Layout
from bot.engine.views import view

inp, out = sys.stdin.buffer, sys.stdout.buffer

def read():
    head = inp.read(4)
    if len(head) < 4:
        return None
    (n,) = struct.unpack(">I", head)
    return pickle.loads(inp.read(n))

def write(obj):
    data = pickle.dumps(obj, protocol=4)
    out.write(struct.pack(">I", len(data)) + data)
    out.flush()

def serve():
    key, state, done = None, None, 0
    write(("ready", bot.__file__))
    while True:
        msg = read()
        if msg is None:
            return
        try:
            k, start, actions, seat, level, seed, think = msg
            if k != key or len(actions) < done:
                rules = rules_from_dict(start["rules"])
                if start["mode"] == "deal":
                    state = deal(new_game(rules, seed=None, first_dealer=start["dealer"]),
                                 Layout(tuple(tuple(h) for h in start["hands"]),
                                        tuple(start["talon"])))
                else:
                    state = new_game(rules, seed=start["seed"])
                key, done = k, 0
            for a in actions[done:]:
                state = apply(state, a)
            done = len(actions)
            deadline = time.monotonic() + think if think is not None else None
            act = choose_action(view(state, seat), level, seed=seed, deadline=deadline)
            write(("ok", str(act)))
        except Exception:
            write(("error", traceback.format_exc()))

try:
    serve()
finally:
    # the input ends when the arena closes this worker or when its process is gone
    # (killed before it could close): either way the export is no longer needed
    shutil.rmtree(root, ignore_errors=True)
'''


def repo_root() -> Path:
    return Path(__file__).resolve().parents[2]


def resolve(ref: str, repo: Path | None = None) -> str:
    """The commit id of ``ref``; ArenaError when git does not know it."""
    repo = repo or repo_root()
    try:
        res = subprocess.run(["git", "-C", str(repo), "rev-parse", "--verify", "--quiet",
                              f"{ref}^{{commit}}"], capture_output=True, text=True,
                             check=False)
    except OSError as e:
        raise ArenaError(f"git is not available: {e}") from None
    sha = res.stdout.strip()
    if res.returncode != 0 or not sha:
        raise ArenaError(f"unknown git ref {ref!r} in {repo}")
    return sha


class RemotePlayer:
    """One worker process playing levels of commit ``ref``."""

    def __init__(self, ref: str, repo: Path | None = None) -> None:
        repo = repo or repo_root()
        self.ref = ref
        self.sha = resolve(ref, repo)
        self.dir = Path(tempfile.mkdtemp(prefix=f"arena-{self.sha[:8]}-"))
        self.proc: subprocess.Popen[bytes] | None = None
        try:
            archive = subprocess.run(["git", "-C", str(repo), "archive", "--format=tar",
                                      self.sha, "bot"], capture_output=True, check=True)
            subprocess.run(["tar", "-x", "-C", str(self.dir)], input=archive.stdout,
                           check=True, capture_output=True)
            self.proc = subprocess.Popen(
                [sys.executable, "-c", WORKER, str(self.dir)], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, cwd=str(self.dir))
            status, info = self._read()
            if status != "ready":
                raise ArenaError(f"the worker of {ref} did not start: {info}")
        except (subprocess.CalledProcessError, OSError) as e:
            self.close()
            raise ArenaError(f"cannot export {ref} ({self.sha[:10]}): {e}") from None
        except BaseException:
            self.close()
            raise
        self.key: object = None

    def _write(self, obj: object) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        data = pickle.dumps(obj, protocol=4)
        self.proc.stdin.write(struct.pack(">I", len(data)) + data)
        self.proc.stdin.flush()

    def _read(self) -> tuple[str, str]:
        assert self.proc is not None and self.proc.stdout is not None
        out: IO[bytes] = self.proc.stdout
        head = out.read(4)
        if len(head) < 4:
            raise ArenaError(f"the worker of {self.ref} stopped (exit {self.proc.poll()})")
        (n,) = struct.unpack(">I", head)
        msg: tuple[str, str] = pickle.loads(out.read(n))
        return msg

    def choose(self, key: object, start: dict[str, Any], actions: list[str], seat: int,
               level: str, seed: int, think: float | None) -> Action:
        self._write((key, start, actions, seat, level, seed, think))
        status, text = self._read()
        if status != "ok":
            raise ArenaError(f"{level}@{self.ref} failed:\n{text}")
        return parse_action(text)

    def close(self) -> None:
        if self.proc is not None:
            if self.proc.stdin is not None:
                self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            if self.proc.stdout is not None:
                self.proc.stdout.close()
            self.proc = None
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> RemotePlayer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
