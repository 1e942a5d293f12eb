"""An exact open-card solver for the play of one deal (every hand visible).

Cards are bits of an ``int`` (bit ``c`` = card ``c``), so a hand is one int and a
suit is six adjacent bits with the higher rank in the higher bit. Seats are the
positions 0..k-1 of the active seats in playing order (k = 2 or 3); the declarer's
side maximises, the defenders minimise one value:

    V = declarer's card points from here on + its marriages − the defenders' marriages

(the last-trick bonus counts as card points). Alpha-beta with a transposition table
at trick boundaries (stored bounds) and a simple move ordering. Declaring a
marriage (leading its K or Q after winning a trick) is a separate move that scores
the marriage and makes the suit trump.

A monotone function of ``V`` (made/failed at the contract, scores) has the same
minimax as ``V`` in an open-card game, so one search answers both questions.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from bot.engine.cards import MARRIAGE_VALUES, POINTS

SUIT_MASK = tuple(0x3F << (6 * s) for s in range(4))
FULL = (1 << 24) - 1
_KQ = tuple((1 << (6 * s + 2)) | (1 << (6 * s + 3)) for s in range(4))
INF = 10_000

# points of a 6-bit suit pattern
_SUIT_PTS = tuple(sum(POINTS[r] for r in range(6) if m >> r & 1) for m in range(64))
# marriage value of a 6-bit suit pattern of suit s (the K and Q together)
_SUIT_MARR = tuple(tuple(MARRIAGE_VALUES[s] if m & 12 == 12 else 0 for m in range(64))
                   for s in range(4))
# cards in a 6-bit suit pattern
_POP = tuple(bin(m).count("1") for m in range(64))


def _ranks(m: int) -> list[int]:
    return [r for r in range(6) if m >> r & 1]


# [m * 8 + r]: the points of the r highest (_TOP) and of the min(r, |m|) lowest (_LOW)
# cards of a 6-bit suit pattern (points rise with the rank)
_TOP = tuple(sum(POINTS[x] for x in _ranks(m)[::-1][:r]) if r < 7 else 0
             for m in range(64) for r in range(8))
_LOW = tuple(sum(POINTS[x] for x in _ranks(m)[:r]) if r < 7 else 0
             for m in range(64) for r in range(8))


def mask_points(m: int) -> int:
    return (_SUIT_PTS[m & 63] + _SUIT_PTS[(m >> 6) & 63] + _SUIT_PTS[(m >> 12) & 63]
            + _SUIT_PTS[(m >> 18) & 63])


def to_mask(cards: Sequence[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_of(m: int) -> list[int]:
    out = []
    while m:
        b = m & -m
        out.append(b.bit_length() - 1)
        m ^= b
    return out


class Timeout(Exception):
    """The solver ran past its deadline."""


class Solver:
    """Open-card play of the rest of a deal. ``decl`` is the declarer's position."""

    def __init__(self, k: int, decl: int, marriage_first_lead: bool = False,
                 last_bonus: int = 0, deadline: float | None = None,
                 defender_marriages: bool = True) -> None:
        self.k = k
        # 0: the defenders' marriages do not count against the declarer (V is then exactly
        # the declarer's points, what decides made or failed)
        self.def_marr = 1 if defender_marriages else 0
        self.decl = decl
        self.first_lead = marriage_first_lead
        self.last_bonus = last_bonus
        self.deadline = deadline
        self.tt: dict[int, tuple[int, int]] = {}
        self.nodes = 0
        self.hands: list[int] = [0] * k

    # --- public -------------------------------------------------------------------
    def value(self, hands: Sequence[int], turn: int, trick: Sequence[tuple[int, int]],
              trump: int, won: int, alpha: int = -INF, beta: int = INF) -> int:
        """V of the position: ``hands`` by position, ``turn`` to play, ``trick`` the cards
        of the current trick as (position, card), ``won`` a bit per position that has
        won a trick (the right to declare)."""
        self.hands = list(hands)
        if not trick:
            return self._lead(turn, trump, won, alpha, beta)
        lead_suit = trick[0][1] // 6
        win_pos, win_card = trick[0]
        pts = POINTS[win_card]
        for pos, c in trick[1:]:
            pts += POINTS[c]
            if (c // 6 == win_card // 6 and c > win_card) or (
                    trump >= 0 and c // 6 == trump and win_card // 6 != trump):
                win_pos, win_card = pos, c
        return self._follow(turn, len(trick), lead_suit, win_card, win_pos, pts, trump, won,
                            alpha, beta)

    def moves(self, hands: Sequence[int], turn: int, trick: Sequence[tuple[int, int]],
              won: int) -> list[tuple[int, bool]]:
        """(card, declare) moves of ``turn`` in this position (rule-book legal except the
        rare lead restrictions, which the caller's legal list decides)."""
        h = hands[turn]
        if trick:
            return [(c, False) for c in cards_of(self._follow_mask(h, trick[0][1] // 6, -2))]
        out = [(c, False) for c in cards_of(h)]
        if self.first_lead or won >> turn & 1:
            for s in range(4):
                if h & _KQ[s] == _KQ[s]:
                    out.append((6 * s + 2, True))
                    out.append((6 * s + 3, True))
        return out

    def value_after(self, hands: Sequence[int], turn: int, trick: Sequence[tuple[int, int]],
                    trump: int, won: int, card: int, declare: bool,
                    alpha: int = -INF, beta: int = INF) -> int:
        """V including the move (``card``, ``declare``) of ``turn``."""
        hs = list(hands)
        hs[turn] &= ~(1 << card)
        gain = 0
        if declare and not trick:
            su = card // 6
            gain = (MARRIAGE_VALUES[su] if turn == self.decl
                    else -MARRIAGE_VALUES[su] * self.def_marr)
            trump = su
        new_trick = [*trick, (turn, card)]
        if len(new_trick) == self.k:
            win_i = 0
            for i in range(1, self.k):
                c, w = new_trick[i][1], new_trick[win_i][1]
                if (c // 6 == w // 6 and c > w) or (trump >= 0 and c // 6 == trump
                                                     and w // 6 != trump):
                    win_i = i
            winner = new_trick[win_i][0]
            pts = sum(POINTS[c] for _, c in new_trick)
            if not any(hs):
                pts += self.last_bonus
            got = pts if winner == self.decl else 0
            self.hands = hs
            if not any(hs):
                return gain + got
            return gain + got + self._lead(winner, trump, won | (1 << winner), alpha - gain - got,
                                           beta - gain - got)
        self.hands = hs
        return gain + self.value(hs, (turn + 1) % self.k, new_trick, trump, won,
                                 alpha - gain, beta - gain)

    # --- search -------------------------------------------------------------------
    @staticmethod
    def _follow_mask(h: int, lead_suit: int, trump: int) -> int:
        m = h & SUIT_MASK[lead_suit]
        if m:
            return m
        if trump >= 0:
            m = h & SUIT_MASK[trump]
            if m:
                return m
        return h

    def _lead(self, turn: int, trump: int, won: int, alpha: int, beta: int) -> int:
        hands = self.hands
        h = hands[turn]
        if not h:
            return 0
        self.nodes += 1
        if not self.nodes & 1023 and self.deadline is not None and (
                time.monotonic() > self.deadline):
            raise Timeout
        k = self.k
        # bounds: the declarer takes at most every point left and its marriages, at least
        # nothing and the defenders' marriages against it
        decl = self.decl
        allc = hands[0] | hands[1] | (hands[2] if k == 3 else 0)
        hi = (_SUIT_PTS[allc & 63] + _SUIT_PTS[(allc >> 6) & 63] + _SUIT_PTS[(allc >> 12) & 63]
              + _SUIT_PTS[allc >> 18] + self.last_bonus)
        hd = hands[decl]
        hi += (_SUIT_MARR[0][hd & 63] + _SUIT_MARR[1][(hd >> 6) & 63]
               + _SUIT_MARR[2][(hd >> 12) & 63] + _SUIT_MARR[3][hd >> 18])
        if hi <= alpha:
            return hi
        od = allc & ~hd
        lo = -(_SUIT_MARR[0][od & 63] + _SUIT_MARR[1][(od >> 6) & 63]
               + _SUIT_MARR[2][(od >> 12) & 63] + _SUIT_MARR[3][od >> 18]) * self.def_marr
        if lo >= beta:
            return lo
        if trump >= 0 and not allc & SUIT_MASK[trump]:
            trump = -1  # no trump left: the same play as without one
        if k == 3:
            key = hands[0] | hands[1] << 24 | hands[2] << 48 | turn << 72 | (trump + 1) << 74 \
                | won << 77
        else:
            key = hands[0] | hands[1] << 24 | turn << 72 | (trump + 1) << 74 | won << 77
        maxi = turn == decl
        nxt = turn + 1 if turn + 1 < k else 0
        # the last trick is forced
        if h & (h - 1) == 0:
            v = self._last_trick(turn, trump)
            self.tt[key] = (v, v)
            return v
        # quick tricks: the leader cashes its masters (its cards above every other card of
        # the suit still out) while no follower holding a trump can ruff them, and every
        # card the followers play to those tricks goes to the leader's side
        f1 = hands[nxt]
        f2 = hands[nxt + 1 if nxt + 1 < k else 0] if k == 3 else 0
        t1 = t2 = False
        if trump >= 0:
            tm = SUIT_MASK[trump]
            t1 = f1 & tm != 0
            t2 = f2 & tm != 0
        cash = 0
        sh = 0
        for s in range(4):
            ls = (h >> sh) & 63
            if ls:
                a = (f1 >> sh) & 63
                b = (f2 >> sh) & 63
                n = (a | b).bit_length()
                ms = ls >> n << n
                if ms:
                    r = _POP[ms]
                    if s != trump:
                        if t1 and _POP[a] < r:
                            r = _POP[a]
                        if t2 and _POP[b] < r:
                            r = _POP[b]
                    if r:
                        cash += _TOP[ms * 8 + r] + _LOW[a * 8 + r] + _LOW[b * 8 + r]
            sh += 6
        if maxi:
            if cash + lo >= beta:
                return cash + lo
        elif hi - cash <= alpha:
            return hi - cash
        lo, hi = -INF, INF
        ent = self.tt.get(key)
        if ent is not None:
            lo, hi = ent
            if lo >= beta:
                return lo
            if hi <= alpha or lo == hi:
                return hi
            if lo > alpha:
                alpha = lo
            if hi < beta:
                beta = hi
        a0, b0 = alpha, beta
        best = -INF if maxi else INF
        moves: list[tuple[int, int]] = []  # (order key, card | declare << 8)
        if self.first_lead or won >> turn & 1:
            for s in range(4):
                if h & _KQ[s] == _KQ[s]:
                    moves.append((-1000 - MARRIAGE_VALUES[s], (6 * s + 3) | 256))
                    moves.append((-999 - MARRIAGE_VALUES[s], (6 * s + 2) | 256))
        m = h
        others = 0
        for i in range(k):
            if i != turn:
                others |= hands[i]
        while m:
            b = m & -m
            m ^= b
            c = b.bit_length() - 1
            s = c // 6
            # a card that is the highest left in its suit first, then high ranks
            higher = others & SUIT_MASK[s] & ~((b << 1) - 1)
            order = (0 if not higher else 100) - (c % 6) * 10 - POINTS[c]
            if trump >= 0 and s == trump:
                order += 5
            moves.append((order, c))
        moves.sort()
        for _, mv in moves:
            c = mv & 255
            bit = 1 << c
            hands[turn] = h & ~bit
            if mv & 256:
                su = c // 6
                gain = MARRIAGE_VALUES[su] if maxi else -MARRIAGE_VALUES[su] * self.def_marr
                v = gain + self._follow(nxt, 1, su, c, turn, POINTS[c], su, won,
                                        alpha - gain, beta - gain)
            else:
                v = self._follow(nxt, 1, c // 6, c, turn, POINTS[c], trump, won, alpha, beta)
            hands[turn] = h
            if maxi:
                if v > best:
                    best = v
                    if v > alpha:
                        alpha = v
                        if alpha >= beta:
                            break
            else:
                if v < best:
                    best = v
                    if v < beta:
                        beta = v
                        if alpha >= beta:
                            break
        if best <= a0:
            self.tt[key] = (lo, best)
        elif best >= b0:
            self.tt[key] = (best, hi)
        else:
            self.tt[key] = (best, best)
        return best

    def _last_trick(self, turn: int, trump: int) -> int:
        hands = self.hands
        k = self.k
        c0 = hands[turn].bit_length() - 1
        win_pos, win_card, pts = turn, c0, POINTS[c0] + self.last_bonus
        pos = turn
        for _ in range(k - 1):
            pos = pos + 1 if pos + 1 < k else 0
            c = hands[pos].bit_length() - 1
            pts += POINTS[c]
            if (c // 6 == win_card // 6 and c > win_card) or (
                    trump >= 0 and c // 6 == trump and win_card // 6 != trump):
                win_pos, win_card = pos, c
        return pts if win_pos == self.decl else 0

    def _follow(self, turn: int, n: int, lead_suit: int, win_card: int, win_pos: int, pts: int,
                trump: int, won: int, alpha: int, beta: int) -> int:
        hands = self.hands
        h = hands[turn]
        k = self.k
        decl = self.decl
        m = h & SUIT_MASK[lead_suit]
        if not m:
            if trump >= 0:
                m = h & SUIT_MASK[trump]
            if not m:
                m = h
        maxi = turn == decl
        last = n + 1 == k
        my_side_wins = (win_pos == decl) == maxi
        # order: cards that take the trick (cheap first) when the other side wins;
        # otherwise the cards worth most points when our side wins, least when it loses
        moves: list[tuple[int, int]] = []
        wsuit = win_card // 6
        # the last card of a trick: of two cards of a suit with no card left between them
        # (in any hand) that both take the trick or both do not, the side that takes it plays
        # the higher, the other side the lower (the rest of the play is the same with either
        # left, and the one kept scores at most its points later); not when one of them is
        # the K or Q of a marriage the other would keep
        others = 0
        if last and m & (m - 1):
            for i in range(k):
                if i != turn:
                    others |= hands[i]
        prev = -1
        prev_beats = False
        while m:
            b = m & -m
            m ^= b
            c = b.bit_length() - 1
            cs = c // 6
            beats = (cs == wsuit and c > win_card) or (trump >= 0 and cs == trump
                                                       and wsuit != trump)
            if my_side_wins:
                order = (-POINTS[c] if not beats else 50 + POINTS[c])
            elif beats:
                order = -100 + POINTS[c] if last else -100 - c % 6
            else:
                order = POINTS[c]
            if others and prev >= 0 and beats == prev_beats and cs == prev // 6 \
                    and not others & (b - (2 << prev)) \
                    and not (c % 6 == 2 and h >> (c + 1) & 1) \
                    and not (prev % 6 == 3 and h >> (prev - 1) & 1):
                prev = c
                if beats or my_side_wins:
                    moves[-1] = (order, c)
                continue
            prev = c
            prev_beats = beats
            moves.append((order, c))
        if len(moves) > 1:
            moves.sort()
        best = -INF if maxi else INF
        nxt = turn + 1 if turn + 1 < k else 0
        for _, c in moves:
            cs = c // 6
            if (cs == wsuit and c > win_card) or (trump >= 0 and cs == trump and wsuit != trump):
                wp, wc = turn, c
            else:
                wp, wc = win_pos, win_card
            p = pts + POINTS[c]
            hands[turn] = h & ~(1 << c)
            if last:
                if not hands[turn]:
                    p += self.last_bonus
                got = p if wp == decl else 0
                v = got + self._lead(wp, trump, won | (1 << wp), alpha - got, beta - got)
            else:
                v = self._follow(nxt, n + 1, lead_suit, wc, wp, p, trump, won, alpha, beta)
            hands[turn] = h
            if maxi:
                if v > best:
                    best = v
                    if v > alpha:
                        alpha = v
                        if alpha >= beta:
                            break
            else:
                if v < best:
                    best = v
                    if v < beta:
                        beta = v
                        if alpha >= beta:
                            break
        return best
