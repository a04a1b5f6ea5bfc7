"""Small LRU caches: keyed on the content of numpy arrays (sparsity patterns, validated matrices),
and on the identity and content of a call's small arguments (validated once, reused)."""
import collections

import numpy as np
import scipy.sparse as sps

CACHE_SIZE = 8
EXACT_BYTES = 1 << 14
_SAMPLES = 64


class ArrayKeyedCache:
    """A small LRU cache whose keys are numpy arrays.

    Arrays of up to ``EXACT_BYTES`` are keyed by their full content (a hit is exact); larger
    ones by a strided sample, and a hit is confirmed by comparing the full arrays against
    private copies.
    """

    def __init__(self, size=CACHE_SIZE):
        self.size = size
        self._entries = collections.OrderedDict()

    def get(self, scalars, arrays, build):
        """Return the value cached for (`scalars`, `arrays`), calling `build()` on a miss."""
        key = [scalars]
        exact = True
        for a in arrays:
            if a.nbytes <= EXACT_BYTES:
                key.append((a.dtype.char, a.shape, a.tobytes()))
            else:
                exact = False
                flat = a.reshape(-1)
                key.append((a.dtype.char, a.shape, flat[::max(1, flat.size // _SAMPLES)].tobytes()))
        key = tuple(key)
        entry = self._entries.get(key)
        if entry is not None and (exact or all(np.array_equal(a, b) for a, b in zip(entry[0], arrays))):
            self._entries.move_to_end(key)
            return entry[1]
        value = build()
        self._entries[key] = ((), value) if exact else ([np.array(a, copy=True) for a in arrays], value)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)
        return value

    def clear(self):
        self._entries.clear()


_IMMUTABLE = (type(None), bool, int, float, np.bool_, np.int64, np.float64)


def _content(a):
    """What a mutable argument holds (an ndarray or a CSR/CSC matrix), as a comparable value."""
    if type(a) is np.ndarray:
        return a.shape, a.dtype, a.tobytes()
    return a.shape, a.format, a.indptr.tobytes(), a.indices.tobytes(), a.data.dtype, a.data.tobytes()


def _remembered(a):
    """0: immutable (compared by identity), 1: a small array whose content is compared, None: neither."""
    if type(a) in _IMMUTABLE:
        return 0
    if type(a) is np.ndarray:
        return 1 if a.nbytes <= EXACT_BYTES else None
    if sps.issparse(a) and a.format in ("csr", "csc"):
        return 1 if a.indptr.nbytes + a.indices.nbytes + a.data.nbytes <= EXACT_BYTES else None
    return None


class RecentArguments:
    """The validated form of the last few argument tuples, recognised by identity and content.

    Chapters call the same function thousands of times with the same small operator and
    parameter arrays and a new ``x``. A hit costs a dictionary lookup on the arguments' ids
    and a byte comparison of each array (so an array changed in place is validated again).
    Only None, bools, ints, floats, ndarrays and CSR/CSC matrices of at most ``EXACT_BYTES``
    are remembered; any other argument is validated on every call. Entries keep their
    arguments alive, so an id is not reused while cached.
    """

    def __init__(self, size=CACHE_SIZE):
        self.size = size
        self._entries = collections.OrderedDict()

    def get(self, args, validate):
        """``validate()``, or its value from an earlier call with the same `args` (a tuple)."""
        key = tuple(map(id, args))
        entry = self._entries.get(key)
        if entry is not None and entry[1] == [_content(args[i]) for i in entry[0]]:
            self._entries.move_to_end(key)
            return entry[3]
        kinds = [_remembered(a) for a in args]
        value = validate()
        if None not in kinds:
            mutable = [i for i, kind in enumerate(kinds) if kind]
            self._entries[key] = (mutable, [_content(args[i]) for i in mutable], args, value)
            self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)
        return value
