"""Non-interference (RULES.md §2.3 and the views' promise): no hidden card changes what another
seat or the table sees.

Two deals that differ only in how cards are split between two hidden hands are played with
the same actions (each step an action legal in both). At every step, until a deal ends, the
public view and the view of every seat whose own hand is the same must be identical — so a
hand that may ask for a redeal, holds a marriage or four nines, or forces a contract leaves
no trace on the table. (Nobody asks for a redeal here: the request itself is public; so is
a four-nines bonus claimed on a conceded deal, §5.7, whose cards are never played.) The
deal after is dealt the same cards in both games, so the score sheet is compared too.
"""

from __future__ import annotations

import random
from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.engine import cards as C
from bot.engine.game import active_seats, apply, deal, layout_from_seed, legal_actions, new_game
from bot.engine.rules import Rules
from bot.engine.state import REDEAL, GameState, Layout, Phase
from bot.engine.views import public_view, view

from .test_properties import rule_sets

SETTINGS = settings(max_examples=100, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def swapped(lay: Layout, a: int, b: int, picks_a: list[int], picks_b: list[int]) -> Layout:
    """``lay`` with the cards at ``picks_a`` of hand ``a`` and ``picks_b`` of hand ``b``
    exchanged."""
    ha, hb = list(lay.hands[a]), list(lay.hands[b])
    for i, j in zip(picks_a, picks_b, strict=True):
        ha[i], hb[j] = hb[j], ha[i]
    hands = list(lay.hands)
    hands[a], hands[b] = C.sort_hand(ha), C.sort_hand(hb)
    return Layout(tuple(hands), lay.talon)


def position(rules: Rules, state: GameState, totals: list[int]) -> GameState:
    """A game position with ``totals`` (a seat at the barrel's mark sits on it)."""
    barrel = tuple(0 if rules.barrel and not rules.stock_mode and t == rules.barrel_at else -1
                   for t in totals)
    return replace(state, totals=tuple(totals), barrel=barrel)


def same_views(s1: GameState, s2: GameState, observers: list[int], where: str) -> None:
    assert public_view(s1) == public_view(s2), f"the table differs {where}"
    for seat in observers:
        assert view(s1, seat) == view(s2, seat), f"seat {seat}'s view differs {where}"


def play_twins(rules: Rules, seed: int, swap: tuple[int, int, int], totals: list[int],
               dealer: int) -> int:
    """Play the twin games; return the number of steps compared."""
    rng = random.Random(seed)
    lay1 = layout_from_seed(seed, rules, dealer)
    active = list(active_seats(rules, dealer))
    a, b = rng.sample(active, 2)
    k, sa, sb = swap
    size = len(lay1.hands[a])
    k = 1 + k % size
    picks_a = random.Random(sa).sample(range(size), k)
    picks_b = random.Random(sb).sample(range(size), k)
    lay2 = swapped(lay1, a, b, picks_a, picks_b)
    observers = [s for s in range(rules.players) if s not in (a, b)]
    base = position(rules, new_game(rules, first_dealer=dealer), totals)
    s1, s2 = deal(base, lay1), deal(base, lay2)
    steps = 0
    for deal_index in range(2):
        while s1.phase not in (Phase.DEALING, Phase.GAME_OVER):
            same_views(s1, s2, observers, f"at step {steps} ({s1.phase})")
            legal2 = legal_actions(s2)
            common = [x for x in legal_actions(s1) if x in legal2 and x.kind != REDEAL]
            if not common:
                return steps  # the hidden hands' owners have nothing in common to do
            passes = [x for x in common if x.kind == "pass"]
            action = passes[0] if passes and rng.random() < 0.6 else rng.choice(common)
            s1, s2 = apply(s1, action), apply(s2, action)
            steps += 1
        if any(h.history[-1].outcome == "conceded"
               and "four_nines_bonus" in {n.code for n in h.history[-1].notes} for h in (s1, s2)):
            return steps  # claiming four nines on a conceded deal shows them, as a request does
        same_views(s1, s2, observers, "after the deal")
        if s1.phase == Phase.GAME_OVER or s1.history[-1].outcome == "redeal":
            return steps
        if deal_index == 0:  # the next deal: the same cards in both games
            nxt = layout_from_seed(seed + 1, rules, s1.dealer)
            s1, s2 = deal(s1, nxt), deal(s2, nxt)
    return steps


TOTALS = st.lists(st.sampled_from([0, 0, 0, -150, 100, 550, 880]), min_size=4, max_size=4)
SWAPS = st.tuples(st.integers(0, 9), st.integers(0, 10**6), st.integers(0, 10**6))


@SETTINGS
@given(rules=rule_sets(players=3), seed=st.integers(0, 10**9), swap=SWAPS, totals=TOTALS,
       dealer=st.integers(0, 2))
def test_hidden_cards_never_change_what_others_see_three_players(
    rules: Rules, seed: int, swap: tuple[int, int, int], totals: list[int], dealer: int
) -> None:
    play_twins(rules, seed, swap, totals[:3], dealer)


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(rules=rule_sets(players=4), seed=st.integers(0, 10**9), swap=SWAPS, totals=TOTALS,
       dealer=st.integers(0, 3))
def test_hidden_cards_never_change_what_others_see_four_players(
    rules: Rules, seed: int, swap: tuple[int, int, int], totals: list[int], dealer: int
) -> None:
    play_twins(rules, seed, swap, totals, dealer)


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(rules=rule_sets(players=2), seed=st.integers(0, 10**9), swap=SWAPS, totals=TOTALS,
       dealer=st.integers(0, 1))
def test_hidden_cards_never_change_what_the_table_sees_two_players(
    rules: Rules, seed: int, swap: tuple[int, int, int], totals: list[int], dealer: int
) -> None:
    play_twins(rules, seed, swap, totals[:2], dealer)


def test_a_hand_that_may_ask_for_a_redeal_leaves_no_trace() -> None:
    """The audit's case: seat 2 holds 12 points (it may ask) in one deal and 40 in the
    other; before its answer the table and seat 0 see the same."""
    from bot.engine.rules import make_rules

    rules = make_rules(redeal_after_pass=True)
    weak = Layout((C.parse_cards("K♠ K♣ Q♦ K♦ 9♦ 10♥ K♥"), C.parse_cards("A♠ 10♠ A♣ 10♣ A♦ 10♦ A♥"),
                   C.parse_cards("9♠ 9♣ J♠ J♣ Q♠ Q♣ J♦")), C.parse_cards("9♥ J♥ Q♥"))
    strong = swapped(weak, 1, 2, [0, 1, 2], [0, 1, 2])  # seat 2 gets A♠ 10♠ A♣
    base = new_game(rules, first_dealer=0)
    s1, s2 = deal(base, weak), deal(base, strong)
    assert REDEAL in {x.kind for x in legal_actions(s1)}
    assert REDEAL not in {x.kind for x in legal_actions(s2)}
    same_views(s1, s2, [0], "before seat 2's first bid")
    assert public_view(s1).phase == Phase.BIDDING and public_view(s1).to_act == 2
