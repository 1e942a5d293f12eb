"""``python -m bot bench inference``: how much the inference's factors know.

The positions are defenders of ``normal`` self-play on seeded classic deals (three
players), during play after a number of cards that cycles through 3-17. At each, the
log-likelihood that ``bot.ai.inference`` gives the real deal is compared with its mean
over sampled worlds (``knowledge``'s sampler, uniform among the deals that contradict
nothing seen), factor by factor: the bids and passes, the contract named, the cards the
declarer passed, the redeals not asked for (hands and talon), and all factors together.
A factor that knows something gives the real deal the higher figure; the gap is what it
can tell the worlds apart by.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys

from bot.ai import choose_action
from bot.ai.evaluate import PLAY_EDGE, cap_of
from bot.ai.inference import (
    Inference,
    bid_events,
    bids_log_likelihood,
    contract_log_likelihood,
    kept_hands,
    pass_log_likelihood,
    redeals_log_likelihood,
    talon_kept,
    talon_log_likelihood,
)
from bot.ai.knowledge import Knowledge, World
from bot.engine.game import apply, deal, derive_seed, layout_from_seed, new_game
from bot.engine.rules import make_rules
from bot.engine.state import Phase
from bot.engine.views import TableView, view
from tests.ai.helpers import true_world

FACTORS = ("bids", "contract", "passed", "redeals", "all")


def factors(v: TableView, know: Knowledge, inf: Inference, w: World) -> dict[str, float]:
    """Each factor's log-likelihood of world ``w`` in defender view ``v``."""
    d = v.declarer
    hand8 = frozenset(w.hands[d]) | know.played_by[d]
    events = [e for e in bid_events(v) if e[0] != v.seat]
    bids = bids_log_likelihood(events, {s: know.orig_hand(w, s) for s in {e[0] for e in events}})
    contract = contract_log_likelihood(hand8, v.bid, v.contract, cap_of(v, hand8),
                                       v.rules.bid_step, PLAY_EDGE)
    out = frozenset(c for s, c in w.received.items() if s != d and c >= 0)
    passed = pass_log_likelihood(v, hand8 | out, out) if len(out) == 2 else 0.0
    kept = kept_hands(v)
    redeals = redeals_log_likelihood(v.rules, kept, {s: know.orig_hand(w, s) for s, _f in kept})
    if talon_kept(v):
        redeals += talon_log_likelihood(hand8, v.bid, PLAY_EDGE)
    return {"bids": bids, "contract": contract, "passed": passed, "redeals": redeals,
            "all": inf.log_likelihood(w)}


def measure(deals: int, seed: int, worlds: int) -> tuple[int, dict[str, list[float]],
                                                         dict[str, list[float]]]:
    """(positions, factor -> the real deal's figures, factor -> the worlds' means)."""
    rules = make_rules("classic")
    real: dict[str, list[float]] = {f: [] for f in FACTORS}
    sampled: dict[str, list[float]] = {f: [] for f in FACTORS}
    n = 0
    for k in range(deals):
        dealer = k % 3
        st = deal(new_game(rules, seed=None, first_dealer=dealer),
                  layout_from_seed(derive_seed(seed, k), rules, dealer))
        stop = 3 + k % 15
        played = 0
        while st.phase not in (Phase.DEALING, Phase.GAME_OVER) and not st.history:
            if st.phase == Phase.PLAY and played == stop:
                break
            if st.phase == Phase.PLAY:
                played += 1
            st = apply(st, choose_action(view(st, st.to_act), "normal", seed=k))
        if st.phase != Phase.PLAY or st.deal is None or st.history:
            continue
        for seat in st.deal.active:
            v = view(st, seat)
            if seat == v.declarer or v.received < 0:
                continue
            know = Knowledge(v)
            inf = Inference(v, know)
            rng = random.Random(k)
            for f, x in factors(v, know, inf, true_world(st)).items():
                real[f].append(x)
            got = [factors(v, know, inf, know.sample(rng)) for _ in range(worlds)]
            for f in FACTORS:
                sampled[f].append(statistics.mean(g[f] for g in got))
            n += 1
    return n, real, sampled


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m bot bench inference", description=__doc__)
    p.add_argument("--deals", type=int, default=300)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--worlds", type=int, default=8, help="sampled worlds per position")
    args = p.parse_args(argv)
    n, real, sampled = measure(args.deals, args.seed, args.worlds)
    print(f"bench inference: {n} defender positions of normal self-play, {args.deals} "
          f"classic deals of seed {args.seed}, {args.worlds} sampled worlds each")
    if not n:
        return 1
    print("mean log-likelihood   real deal   sampled worlds   gap")
    for f in FACTORS:
        r, s = statistics.mean(real[f]), statistics.mean(sampled[f])
        print(f"{f:<20} {r:+10.2f} {s:+16.2f} {r - s:+7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
