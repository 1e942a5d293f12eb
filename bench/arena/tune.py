"""Fitting the hand estimate of ``hard`` on self-play deals (``python -m bench.arena.tune``,
from a source checkout).

Every deal: the forehand becomes the declarer at 100 (the others pass), passes and
plays as ``normal`` against two ``normal`` defenders; we record its hand of seven
(before the talon), its hand of eight (after passing) and the points it took. A
least-squares fit of the points on the features of ``evaluate.features`` gives
the weights ``evaluate.HARD_WEIGHTS8`` (after passing) and ``HARD_WEIGHTS7``
(before the talon), and the spread of the residuals, which ``hard`` uses to turn
an estimate into a chance of making a contract.
"""

from __future__ import annotations

import random
import sys

from bot.ai import normal
from bot.ai.evaluate import declarer_points, features
from bot.engine.game import apply, deal, layout_from_seed, new_game
from bot.engine.rules import make_rules
from bot.engine.state import Action, Phase
from bot.engine.views import view


def sample_deals(n: int, seed: int) -> list[tuple[dict[str, float], dict[str, float], int]]:
    rules = make_rules("classic", redeal_hand_below=None, redeal_four_nines=False,
                       redeal_three_nines="off", redeal_four_jacks=False,
                       redeal_talon_below=None, redeal_talon_two_nines=False,
                       redeal_talon_three_jacks=False, rospis=False)
    out = []
    rng = random.Random(seed)
    for k in range(n):
        dealer = k % 3
        st = deal(new_game(rules, seed=None, first_dealer=dealer),
                  layout_from_seed(rng.getrandbits(62), rules, dealer))
        assert st.deal is not None
        fh = st.deal.forehand
        hand7 = st.deal.hands[fh]
        hand8: tuple[int, ...] = ()
        while st.phase not in (Phase.DEALING, Phase.GAME_OVER):
            v = view(st, st.to_act)
            if st.phase == Phase.BIDDING:
                a = Action("pass")
            elif st.phase == Phase.CONTRACT:
                a = Action("contract", value=v.legal[0].value)
            else:
                a = normal.choose(v, rng)
            if st.phase == Phase.PLAY and not hand8 and st.deal is not None:
                hand8 = st.deal.hands[st.deal.declarer]
            st = apply(st, a)
        res = st.history[-1]
        out.append((features(hand7), features(hand8), res.points[res.declarer]))
    return out


def sample_deals2(n: int, seed: int) -> list[tuple[float, int]]:
    """Two players (two talons): the dealer's opponent declares at 100, takes a talon and
    puts two cards back as ``normal``; ``normal``'s estimate of the kept ten cards
    (``evaluate.declarer_points``, two players) against the points it took."""
    rules = make_rules("classic", players=2, redeal_hand_below=None, redeal_four_nines=False,
                       redeal_three_nines="off", redeal_four_jacks=False,
                       redeal_talon_below=None, redeal_talon_two_nines=False,
                       rospis=False)
    out: list[tuple[float, int]] = []
    rng = random.Random(seed)
    for k in range(n):
        dealer = k % 2
        st = deal(new_game(rules, seed=None, first_dealer=dealer),
                  layout_from_seed(rng.getrandbits(62), rules, dealer))
        kept: tuple[int, ...] = ()
        while st.phase not in (Phase.DEALING, Phase.GAME_OVER):
            v = view(st, st.to_act)
            if st.phase == Phase.BIDDING:
                a = Action("pass")
            elif st.phase == Phase.CONTRACT:
                a = Action("contract", value=v.legal[0].value)
            else:
                a = normal.choose(v, rng)
            if st.phase == Phase.PLAY and not kept and st.deal is not None:
                kept = st.deal.hands[st.deal.declarer]
            st = apply(st, a)
        res = st.history[-1]
        out.append((declarer_points(kept, players=2), res.points[res.declarer]))
    return out


def fit(rows: list[tuple[dict[str, float], int]]) -> tuple[dict[str, float], float]:
    """Least squares (a little ridge) of points on features; the weights and residual sd."""
    names = sorted(rows[0][0])
    m = len(names)
    a = [[0.0] * m for _ in range(m)]
    b = [0.0] * m
    for feats, y in rows:
        x = [feats[nm] for nm in names]
        for i in range(m):
            b[i] += x[i] * y
            for j in range(m):
                a[i][j] += x[i] * x[j]
    for i in range(m):
        a[i][i] += 1.0
    # Gaussian elimination
    for col in range(m):
        piv = max(range(col, m), key=lambda r: abs(a[r][col]))
        a[col], a[piv] = a[piv], a[col]
        b[col], b[piv] = b[piv], b[col]
        if abs(a[col][col]) < 1e-12:
            continue
        for r in range(m):
            if r != col:
                ratio = a[r][col] / a[col][col]
                for c in range(col, m):
                    a[r][c] -= ratio * a[col][c]
                b[r] -= ratio * b[col]
    w = {nm: (b[i] / a[i][i] if abs(a[i][i]) > 1e-12 else 0.0) for i, nm in enumerate(names)}
    res = [y - sum(w[nm] * feats[nm] for nm in names) for feats, y in rows]
    sd = (sum(r * r for r in res) / len(res)) ** 0.5
    return w, sd


def main(argv: list[str]) -> int:
    n = int(argv[0]) if argv else 4000
    if argv[1:] == ["--two"]:  # a line through (estimate, points taken) and its spread
        rows2 = sample_deals2(n, 1)
        mx = sum(x for x, _ in rows2) / n
        my = sum(y for _, y in rows2) / n
        b = (sum((x - mx) * (y - my) for x, y in rows2)
             / sum((x - mx) ** 2 for x, _ in rows2))
        a = my - b * mx
        sd = (sum((y - a - b * x) ** 2 for x, y in rows2) / n) ** 0.5
        print(f"two players: points = {a:.2f} + {b:.3f} * estimate, residual sd {sd:.1f} "
              f"on {n} deals")
        return 0
    data = sample_deals(n, 1)
    for label, idx in (("HARD_WEIGHTS7", 0), ("HARD_WEIGHTS8", 1)):
        w, sd = fit([(row[0] if idx == 0 else row[1], row[2]) for row in data])
        print(f"{label} = {{")
        for k, v in w.items():
            print(f"    {k!r}: {v:.2f},")
        print(f"}}  # residual sd {sd:.1f} on {n} deals")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
