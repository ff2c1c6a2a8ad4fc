"""Counter-based random streams: every random number of deal ``i`` of a run with
seed ``S`` is a pure function of ``(S, i, stream id, index)``.

Nothing here has hidden state: a stream is a small ``uint64[4]`` array
(``key``, ``gamma``, next index, buffered word) created by ``stream_init``;
the ``n``-th 32-bit output of a stream is ``u32_at(key, gamma, n)``, so a
deal's wall, dice and decisions do not depend on the shard size, the worker
count, the mode (deal, game, replay, duel) or on what other deals did.

Algorithm (SplitMix64 family, as in Java's ``SplittableRandom``):
    s      = mix64(seed + K_SEED)                     per run seed
    d      = mix64(s ^ mix64(deal + K_DEAL))          per deal (a bijection of
                                                      ``deal`` for a fixed seed)
    key    = mix64(d + (stream + 1) * GOLDEN)         per stream
    gamma  = mix_gamma(key ^ K_GAMMA)                 odd, per stream
    word_j = mix64(key + (j + 1) * gamma)             64-bit output j
The 32-bit output ``n`` is the low (``n`` even) or high (``n`` odd) half of
``word_{n // 2}``. Each stream has its own odd increment (``gamma``), so two
streams are never shifted copies of one Weyl sequence.

Bounded integers (``below(state, n)``, ``0 <= x < n``) use Lemire's
multiply-and-reject method on 32-bit outputs: exactly uniform, no modulo
bias. All arithmetic is done in ``uint64`` (Numba would turn a mix of signed
and unsigned 64-bit integers into floats).

Stream ids (leave the gaps: later work adds streams without changing the
walls of existing runs):
    STREAM_WALL = 0        the shuffle of the 144 tiles
    STREAM_DICE = 1        the dice (every throw, in order)
    STREAM_ROUND_WIND = 2  the round wind of an independent deal
    STREAM_ENGINE = 3      any other chance event of the game engine
    STREAM_POLICY = 8      + seat (8..11): bot decisions of seat 0..3
    STREAM_USER = 16       first id free for later tools (duels, replays)
"""
import numpy as np

from nbsim.kernels.jit import njit

STREAM_WALL = 0
STREAM_DICE = 1
STREAM_ROUND_WIND = 2
STREAM_ENGINE = 3
STREAM_POLICY = 8
STREAM_USER = 16

# stream state layout (uint64[RNG_LEN])
RNG_KEY = 0
RNG_GAMMA = 1
RNG_INDEX = 2      # index of the next 32-bit output
RNG_WORD = 3       # the 64-bit word whose high half is returned next (odd index)
RNG_LEN = 4

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_G1 = np.uint64(0xFF51AFD7ED558CCD)
_G2 = np.uint64(0xC4CEB9FE1A85EC53)
_K_SEED = np.uint64(0x6A09E667F3BCC909)
_K_DEAL = np.uint64(0xBB67AE8584CAA73B)
_K_GAMMA = np.uint64(0x3C6EF372FE94F82B)
_ALT = np.uint64(0xAAAAAAAAAAAAAAAA)
_MASK32 = np.uint64(0xFFFFFFFF)
_ONE = np.uint64(1)
_U30 = np.uint64(30)
_U27 = np.uint64(27)
_U31 = np.uint64(31)
_U33 = np.uint64(33)
_U32 = np.uint64(32)


@njit(cache=True, inline="always")
def mix64(z):
    """SplitMix64 finaliser (Stafford variant 13): a bijection of uint64."""
    z = np.uint64(z)
    z = (z ^ (z >> _U30)) * _M1
    z = (z ^ (z >> _U27)) * _M2
    return z ^ (z >> _U31)


@njit(cache=True, inline="always")
def _popcount(x):
    """Number of set bits of a uint64 (SWAR)."""
    x = np.uint64(x)
    x = x - ((x >> _ONE) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True, kernel_only=True)
def mix_gamma(z):
    """An odd increment with enough bit transitions (SplittableRandom.mixGamma)."""
    z = np.uint64(z)
    z = (z ^ (z >> _U33)) * _G1
    z = (z ^ (z >> _U33)) * _G2
    z = (z ^ (z >> _U33)) | _ONE
    if _popcount(z ^ (z >> _ONE)) < 24:
        z = z ^ _ALT
    return z


@njit(cache=True)
def deal_key(seed, deal):
    """uint64 key of deal ``deal`` (int >= 0) of seed ``seed`` (uint64)."""
    s = mix64(np.uint64(seed) + _K_SEED)
    return mix64(s ^ mix64(np.uint64(deal) + _K_DEAL))


@njit(cache=True)
def stream_init(seed, deal, stream, state):
    """Initialise ``state`` (uint64[RNG_LEN]) to stream ``stream`` (one of the
    ``STREAM_*`` ids, int >= 0) of deal ``deal`` of seed ``seed``."""
    d = deal_key(seed, deal)
    key = mix64(d + (np.uint64(stream) + _ONE) * _GOLDEN)
    state[RNG_KEY] = key
    state[RNG_GAMMA] = mix_gamma(key ^ _K_GAMMA)
    state[RNG_INDEX] = np.uint64(0)
    state[RNG_WORD] = np.uint64(0)


@njit(cache=True, inline="always")
def word_at(key, gamma, j):
    """The 64-bit output ``j`` of the stream (key, gamma): a pure function."""
    return mix64(np.uint64(key) + (np.uint64(j) + _ONE) * np.uint64(gamma))


@njit(cache=True)
def u32_at(key, gamma, n):
    """The 32-bit output ``n`` of the stream (key, gamma), as uint64."""
    n = np.uint64(n)
    w = word_at(key, gamma, n >> _ONE)
    if n & _ONE:
        return w >> _U32
    return w & _MASK32


@njit(cache=True, inline="always")
def next_u32(state):
    """Next 32-bit output of the stream (as uint64); advances ``state``."""
    n = state[RNG_INDEX]
    state[RNG_INDEX] = n + _ONE
    if n & _ONE:
        return state[RNG_WORD] >> _U32
    w = word_at(state[RNG_KEY], state[RNG_GAMMA], n >> _ONE)
    state[RNG_WORD] = w
    return w & _MASK32


@njit(cache=True, inline="always")
def below(state, n):
    """Uniform integer in [0, n) for 1 <= n <= 2**32 (Lemire's method: one
    32x32->64 multiply, a rejection with probability < n / 2**32). int64."""
    un = np.uint64(n)
    m = next_u32(state) * un
    low = m & _MASK32
    if low < un:
        threshold = (np.uint64(0x100000000) - un) % un
        while low < threshold:
            m = next_u32(state) * un
            low = m & _MASK32
    return np.int64(m >> _U32)


@njit(cache=True)
def shuffle(state, a, n):
    """Fisher-Yates shuffle of ``a[:n]`` in place (any 1-d array), each
    position's partner drawn by ``below`` from ``state`` (from the last
    position down, so the order of draws is fixed)."""
    for i in range(n - 1, 0, -1):
        j = below(state, i + 1)
        t = a[i]
        a[i] = a[j]
        a[j] = t


@njit(cache=True)
def below_batch(state, n, out):
    """Fill ``out`` (int64[k]) with ``below(state, n)`` draws (for tests)."""
    for i in range(out.shape[0]):
        out[i] = below(state, n)


def new_state(seed: int, deal: int, stream: int) -> np.ndarray:
    """Python helper: a fresh stream state (uint64[RNG_LEN]) for (seed, deal, stream).

    ``seed`` is an int in [0, 2**64); ``deal`` and ``stream`` ints >= 0."""
    st = np.zeros(RNG_LEN, dtype=np.uint64)
    stream_init(np.uint64(seed), np.uint64(deal), np.uint64(stream), st)
    return st
