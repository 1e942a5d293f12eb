"""RULES.md §2.1–2.7: dealing, redeals, bidding, the talon, passing cards, the contract,
concession; §3: the dealer's rotation."""

from __future__ import annotations

import random

import pytest

from bot.engine.game import apply, bid_cap, new_game, play_random_deal
from bot.engine.rules import make_rules
from bot.engine.state import IllegalAction, Phase
from bot.engine.views import public_view, view

from .helpers import (
    HEARTS_HANDS,
    HEARTS_TALON,
    SWEEP_HAND,
    SWEEP_OTHER_1,
    SWEEP_OTHER_2,
    SWEEP_TALON,
    bids,
    card,
    cards,
    concede_deal,
    deal_sweep,
    do,
    legal,
    new,
    result,
    start,
    sweep,
)

# dealer 0: seat 1 (forehand) holds the aces and tens (no marriage, cap 120), seat 2 the
# ♠ and ♣ marriages (cap 220), seat 0 the ♦ and ♥ marriages (cap 300)
SWEEP = (SWEEP_OTHER_2, SWEEP_HAND, SWEEP_OTHER_1)


def test_seven_cards_each_three_in_the_talon() -> None:
    s = new_game(make_rules(), seed=7)
    assert s.deal is not None
    assert [len(h) for h in s.deal.hands] == [7, 7, 7]
    assert len(s.deal.talon) == 3


def test_forehand_sits_on_100() -> None:
    s = start(None, SWEEP, SWEEP_TALON, dealer=0)
    assert s.phase == Phase.BIDDING
    d = s.deal
    assert d is not None
    assert d.forehand == 1
    assert d.bids == ((1, 100),)
    assert (d.bid, d.bidder) == (100, 1)
    assert s.to_act == 2  # then clockwise


def test_both_others_pass_forehand_declares_100() -> None:
    s = start(None, SWEEP, SWEEP_TALON)
    s = do(s, "2 pass", "0 pass")
    d = s.deal
    assert d is not None
    # the forehand has made no decision yet: it takes the talon by hand (§2.3), its
    # chance to ask for a redeal before seeing the talon
    assert s.phase == Phase.TALON and s.to_act == 1
    assert (d.declarer, d.bid) == (1, 100)
    assert legal(s) == ["talon 1"]  # 40 points, no redeal
    assert len(d.hands[1]) == 7
    s = do(s, "1 talon 1")
    d = s.deal
    assert d is not None
    assert s.phase == Phase.PASSING
    assert len(d.hands[1]) == 10  # took the talon


def test_bids_in_steps_of_5_up_to_the_cap() -> None:
    s = start(None, SWEEP, SWEEP_TALON)
    assert bids(s) == list(range(105, 221, 5))  # seat 2: 120 + ♠40 + ♣60
    for bad in ("bid 107", "bid 100", "bid 95"):
        with pytest.raises(IllegalAction):
            apply(s, bad)


def test_pass_is_final_and_last_bidder_declares() -> None:
    s = start(None, SWEEP, SWEEP_TALON)
    s = do(s, "2 pass", "0 bid 105", "1 bid 110")
    assert s.to_act == 0  # seat 2 passed and is never asked again
    s = do(s, "0 bid 120", "1 pass")
    d = s.deal
    assert d is not None
    assert s.phase == Phase.PASSING
    assert (d.declarer, d.bid) == (0, 120)
    assert d.bids == ((1, 100), (2, 0), (0, 105), (1, 110), (0, 120), (1, 0))


def test_bid_above_120_needs_a_marriage() -> None:
    s = start(None, SWEEP, SWEEP_TALON)
    s = do(s, "2 pass", "0 bid 105")
    assert s.to_act == 1  # the forehand holds no marriage
    assert bids(s) == [110, 115, 120]
    with pytest.raises(IllegalAction, match="marriage"):
        apply(s, "bid 125")


def test_bid_cap_is_120_plus_marriages_never_above_300() -> None:
    r = make_rules()
    assert bid_cap(r, cards("A♠ 10♠ A♣ 10♣ A♦ 10♦ A♥")) == 120
    assert bid_cap(r, cards("K♥ Q♥ 9♠")) == 220
    assert bid_cap(r, cards("K♥ Q♥ K♠ Q♠")) == 260
    assert bid_cap(r, cards("K♥ Q♥ K♦ Q♦ K♣ Q♣ 9♠")) == 300  # 360 capped
    # through the auction: seat 0 holds ♦ and ♥: 120 + 80 + 100 = 300
    s = start(None, SWEEP, SWEEP_TALON)
    s = do(s, "2 pass")
    assert bids(s)[-1] == 300
    with pytest.raises(IllegalAction):
        apply(s, "bid 305")


def test_talon_hidden_when_won_at_100_without_raise() -> None:
    s = do(start(None, SWEEP, SWEEP_TALON), "2 pass", "0 pass", "1 talon 1")
    d = s.deal
    assert d is not None
    assert not d.talon_shown
    assert public_view(s).talon == ()
    assert view(s, 2).talon == ()
    assert view(s, 0).talon == ()
    assert view(s, 1).talon == cards(SWEEP_TALON)  # the declarer knows it


def test_talon_shown_when_the_bid_was_raised() -> None:
    s = do(start(None, SWEEP, SWEEP_TALON), "2 bid 105", "0 pass", "1 bid 110", "2 pass")
    d = s.deal
    assert d is not None
    assert (d.declarer, d.bid) == (1, 110)
    assert d.talon_shown
    assert public_view(s).talon == cards(SWEEP_TALON)
    assert view(s, 2).talon == cards(SWEEP_TALON)


def test_talon_shown_when_another_seat_wins() -> None:
    s = do(start(None, SWEEP, SWEEP_TALON), "2 bid 105", "0 pass", "1 pass")
    assert public_view(s).talon == cards(SWEEP_TALON)


def test_passing_one_card_to_each_defender() -> None:
    s = do(start(None, SWEEP, SWEEP_TALON), "2 pass", "0 pass", "1 give 9♠")
    d = s.deal
    assert d is not None
    assert d.received[2] == card("9♠")  # the first card goes to the next seat clockwise
    assert s.phase == Phase.PASSING
    s = do(s, "1 give J♣")
    d = s.deal
    assert d is not None
    assert d.received[0] == card("J♣")
    assert [len(h) for h in d.hands] == [8, 8, 8]
    assert card("9♠") in d.hands[2] and card("J♣") in d.hands[0]
    assert s.phase == Phase.CONTRACT
    # face down: each defender sees only the card it received
    assert view(s, 2).received == card("9♠") and view(s, 2).gave == ()
    assert view(s, 0).received == card("J♣") and view(s, 0).gave == ()
    assert public_view(s).gave == () and public_view(s).received == -1
    assert view(s, 1).gave == ((2, card("9♠")), (0, card("J♣")))
    assert public_view(s).gave_count == 2


def test_contract_from_the_bid_up_to_the_cap() -> None:
    s = start(None, HEARTS_HANDS, HEARTS_TALON)
    s = do(s, "2 pass", "0 pass", "1 give J♠", "1 give J♣")
    assert [a for a in legal(s) if a.startswith("contract")] == [
        f"contract {v}" for v in range(100, 221, 5)
    ]
    assert "concede" in legal(s)
    with pytest.raises(IllegalAction):
        apply(s, "contract 225")  # above 120 + ♥100
    with pytest.raises(IllegalAction):
        apply(s, "contract 95")
    s = do(s, "1 contract 170")
    assert s.phase == Phase.PLAY
    d = s.deal
    assert d is not None
    assert d.contract == 170
    assert s.to_act == 1  # the declarer leads the first trick


def test_contract_cap_counts_the_hand_after_passing() -> None:
    s = start(None, HEARTS_HANDS, HEARTS_TALON)
    s = do(s, "2 pass", "0 pass", "1 give K♥", "1 give J♣")  # gave its marriage away
    assert [a for a in legal(s) if a.startswith("contract")] == [
        "contract 100", "contract 105", "contract 110", "contract 115", "contract 120",
    ]


@pytest.mark.parametrize(("bid", "paid"), [(105, 55), (115, 60), (120, 60)])
def test_concession_pays_half_the_bid_rounded_up_to_5(bid: int, paid: int) -> None:
    s = concede_deal(new(), declarer=2, bid=bid)
    res = result(s)
    assert res.outcome == "conceded"
    assert res.scores == (paid, paid, -bid)
    assert s.totals == (paid, paid, -bid)
    assert s.bolts == (0, 0, 0)  # no bolts are written
    assert s.dealer == 1


def test_concession_of_140_pays_70() -> None:
    s = start(None, HEARTS_HANDS, HEARTS_TALON)
    s = do(s, "2 bid 135", "0 pass", "1 bid 140", "2 pass", "1 give J♠", "1 give J♣",
           "1 concede")
    assert result(s).scores == (70, -140, 70)


def test_concession_by_the_forehand_at_100() -> None:
    s = concede_deal(new(), declarer=1)
    assert result(s).scores == (50, -100, 50)


def test_dealer_rotates_clockwise() -> None:
    s = new(dealer=0)
    dealers = []
    for _ in range(4):
        d = deal_sweep(s, (s.dealer + 1) % 3).deal
        assert d is not None
        dealers.append((d.dealer, d.forehand))
        s = sweep(s, (s.dealer + 1) % 3)
    assert dealers == [(0, 1), (1, 2), (2, 0), (0, 1)]


def test_redeal_keeps_the_dealer_and_scores_nothing() -> None:
    hands = (
        "K♠ K♣ Q♦ K♦ 9♦ 10♥ K♥",  # seat 0: 29
        "A♠ 10♠ A♣ 10♣ A♦ 10♦ A♥",  # seat 1
        "9♠ 9♣ J♠ J♣ Q♠ Q♣ J♦",  # seat 2: 12 points < 14
    )
    s = start(None, hands, "9♥ J♥ Q♥", dealer=0, totals=(100, 200, 300))
    # the request is offered privately with seat 2's first bid (§2.3)
    assert s.phase == Phase.BIDDING
    assert s.to_act == 2 and legal(s)[0] == "pass" and legal(s)[-1] == "redeal"
    assert public_view(s).legal == () and view(s, 0).legal == () and view(s, 0).offers == ()
    with pytest.raises(IllegalAction) as e:
        apply(s, "redeal", seat=1)
    assert e.value.code == "not_your_turn"
    s = do(s, "2 redeal")
    res = result(s)
    assert res.outcome == "redeal"
    assert res.scores == (0, 0, 0)
    assert s.totals == (100, 200, 300)
    assert s.phase == Phase.DEALING
    assert s.dealer == 0  # the same dealer deals again


def test_the_redeal_request_lapses_with_the_first_decision() -> None:
    hands = ("K♠ K♣ Q♦ K♦ 9♦ 10♥ K♥", "A♠ 10♠ A♣ 10♣ A♦ 10♦ A♥", "9♠ 9♣ J♠ J♣ Q♠ Q♣ J♦")
    s = do(start(None, hands, "9♥ J♥ Q♥"), "2 bid 105", "0 pass", "1 bid 110")
    assert s.to_act == 2 and "redeal" not in legal(s)  # seat 2 has decided once
    with pytest.raises(IllegalAction) as e:
        apply(s, "redeal")
    assert e.value.code == "redeal_not_now"


def test_seeded_games_rotate_the_dealer_except_after_a_redeal() -> None:
    rng = random.Random(3)
    s = new_game(make_rules(), seed=11)
    for _ in range(30):
        before = s.dealer
        s = play_random_deal(s, rng)
        if s.phase == Phase.GAME_OVER:
            break
        if result(s).outcome == "redeal":
            assert s.dealer == before
        else:
            assert s.dealer == (before + 1) % 3


def test_hidden_talon_does_not_leak_through_the_score_sheet() -> None:
    s = sweep(new(), 1)  # the forehand won at 100: the talon stayed hidden
    assert result(s).layout.talon == cards(SWEEP_TALON)  # the full record keeps it
    for v in (public_view(s), view(s, 2)):
        assert v.history[-1].layout.talon == () and v.history[-1].actions == ()
        assert v.history[-1].scores == (0, 100, 0)
