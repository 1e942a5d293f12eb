"""Helpers of the computer-player tests: rule variants, positions, and replaying a sampled world."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from typing import Any

from bot.ai import normal
from bot.ai.knowledge import Knowledge, World
from bot.engine.game import apply, deal, layout_from_seed, new_game
from bot.engine.rules import Rules, make_rules
from bot.engine.state import Action, DealState, GameState, Layout, Phase, parse_action
from bot.engine.views import TableView, view

VARIANTS: list[dict[str, Any]] = [
    {},
    {"players": 4},
    {"players": 2},
    {"players": 2, "two_player_pass": "give_one"},
    {"players": 2, "two_player_mode": "stock"},
    {"pass_face_down": False},
    {"marriage_first_lead": True, "ace_marriage": True},
    {"dark_play": True, "dark_unblind": True},
    {"golden_round": True, "golden_raise": True},
    {"bid_jumps": False, "talon_hidden_on_100": False},
    {"bid_needs_marriage": False},
    {"must_lead_trump": True, "last_trick_bonus": 10},
    {"no_lead_foreign_trump": True, "redeal_after_pass": True, "four_nines_bonus": True},
    {"players": 2, "unused_talon_to_last_trick": True},
]


def variant_rules(i: int) -> Rules:
    return make_rules("classic", **VARIANTS[i % len(VARIANTS)])


def policy(v: TableView, rng: random.Random, mix: float) -> Action:
    """A fast generator of plausible play: ``normal`` mixed with random moves."""
    if rng.random() < mix:
        return rng.choice(v.legal)
    return normal.choose(v, rng)


def play_position(rules: Rules, seed: int, cards_to_play: int, mix: float = 0.3,
                  ) -> tuple[GameState, GameState] | None:
    """(the state before the deal, a state during play after ``cards_to_play`` cards), or None
    when the deal ended before (a redeal, a concession)."""
    rng = random.Random(seed)
    dealer = rng.randrange(rules.players)
    pre = new_game(rules, seed=None, first_dealer=dealer)
    st = deal(pre, layout_from_seed(seed, rules, dealer))
    played = 0
    while True:
        if st.phase in (Phase.DEALING, Phase.GAME_OVER):
            return None
        if st.phase == Phase.PLAY and played >= cards_to_play:
            return pre, st
        v = view(st, st.to_act)
        a = policy(v, rng, mix)
        if st.phase == Phase.PLAY:
            played += 1
        st = apply(st, a)


def play_positions(rules: Rules, seeds: Iterable[int], cards_to_play: int | Callable[[int], int],
                   mix: float = 0.3) -> Iterator[tuple[int, GameState, DealState]]:
    """``play_position`` for each of ``seeds`` (``cards_to_play`` a number, or one for each
    seed), the deals that reached play only: (the seed, the state during play, its deal)."""
    for seed in seeds:
        n = cards_to_play if isinstance(cards_to_play, int) else cards_to_play(seed)
        pos = play_position(rules, seed, n, mix)
        if pos is None:
            continue
        real = pos[1]
        assert real.deal is not None
        yield seed, real, real.deal


def replay(pre: GameState, real: GameState, seat: int, know: Knowledge, world: World) -> GameState:
    """The real deal's actions replayed on the cards of ``world`` (hidden choices taken
    from the world: the cards passed, the discards, which talon)."""
    d = real.deal
    assert d is not None
    n = real.n
    hands: list[tuple[int, ...]] = [() for _ in range(n)]
    for s in d.active:
        hands[s] = tuple(sorted(know.orig_hand(world, s)))
    if len(d.active) == 2:
        talon = tuple(sorted(world.talon)) + tuple(sorted(world.closed))
    else:
        talon = tuple(sorted(world.talon))
    st = deal(pre, Layout(tuple(hands), talon))
    gives = [world.received[to] for to, _ in d.gave]
    discards = list(world.discarded)
    for item in d.actions:
        while st.phase == Phase.REDEAL:
            st = apply(st, "keep")
        _, text = item.split(":", 1)
        a = parse_action(text)
        if a.kind in ("keep", "redeal"):
            continue
        if a.kind == "talon":
            a = Action("talon", value=1)
        elif a.kind == "give":
            a = Action("give", card=gives.pop(0))
        elif a.kind == "discard":
            a = Action("discard", card=discards.pop(0))
        st = apply(st, a)
    while st.phase == Phase.REDEAL:
        st = apply(st, "keep")
    return st


def visible(v: TableView) -> dict[str, Any]:
    """The fields of a view that depend on the cards."""
    return {
        "phase": v.phase, "hand": sorted(v.hand), "hand_sizes": v.hand_sizes, "bids": v.bids,
        "declarer": v.declarer, "contract": v.contract, "talon": sorted(v.talon),
        "talon_shown": v.talon_shown, "received": v.received, "gave": v.gave,
        "discarded": sorted(v.discarded), "trump": v.trump, "trick": v.trick,
        "tricks": v.tricks, "declared": v.declared, "taken": v.taken, "ntricks": v.ntricks,
        "legal": sorted(v.legal), "kind": v.kind, "to_act": v.to_act,
    }


def with_hands(st: GameState, hands: list[tuple[int, ...]], leader: int, trump: int,
               won: tuple[int, ...], declarer: int) -> GameState:
    """A play position with the given hands (the engine does not check where cards went)."""
    d = st.deal
    assert d is not None
    n = st.n
    d = replace(d, hands=tuple(tuple(sorted(h)) for h in hands), trick=(), leader=leader,
                to_act=leader, trump=trump, ntricks=won, taken=(0,) * n, declared=(),
                declarer=declarer, contract=100, tricks=(), has_led=(True,) * n)
    return replace(st, phase=Phase.PLAY, deal=d)


def true_world(st: GameState) -> World:
    """The real cards of ``st``'s deal as a ``World`` (what the sampler guesses at)."""
    d = st.deal
    assert d is not None
    return World({s: frozenset(d.hands[s]) for s in d.active},
                 {s: d.received[s] for s in d.active if s != d.declarer},
                 tuple(d.layout.talon), (), ())
