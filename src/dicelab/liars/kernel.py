"""The compiled Liar's Dice game loop shared by Q-learning training and evaluation.

One kernel, :func:`play_games`, plays ``n_games`` full games between seats of four kinds
(0: the Q agent, 1: ``random``, 2: ``probabilistic``, 3: a frozen copy of the Q agent) and, when
``learn`` is set, updates the Q table of the agent in seat 0 after every game exactly as seed 004
does. It is written in the subset of Python that numba compiles, and ``play_games.py_func`` runs
the very same loop interpreted: the benchmark's plain-Python baseline.

State index (seed 004): ``((total * (dice + 1) + own) * 21 + bucket) * raise_buckets + rb`` where
``total`` is the number of dice on the table, ``own`` the agent's dice, ``bucket =
floor(20 * P(X >= x))`` the probability bucket of the current bid (20 when there is no bid yet) and
``rb`` (the extended design only; 0 otherwise) the bucket of the chance that the agent's own
"play the numbers" raise would hold.
"""

from __future__ import annotations

import numpy as np

from dicelab.core.jit import njit

N_BUCKETS = 21  # floor(20 * p) for p in [0, 1]: 0..20, as in the seed ("0:bin.size")

KIND_AGENT = 0
KIND_RANDOM = 1
KIND_PROBABILISTIC = 2
KIND_FROZEN = 3


@njit(cache=True)
def _prob_holds(hc, counts, p, q, f, total, wild_face, tails):
    """P(X >= x) that bid (q, f) holds, for player p who sees only its own dice."""
    needed = q - hc[p, f]
    if needed <= 0:
        return 1.0
    unseen = total - counts[p]
    if needed > unseen:
        return 0.0
    w = 0
    if wild_face != 0 and f != wild_face:
        w = 1
    return tails[w, unseen, needed]


@njit(cache=True)
def _best_face(hc, p, faces):
    """The face player p holds most of (wild dice counted), the highest face among ties."""
    best = 1
    for f in range(2, faces + 1):
        if hc[p, f] >= hc[p, best]:
            best = f
    return best


@njit(cache=True)
def _bucket(prob, n):
    b = int(np.floor(n * prob))
    if b > n:
        b = n
    if b < 0:
        b = 0
    return b


@njit(cache=True)
def _agent_state(hc, counts, q, f, total, wild_face, tails, n_dice, faces, raise_buckets, seat):
    own = counts[seat]
    if q == 0:
        bucket = N_BUCKETS - 1
    else:
        bucket = _bucket(_prob_holds(hc, counts, seat, q, f, total, wild_face, tails), N_BUCKETS - 1)
    rb = 0
    if raise_buckets > 1:
        nq = q + 1
        if nq <= total and own > 0:
            bf = _best_face(hc, seat, faces)
            pr = _prob_holds(hc, counts, seat, nq, bf, total, wild_face, tails)
            rb = _bucket(pr, raise_buckets - 1)
    return ((total * (n_dice + 1) + own) * N_BUCKETS + bucket) * raise_buckets + rb


@njit(cache=True)
def _greedy(Q, s, lo, hi):
    """argmax of Q[s, lo:hi] with ties broken uniformly at random."""
    best = Q[s, lo]
    n_best = 1
    choice = lo
    for a in range(lo + 1, hi):
        v = Q[s, a]
        if v > best:
            best = v
            n_best = 1
            choice = a
        elif v == best:
            n_best += 1
            if np.random.random() * n_best < 1.0:
                choice = a
    return choice


@njit(cache=True)
def _reward(tot_p, own_p, tot_c, own_c):
    """Seed 004's reward matrix: +-10 for winning/losing the game, +-1 for a round."""
    if own_c == 0 and own_p > 0:
        return -10.0
    if own_c == tot_c and own_p < tot_p:
        return 10.0
    if own_c == own_p - 1:
        return -1.0
    if own_c == own_p and tot_c < tot_p:
        return 1.0
    return 0.0


@njit(cache=True)
def play_games(
    Q,
    n_players,
    n_dice,
    faces,
    wild,
    kinds,
    n_actions,
    raise_buckets,
    n_games,
    seed,
    alpha,
    gamma,
    epsilon,
    bluff,
    learn,
    pairing,
    tails,
    winners,
):
    """Play ``n_games`` games; write each winner's seat to ``winners``; learn into ``Q`` if asked.

    Actions of the agent: 0 call, 1 raise (bluff with probability ``bluff``, else the face it
    holds most of; quantity + 1). With ``n_actions == 3``: 1 raise on the numbers, 2 bluff.
    ``pairing`` 0 credits each transition to the action the agent had chosen in the earlier state;
    1 reproduces the seed's R loop, which pairs the earlier state with the later row's action.
    Returns the number of Q updates made.
    """
    np.random.seed(seed)
    wild_face = 0
    if wild == 1:
        wild_face = 1
    elif wild == 2:
        wild_face = faces
    max_total = n_players * n_dice
    cap = max_total * (max_total * faces + 2) + 4
    tr_s = np.empty(cap, np.int64)
    tr_a = np.empty(cap, np.int64)
    tr_tot = np.empty(cap, np.int64)
    tr_own = np.empty(cap, np.int64)
    counts = np.empty(n_players, np.int64)
    hc = np.zeros((n_players, faces + 1), np.int64)
    updates = 0
    for g in range(n_games):
        for p in range(n_players):
            counts[p] = n_dice
        total = max_total
        alive = n_players
        starter = np.int64(0)
        n_rows = 0
        last_a = -1
        agent_tracked = kinds[0] == KIND_AGENT and learn
        tracking = agent_tracked
        while alive > 1:
            # roll
            for p in range(n_players):
                for f in range(faces + 1):
                    hc[p, f] = 0
                for d in range(counts[p]):
                    die = np.random.randint(1, faces + 1)
                    if die == wild_face:
                        for f in range(1, faces + 1):
                            hc[p, f] += 1
                    else:
                        hc[p, die] += 1
            q = np.int64(0)
            f = np.int64(0)
            bidder = -1
            cur = starter
            while True:
                if tracking:
                    s = _agent_state(hc, counts, q, f, total, wild_face, tails, n_dice, faces, raise_buckets, np.int64(0))
                    tr_s[n_rows] = s
                    tr_tot[n_rows] = total
                    tr_own[n_rows] = counts[0]
                    tr_a[n_rows] = last_a
                    n_rows += 1
                kind = kinds[cur]
                can_raise = q + 1 <= total
                call = False
                use_bluff = bluff
                if kind == KIND_RANDOM:
                    use_bluff = 1.0
                    if q > 0 and np.random.random() < 0.5:
                        call = True
                elif kind == KIND_PROBABILISTIC:
                    if q > 0:
                        pr = _prob_holds(hc, counts, cur, q, f, total, wild_face, tails)
                        if np.random.random() >= pr:
                            call = True
                else:  # the Q agent (learning or frozen)
                    s = _agent_state(hc, counts, q, f, total, wild_face, tails, n_dice, faces, raise_buckets, cur)
                    if q == 0:
                        lo = 1
                    else:
                        lo = 0
                    if kind == KIND_AGENT and epsilon > 0.0 and np.random.random() < epsilon:
                        a = lo + np.random.randint(0, n_actions - lo)
                    else:
                        a = _greedy(Q, s, lo, n_actions)
                    if a > 0 and not can_raise:
                        a = 0
                    if a == 0:
                        call = True
                    elif n_actions == 3:
                        if a == 1:
                            use_bluff = 0.0
                        else:
                            use_bluff = 1.0
                    if cur == 0 and tracking:
                        last_a = a
                        tr_a[n_rows - 1] = a
                if not can_raise:
                    call = True
                if call:
                    matched = 0
                    for p in range(n_players):
                        if counts[p] > 0:
                            matched += hc[p, f]
                    if matched >= q:
                        loser = cur
                    else:
                        loser = bidder
                    counts[loser] -= 1
                    total -= 1
                    if counts[loser] == 0:
                        alive -= 1
                        starter = loser
                        for k in range(1, n_players + 1):
                            nxt = (loser + k) % n_players
                            if counts[nxt] > 0:
                                starter = nxt
                                break
                    else:
                        starter = loser
                    if tracking and (counts[0] == 0 or alive == 1):
                        # terminal row: the agent has lost (own 0) or won (own == total)
                        tr_s[n_rows] = ((total * (n_dice + 1) + counts[0]) * N_BUCKETS + N_BUCKETS - 1) * raise_buckets
                        tr_tot[n_rows] = total
                        tr_own[n_rows] = counts[0]
                        tr_a[n_rows] = last_a
                        n_rows += 1
                        tracking = False
                    break
                # raise: quantity + 1, with a random face (bluff) or the face held most of
                if np.random.random() < use_bluff:
                    nf = np.random.randint(1, faces + 1)
                else:
                    nf = _best_face(hc, cur, faces)
                q = q + 1
                f = nf
                bidder = cur
                for k in range(1, n_players + 1):
                    nxt = (cur + k) % n_players
                    if counts[nxt] > 0:
                        cur = nxt
                        break
        if agent_tracked:
            for k in range(1, n_rows):
                a = tr_a[k - 1] if pairing == 0 else tr_a[k]
                if a < 0:
                    continue
                sp = tr_s[k - 1]
                sc = tr_s[k]
                r = _reward(tr_tot[k - 1], tr_own[k - 1], tr_tot[k], tr_own[k])
                best = Q[sc, 0]
                for b in range(1, n_actions):
                    if Q[sc, b] > best:
                        best = Q[sc, b]
                if tr_own[k] == 0 or tr_own[k] == tr_tot[k]:
                    best = 0.0  # terminal
                Q[sp, a] = (1.0 - alpha) * Q[sp, a] + alpha * (r + gamma * best)
                updates += 1
        for p in range(n_players):
            if counts[p] > 0:
                winners[g] = p
    return updates
