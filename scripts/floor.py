# ruff: noqa
# The project's shared floor (../shared/bench/floor.py), kept byte for byte below so ratios stay comparable.
"""Pure-Python floor: a stripped canasta-like hand loop on count vectors with greedy play (not the rules).

It measures what this machine gives plain Python right now, so that speed figures taken on different
machines can be compared as ratios to it. Usage: python floor.py [seconds]; prints hands per second.
A figure is only comparable with a floor measured in the same run, just before and after it.
"""
import random, sys, time
R = 15  # 0 joker,1 two,2 black3,3 red3, 4..14 = 4..A
VAL = [50,20,5,100,5,5,5,5,10,10,10,10,10,10,20]
def deck():
    d = [0]*4 + [1]*8 + [2]*4 + [3]*4
    for r in range(4,15): d += [r]*8
    return d
def play_hand(rng):
    d = deck(); rng.shuffle(d)
    hands = [[0]*R for _ in range(4)]
    for p in range(4):
        for _ in range(11): hands[p][d.pop()] += 1
    melds = [[0]*R, [0]*R]
    pile = [d.pop()]
    turns = 0; p = 0
    while d:
        h = hands[p]; m = melds[p&1]
        top = pile[-1]
        if top >= 4 and h[top] >= 2:
            for c in pile: h[c] += 1
            pile = []
        else:
            h[d.pop()] += 1
        for r in range(4, 15):
            if h[r] >= 3 or (m[r] and h[r]):
                m[r] += h[r]; h[r] = 0
        # discard lowest value single
        best = -1; bv = 999
        for r in range(R):
            if h[r] and r != 3 and VAL[r] < bv and r not in (0,1): best = r; bv = VAL[r]
        if best < 0:
            for r in range(R):
                if h[r]: best = r; break
        if best < 0: break
        h[best] -= 1; pile.append(best)
        turns += 1; p = (p+1)&3
    return turns
rng = random.Random(1)
t = time.perf_counter(); n = 0; T = 0
while time.perf_counter() - t < float(sys.argv[1] if len(sys.argv) > 1 else 3):
    T += play_hand(rng); n += 1
el = time.perf_counter()-t
print(f"{n/el:.1f}")
