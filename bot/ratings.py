"""Player ratings across games of 2, 3 or 4 seats: OpenSkill's Plackett–Luce model.

Why OpenSkill (the ``openskill`` package, v6): it is maintained, rates free-for-all games
of any number of players in one update (a Thousand game is one ranking of 2–4 seats, not
a set of pairwise duels as Elo would need), handles ties, keeps an uncertainty (sigma)
per player so newcomers move fast and regulars settle, is deterministic, pure Python and
MIT-licensed (TrueSkill, the model it follows, is patent-encumbered).  Plackett–Luce is
the model OpenSkill recommends for multiplayer rankings: a ranking is read as "the
first beat everyone, the second beat the rest, ...".

Parameters (OpenSkill's defaults, the scale of the Weng–Lin paper): a new player has
mu = 25 and sigma = 25/3; beta = 25/6 (the performance noise of one game: Thousand has a
lot of luck, and a larger beta would make single games count less); tau = 25/300 (sigma
grows this much before each game so ratings never freeze); kappa = 0.0001.

Who is rated: every seat, people by their id (any string) and computer players as
``ai:<level>`` ("ai:hard", "ai:normal", "ai:random"), so beating the strong computer is
worth more than beating the random one once their ratings have settled.  When one id has
several seats in a game (two "ai:hard" seats against a person), each seat is rated as a
copy of that rating and the id gets the mean of the seats' new ratings.

The displayed rating is the conservative ordinal mu − 3·sigma (the skill is above it with
99.7% certainty), shown as ``1000 + 40·(mu − 3·sigma)`` rounded and never below 0: a new
player shows 1000; it rises as sigma shrinks and with wins.

All functions are pure: ratings are immutable values, nothing is stored here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from openskill.models import PlackettLuce

from bot.stats import places

__all__ = ["AI_IDS", "DEFAULT", "Rating", "display", "ranking_from_totals", "update"]

MU: Final = 25.0
SIGMA: Final = 25.0 / 3.0
BETA: Final = 25.0 / 6.0
TAU: Final = 25.0 / 300.0
DISPLAY_OFFSET: Final = 1000.0
DISPLAY_SCALE: Final = 40.0
AI_IDS: Final = ("ai:hard", "ai:normal", "ai:random")

# One model for every call: ``rate`` copies its input and reads the model's parameters only
# (never pass it ``limit_sigma``: that argument is stored on the model).
_MODEL: Final = PlackettLuce(mu=MU, sigma=SIGMA, beta=BETA, tau=TAU)


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's skill belief: mean ``mu`` and uncertainty ``sigma``."""

    mu: float = MU
    sigma: float = SIGMA

    @property
    def ordinal(self) -> float:
        """mu − 3·sigma: the skill is above this with 99.7% certainty."""
        return self.mu - 3.0 * self.sigma


DEFAULT: Final = Rating()


def display(r: Rating) -> int:
    """The rating shown to people: 1000 + 40·(mu − 3·sigma), rounded, at least 0."""
    return max(0, round(DISPLAY_OFFSET + DISPLAY_SCALE * r.ordinal))


def ranking_from_totals(players: Sequence[str], totals: Sequence[int], winner: int = -1
                        ) -> list[list[str]]:
    """A game's ranking (best group first, ties grouped) from the final totals.

    ``players[i]`` is the id of seat i; ``winner`` (a seat, -1 for none) comes first even
    if another seat has more points; equal totals share a place.
    """
    if len(players) != len(totals):
        raise ValueError("one id per seat expected")
    place = places(totals, winner)
    return [[players[i] for i in range(len(players)) if place[i] == p]
            for p in sorted(set(place))]


def _groups(ranking: Sequence[Sequence[str]] | Mapping[str, int]) -> list[list[str]]:
    if isinstance(ranking, Mapping):
        by_place: dict[int, list[str]] = {}
        for pid, p in ranking.items():
            by_place.setdefault(int(p), []).append(pid)
        return [by_place[p] for p in sorted(by_place)]
    groups = []
    for g in ranking:
        if isinstance(g, str):
            raise TypeError("a ranking is a list of groups of ids, e.g. [['a'], ['b', 'c']]")
        groups.append(list(g))
    return groups


def update(ratings: Mapping[str, Rating], ranking: Sequence[Sequence[str]] | Mapping[str, int]
           ) -> dict[str, Rating]:
    """The new ratings of a game's players after one game.

    ``ranking`` is either a list of groups of player ids, best first, the ids of a group
    sharing a place (``[["alice"], ["ai:hard", "bob"]]``), or a mapping id -> place
    (1 the best; equal places tie).  An id may appear more than once (several seats of one
    computer level).  Players missing from ``ratings`` start at ``DEFAULT``.  Returns the
    new ratings of the game's players only; ``ratings`` is not changed.
    """
    groups = _groups(ranking)
    seats = [(pid, rank) for rank, g in enumerate(groups) for pid in g]
    if len(seats) < 2:
        raise ValueError("a game needs at least two seats")
    teams = [[_MODEL.rating(mu=ratings.get(pid, DEFAULT).mu,
                            sigma=ratings.get(pid, DEFAULT).sigma)] for pid, _ in seats]
    ranks: list[float] = [float(rank) for _, rank in seats]
    rated = _MODEL.rate(teams, ranks=ranks)
    new: dict[str, list[tuple[float, float]]] = {}
    for (pid, _), team in zip(seats, rated, strict=True):
        new.setdefault(pid, []).append((team[0].mu, team[0].sigma))
    return {pid: Rating(sum(m for m, _ in v) / len(v), sum(s for _, s in v) / len(v))
            for pid, v in new.items()}
