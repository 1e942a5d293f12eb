"""The explainer: hints (``hard``'s move and a reason) and the open-card deal analysis.

Every reason a hint can give has a checker here (``check``) that tests it against the
position: the facts on the table, and for "takes the trick whatever the others hold" every
way the trick can still be played on the real cards and on layouts sampled from what the
seat knows. ``test_every_reason_is_true_in_random_positions`` runs them over a few hundred
positions of deals played by ``normal`` mixed with random moves."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator, Mapping
from dataclasses import replace

from bot.ai import choose_action, hard
from bot.ai.explain import (
    Hint,
    Reason,
    _card_reason,
    analyse,
    hint,
    may_hold,
    play_hint,
)
from bot.ai.knowledge import Knowledge
from bot.ai.normal import without_redeal
from bot.engine import cards as C
from bot.engine.game import apply, new_game
from bot.engine.rules import CLASSIC, make_rules
from bot.engine.state import (
    BID,
    CONCEDE,
    CONTRACT,
    DARK,
    DECLARE,
    DISCARD,
    GIVE,
    LIGHT,
    PLAY,
    REDEAL,
    Action,
    GameState,
    Phase,
    Trick,
)
from bot.engine.views import TableView, view
from bot.i18n import CATALOGS, LANGS
from bot.tg.rooms.hints import hint_text
from bot.tg.view.render import card_text
from tests.ai.helpers import play_position, variant_rules
from tests.engine.helpers import do, start

PLAY_CODES = {"marriage", "ace_marriage", "lead_wins", "top_left", "lead_top", "draw_trumps",
              "lead_low", "lead_cheap", "takes_last", "trumps_in", "takes", "beats_now",
              "load_partner", "cheap", "duck_cheap"}
SEARCH_CODES = {"search_points", "search_best", "quick"}
CHANCE_CODES = {"made_pct", "beaten_pct", "made_pct_fit", "beaten_pct_fit"}
OTHER_CODES = {"only", "light", "redeal", "redeal_nines", "no_redeal", "nines_bonus", "bid",
               "pass", "redeal_talon", "give_loose", "give_cheap", "contract", "concede",
               "talon", "estimate"}
CODES = PLAY_CODES | SEARCH_CODES | CHANCE_CODES | OTHER_CODES
# the claims "the trick is taken whatever the others hold" (by this card; by the partner)
SURE_MINE = {"lead_wins", "top_left", "takes_last", "trumps_in", "takes"}


# ----------------------------------------------------------------------------- checkers


def _follows(hand: frozenset[int] | tuple[int, ...], led: int, trump: int) -> list[int]:
    """The cards a seat may play to a trick led in ``led`` (the rule book, §4)."""
    same = [c for c in hand if C.suit_of(c) == led]
    if same:
        return same
    trumps = [c for c in hand if trump >= 0 and C.suit_of(c) == trump]
    return trumps or list(hand)


def _winners(v: TableView, card: int, trump: int,
             hands: Mapping[int, frozenset[int] | tuple[int, ...]]) -> set[int]:
    """The seats that may win the current trick after this seat plays ``card``, over every
    legal way the later seats can play it with ``hands``."""
    order = v.active
    k = len(order)
    i = order.index(v.seat)
    later = [order[(i + j) % k] for j in range(1, k - len(v.trick))]
    trick = [*v.trick, (v.seat, card)]
    led = C.suit_of(trick[0][1])
    out: set[int] = set()

    def walk(t: list[tuple[int, int]], rest: list[int]) -> None:
        if not rest:
            w = C.trick_winner_index([c for _, c in t], trump if trump >= 0 else None)
            out.add(t[w][0])
            return
        s = rest[0]
        for c in _follows(hands[s], led, trump):
            walk([*t, (s, c)], rest[1:])

    walk(trick, later)
    return out


def _layouts(v: TableView, real: GameState, n: int, rng: random.Random
             ) -> Iterator[Mapping[int, frozenset[int] | tuple[int, ...]]]:
    """The real hands, then ``n`` layouts sampled from what the seat knows."""
    d = real.deal
    assert d is not None
    yield {s: d.hands[s] for s in v.active}
    if v.rules.stock_mode:
        return
    know = Knowledge(v)
    for _ in range(n):
        yield know.sample(rng).hands


def _played(v: TableView) -> set[int]:
    return {c for t in v.tricks for _, c in t.cards} | {c for _, c in v.trick}


def check(v: TableView, real: GameState, act: Action, r: Reason, rng: random.Random,
          scores: hard.PlayScores | None = None) -> None:
    """Assert that reason ``r`` given for ``act`` is true in the view ``v`` of ``real``."""
    p = dict(r.params)
    assert r.code in CODES, r
    if "card" in p:
        assert p["card"] == act.card, (r, act)
    legal_cards = [a.card for a in v.legal if a.kind in (PLAY, DECLARE)]
    trump = v.trump
    if r.code in PLAY_CODES:
        card = act.card
        assert act.kind in (PLAY, DECLARE) and card in v.hand
        cheapest = C.points(card) == min(C.points(c) for c in legal_cards)
        trick_cards = [c for _, c in v.trick]
        best_i = C.trick_winner_index(trick_cards, trump if trump >= 0 else None) \
            if v.trick else -1
        if r.code == "marriage":
            assert act.kind == DECLARE and C.rank_of(card) in (C.KING, C.QUEEN)
            assert p["value"] == C.MARRIAGE_VALUES[C.suit_of(card)]
            d = apply(real, act).deal
            assert d is not None and d.trump == C.suit_of(card)  # "the suit becomes trump"
        elif r.code == "ace_marriage":
            assert act.kind == DECLARE and C.rank_of(card) == C.ACE
            assert p["value"] == C.ACE_MARRIAGE_VALUE
            d = apply(real, act).deal
            assert d is not None and d.trump == trump  # "the trump stays"
        else:
            assert act.kind == PLAY
        if r.code in SURE_MINE:
            for hands in _layouts(v, real, 6, rng):
                assert _winners(v, card, trump, hands) == {v.seat}, (r, hands)
        if r.code == "top_left":
            gone = p["gone"]
            assert gone in _played(v) and C.suit_of(gone) == C.suit_of(card) and gone > card
        if r.code in ("lead_wins", "lead_top", "draw_trumps", "lead_low", "lead_cheap",
                      "marriage", "ace_marriage"):
            assert not v.trick, r
        if r.code == "lead_top":  # nobody holds a higher card of the suit; a trump may beat
            assert trump >= 0 and C.suit_of(card) != trump
            for hands in _layouts(v, real, 6, rng):
                for s in v.active:
                    if s != v.seat:
                        assert not any(C.suit_of(c) == C.suit_of(card) and c > card
                                       for c in hands[s]), (r, hands)
        if r.code == "draw_trumps":
            assert trump >= 0 and C.suit_of(card) == trump
        if r.code == "lead_low":
            mine = [c for c in v.hand if C.suit_of(c) == C.suit_of(card)]
            assert card == min(mine) and len(mine) > 1
        if r.code in ("lead_cheap", "cheap", "duck_cheap"):  # the cheapest legal card
            assert cheapest, (r, C.fmt_cards(legal_cards))
        if r.code in ("takes_last", "trumps_in", "takes", "beats_now"):
            assert v.trick and C.beats(card, trick_cards[best_i], trump if trump >= 0 else None)
        if r.code == "takes_last":
            assert len(v.trick) == len(v.active) - 1
        if r.code == "trumps_in":
            assert C.suit_of(card) == trump != C.suit_of(trick_cards[0])
        if r.code in ("cheap", "duck_cheap", "load_partner"):
            assert v.trick
            best = trick_cards[best_i]
            assert not C.beats(card, best, trump if trump >= 0 else None)
            can = any(C.beats(c, best, trump if trump >= 0 else None) for c in legal_cards)
            # "nothing beats the table" / "not beating" (a card that beats exists)
            if r.code == "cheap":
                assert not can
            if r.code == "duck_cheap":
                assert can
        if r.code == "load_partner":
            partner = v.trick[best_i][0]
            assert v.seat != v.declarer and partner not in (v.declarer, v.seat)
            assert C.points(card) > 0
            for hands in _layouts(v, real, 6, rng):
                assert _winners(v, card, trump, hands) == {partner}, (r, hands)
    elif r.code in SEARCH_CODES:
        assert act.kind in (PLAY, DECLARE)
        if scores is not None:
            assert r.code != "quick"
            made = scores.made
            same = max(made) - min(made) <= 1e-9 * max(scores.weight, 1.0)
            assert same == (r.code == "search_points")  # the outcome does not depend on it
            i = scores.moves.index(act)
            assert scores.totals[i] >= max(scores.totals) - 1e-9  # the search's best
    elif r.code in CHANCE_CODES:
        assert 0 <= p["pct"] <= 100
        if r.code.startswith("made"):
            assert v.seat == v.declarer and "seat" not in p  # "you make the contract"
        else:
            assert v.seat != v.declarer and p["seat"] == v.declarer  # "NAME fails it"
        if scores is not None:
            share = scores.share(scores.moves.index(act))
            want = share if v.seat == v.declarer else 1 - share
            assert p["pct"] == max(0, min(100, round(100 * want)))
            assert r.code.endswith("_fit") == scores.inferred
    elif r.code == "only":
        assert len(v.legal) == 1 and act == v.legal[0]
    elif r.code == "no_redeal":
        assert Action(REDEAL) in v.legal and act.kind != REDEAL
        assert len([a for a in v.legal if a.kind != REDEAL]) == 1
    elif r.code in ("redeal_nines", "nines_bonus"):  # four nines after the pass
        assert C.count_rank(v.hand, C.NINE) == 4 and v.rules.redeal_after_pass
        assert v.phase in (Phase.CONTRACT, Phase.PLAY)
        if r.code == "redeal_nines":
            assert act.kind == REDEAL and v.seat != v.declarer
        else:
            assert act.kind != REDEAL and v.rules.four_nines_bonus
    elif r.code in ("redeal", "redeal_talon"):
        assert act.kind == REDEAL and act in v.legal
        assert (v.phase == Phase.PASSING) == (r.code == "redeal_talon")
    elif r.code == "light":
        assert Action(DARK) in v.legal and act == Action(LIGHT)
    elif r.code in ("bid", "pass"):
        assert v.phase == Phase.BIDDING and 0 <= p["pct"] <= 100
        bids = [a.value for a in v.legal if a.kind == BID]
        assert p["value"] == min(bids)
        assert (act.kind == BID) == (r.code == "bid")
        if act.kind == BID:
            assert act.value == p["value"]
    elif r.code == "contract":
        assert act.kind == CONTRACT and p["value"] == act.value and 0 <= p["pct"] <= 100
    elif r.code == "concede":
        assert act.kind == CONCEDE and 0 <= p["pct"] <= 100
    elif r.code == "give_loose":  # "K♠ has no partner"
        card = p["card"]
        assert act.kind in (GIVE, DISCARD) and C.rank_of(card) in (C.KING, C.QUEEN)
        pair = C.card(C.QUEEN if C.rank_of(card) == C.KING else C.KING, C.suit_of(card))
        assert pair not in v.hand
    elif r.code == "give_cheap":
        assert act.kind in (GIVE, DISCARD)
    else:  # talon, estimate: the hand estimate's choice
        assert act in v.legal


def check_hint(v: TableView, real: GameState, h: Hint, rng: random.Random,
               scores: hard.PlayScores | None = None) -> None:
    assert h.action in v.legal and h.reasons
    for r in h.reasons:
        check(v, real, h.action, r, rng, scores)


# ----------------------------------------------------------------------------- positions


def _game(seed: int, deals: int) -> GameState:
    st = new_game(CLASSIC, seed)
    while len(st.history) < deals:
        st = apply(st, choose_action(view(st, st.to_act), "normal", seed=1), st.to_act)
    return st


def _play_view(seed: int = 11) -> TableView:
    st = new_game(CLASSIC, seed)
    while st.phase != Phase.PLAY:
        st = apply(st, choose_action(view(st, st.to_act), "normal", seed=1), st.to_act)
    return view(st, st.to_act)


def issue_47_position() -> GameState:
    """Issue 47's position: trump ♥ (Борис, seat 1, declared K♥ Q♥), Борис led A♣, Вера
    (seat 2) holds ♠ A 10 · ♦ 10 J 9, void in clubs and hearts; Анна (seat 0) showed no
    hearts. Nobody can beat the ace: whatever Вера plays goes to Борис."""
    st = start(None, ["J♥ J♣ Q♠ K♠ Q♣ K♣ A♦", "A♥ K♥ Q♥ 10♥ A♣ 10♣ K♦",
                      "9♥ J♠ A♠ 10♠ 10♦ J♦ 9♦"], "9♠ 9♣ Q♦", dealer=0)
    return do(st, "2 pass", "0 pass", "1 talon 1", "1 give 9♠", "1 give 9♣", "1 contract 160",
              "1 play A♥", "2 play 9♥", "0 play J♥", "1 declare K♥", "2 play 9♠", "0 play 9♣",
              "1 play Q♥", "2 play J♠", "0 play J♣", "1 play A♣")


# ----------------------------------------------------------------------------- tests


def test_every_reason_in_the_catalog_has_a_checker() -> None:
    for lang in LANGS:
        keys = {k.removeprefix("why.") for k in CATALOGS[lang] if k.startswith("why.")}
        assert keys == CODES, (lang, keys ^ CODES)


def test_the_issue_47_position_gets_a_true_reason() -> None:
    st = issue_47_position()
    v = view(st, 2)
    assert st.to_act == 2 and v.trump == C.HEARTS
    assert C.fmt_cards(C.sort_hand(v.hand)) == C.fmt_cards(C.sort_hand(
        C.parse_cards("A♠ 10♠ 10♦ J♦ 9♦")))
    a_s, n_d = C.parse("A♠"), C.parse("9♦")
    # the facts of the position: the nine is the cheapest card and nothing beats the ace
    # of clubs; of the ace of spades no fact says anything good
    assert _card_reason(v, Action(PLAY, card=n_d)) == Reason("cheap", (("card", n_d),))
    assert _card_reason(v, Action(PLAY, card=a_s)) is None
    names = ["Анна", "Борис", "Вера"]
    rng = random.Random(1)
    seen = set()
    for seed in range(6):
        h = hint(v, seed=seed, deadline=time.monotonic() + 0.3)
        check_hint(v, st, h, rng)
        seen.add(h.action.card)
        text = hint_text("ru", h, names)
        assert "Борис не выполнит заказ" in text, text
        if h.action.card == a_s:  # the search's own reason, never "the cheapest card"
            assert h.reasons[0].code in SEARCH_CODES, text
            assert "дешёв" not in text
        assert "заказ срывается" not in text and "заказ выходит" not in text
    # and as the search would say it with the deals' outcome the same after every card
    moves = [Action(PLAY, card=c) for c in C.sort_hand(v.hand)]
    totals = [0.0 if a.card == a_s else -1.0 for a in moves]
    scores = hard.PlayScores(moves, totals, [3.0] * 5, 4, 4.0, True)
    h = play_hint(v, random.Random(0), scores)
    check_hint(v, st, h, rng, scores)
    assert h.action.card == a_s
    assert h.reasons == (Reason("search_points"),
                         Reason("beaten_pct_fit", (("pct", 25), ("seat", 1))))
    assert hint_text("ru", h, names) == (
        f"💡 {card_text(a_s)}: на исход заказа ход не влияет — расчёт выбрал его по очкам · "
        "в 25% раскладов, что сходятся с торговлей и ходами, Борис не выполнит заказ")
    assert hint_text("en", h, names).endswith("Борис fails the contract")
    # the declarer's own hint says "you"
    decl = hard.PlayScores(moves, totals, [3.0] * 5, 4, 4.0, False)
    mine = replace(v, seat=1, declarer=1)
    assert play_hint(mine, random.Random(0), decl).reasons[1] == Reason(
        "made_pct", (("pct", 75),))
    assert "вы выполните заказ в 75% раскладов" in hint_text(
        "ru", play_hint(mine, random.Random(0), decl), names)


def test_every_reason_is_true_in_random_positions() -> None:
    """A few hundred positions of play in every rule variant of ``helpers.VARIANTS``: the
    reason of every legal card (where a fact explains it) and the whole hint from a short
    search pass their checkers."""
    rng, crng = random.Random(47), random.Random(48)
    positions = hints = facts = 0
    codes: set[str] = set()
    for i in range(500):
        rules = variant_rules(i)
        pos = play_position(rules, 4700 + i, rng.randrange(0, 3 * rules.players * 2 + 6),
                            mix=0.3)
        if pos is None:
            continue
        real = pos[1]
        v = view(real, real.to_act)
        if not v.legal:
            continue
        positions += 1
        hold = may_hold(v)
        for a in v.legal:
            if a.kind not in (PLAY, DECLARE):
                continue
            r = _card_reason(v, a, hold)
            if r is not None:
                check(v, real, a, r, crng)
                codes.add(r.code)
                facts += 1
        v = without_redeal(v)  # a redeal asked with four nines is the hint's own step
        if len(v.legal) < 2 or rules.stock_mode or i % 2:
            continue
        # a short search (two sampled deals; the deadline only guards a busy machine)
        search = random.Random(i)
        scores = hard.play_scores(v, search, time.monotonic() + 0.5, 2)
        if scores is None:
            continue
        h = play_hint(v, search, scores)
        check_hint(v, real, h, crng, scores)
        codes.update(r.code for r in h.reasons)
        hints += 1
    assert positions > 280 and facts > 600 and hints > 70, (positions, facts, hints)
    # the checkers met nearly every kind of reason
    assert PLAY_CODES - codes <= {"ace_marriage", "marriage"}, PLAY_CODES - codes


def test_hints_are_legal_true_and_name_only_cards_the_seat_sees() -> None:
    rng = random.Random(5)
    seen = 0
    games = [(CLASSIC, 5, 2), (make_rules("classic", players=2), 6, 2),
             (make_rules("classic", players=4), 7, 2)]
    # the ace marriage, dark play, the stock game, four nines after the pass (a deal each)
    games += [(variant_rules(i), 40 + i, 1) for i in (4, 6, 7, 12)]
    for rules, seed, deals in games:
        st = new_game(rules, seed)
        while len(st.history) < deals:
            v = view(st, st.to_act)
            h = hint(v, seed=1, deadline=time.monotonic() + 0.05)
            check_hint(v, st, h, rng)
            visible = set(v.hand) | _played(v) | set(v.talon)
            for r in h.reasons:
                for name, value in r.params:
                    if name in ("card", "gone"):
                        assert value in visible, (r, v.hand)
            seen += 1
            st = apply(st, choose_action(v, "normal", seed=1), st.to_act)
    assert seen > 100


def test_four_nines_after_the_pass() -> None:
    """A defender holding four nines after the pass may ask for a redeal until its first
    card: the hint says why in the rule's words, not that the hand is weak; with the four
    nines' bonus it keeps the deal for the bonus."""
    for bonus, code, act in ((False, "redeal_nines", Action(REDEAL)),
                             (True, "nines_bonus", Action(PLAY, card=C.parse("9♥")))):
        rules = make_rules("classic", redeal_after_pass=True, four_nines_bonus=bonus)
        st = start(rules, ["J♥ J♣ Q♠ K♠ Q♣ K♣ A♦", "A♥ K♥ Q♥ 10♥ A♣ 10♣ K♦",
                           "9♥ 9♠ 9♣ 9♦ A♠ 10♠ 10♦"], "J♠ J♦ Q♦", dealer=0)
        st = do(st, "2 pass", "0 pass", "1 talon 1", "1 give J♠", "1 give J♦",
                "1 contract 120", "1 play A♥")
        v = view(st, 2)
        assert set(v.legal) == {Action(REDEAL), Action(PLAY, card=C.parse("9♥"))}
        h = hint(v, seed=1, deadline=time.monotonic() + 0.2)
        assert h == Hint(act, (Reason(code),))
        check_hint(v, st, h, random.Random(0))


def _code(v: TableView, a: Action, hold: dict[int, frozenset[int]]) -> str | None:
    r = _card_reason(v, a, hold)
    return None if r is None else r.code


def test_reasons_of_constructed_positions() -> None:
    v = _play_view()
    me = v.seat
    others = [s for s in v.active if s != me]
    A_h, T_h, K_h, Q_h, N_h = (C.card(r, 3) for r in (C.ACE, C.TEN, C.KING, C.QUEEN, C.NINE))
    J_s, A_s = C.card(C.JACK, 0), C.card(C.ACE, 0)
    nothing: dict[int, frozenset[int]] = {s: frozenset() for s in others}
    spades = {s: frozenset({C.card(C.KING, 0)}) for s in others}
    lead = replace(v, hand=(A_h, T_h, J_s), trick=(), tricks=(), trump=-1,
                   legal=tuple(Action(PLAY, card=c) for c in (A_h, T_h, J_s)))
    # no trump: the ace takes the trick; with a trump a void seat may ruff it
    assert _code(lead, Action(PLAY, card=A_h), spades) == "lead_wins"
    trumps = {s: frozenset({C.card(C.NINE, 1)}) for s in others}
    clubs = replace(lead, trump=1)
    assert _code(clubs, Action(PLAY, card=A_h), trumps) == "lead_top"
    assert _code(lead, Action(PLAY, card=J_s), spades) == "lead_cheap"
    low = replace(lead, hand=(A_s, J_s, T_h),
                  legal=tuple(Action(PLAY, card=c) for c in (A_s, J_s, T_h)))
    assert _code(low, Action(PLAY, card=J_s), spades) == "lead_low"
    marriage = _card_reason(replace(lead, hand=(K_h, Q_h)), Action(DECLARE, card=K_h),
                            nothing)
    assert marriage == Reason("marriage", (("card", K_h), ("value", 100)))
    aces = _card_reason(lead, Action(DECLARE, card=A_h), nothing)
    assert aces == Reason("ace_marriage", (("card", A_h), ("value", 200)))
    # the ace of hearts already went: the ten is the highest heart left
    gone = Trick(leader=v.active[0], cards=((v.active[0], A_h), (v.active[1], N_h),
                                           (v.active[2], J_s)), winner=v.active[0], trump=-1)
    r = _card_reason(replace(lead, hand=(T_h, J_s), tricks=(gone,)), Action(PLAY, card=T_h),
                     nothing)
    assert r == Reason("top_left", (("card", T_h), ("gone", A_h)))
    # following, last to play, with a winner
    follow = replace(v, hand=(A_h, N_h), trick=((others[0], K_h), (others[1], Q_h)),
                     tricks=(), trump=-1,
                     legal=(Action(PLAY, card=A_h), Action(PLAY, card=N_h)))
    assert _code(follow, Action(PLAY, card=A_h), nothing) == "takes_last"
    assert _code(follow, Action(PLAY, card=N_h), nothing) == "duck_cheap"
    # nothing beats the king: the nine is the cheapest card, the ten is not
    under = replace(follow, hand=(T_h, N_h), declarer=others[0],
                    trick=((others[0], A_h), (others[1], Q_h)),
                    legal=(Action(PLAY, card=T_h), Action(PLAY, card=N_h)))
    assert _code(under, Action(PLAY, card=N_h), nothing) == "cheap"
    assert _card_reason(under, Action(PLAY, card=T_h), nothing) is None


def test_analysis_agrees_with_the_outcome() -> None:
    st = _game(11, 6)
    done = 0
    for h in st.history:
        if h.outcome not in ("made", "failed"):
            continue
        a = analyse(st, h.number)
        assert a.complete and a.value is not None
        assert a.makeable == (a.value >= a.contract)
        declarer_points = h.points[h.declarer]
        if a.mistake is None:  # nobody changed the outcome: it is the open-card one
            assert (h.outcome == "made") == a.makeable, (a, declarer_points)
        else:
            assert a.mistake.declarer_side == a.makeable
        done += 1
    assert done >= 2
