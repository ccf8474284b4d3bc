# C declarations for sim/core/identities.py, read by Cython only (plain Python ignores this file).

cimport cython

# The move records' types: their fields are read as C members.
from canasta_sim.core.moves cimport Answer, Discard, Meld, MeldGroup, TakePile


# The keys of the moves the hand state found legal (MeldingRules._vouch, _list), called from C by its checks.
cpdef object field_objects(move)
cdef object _group_objects(first, groups)
cpdef bint same_field_objects(move, key) except -1
# Whether a list holds the very objects of a copy, place by place: the tamper check (sim/core/fingerprint.py) and the
# going-out plan's cache (sim/core/asking.py) call it from C.
cpdef bint same_list(live, list copied) except -1
# Refresh a copy in place with a live list's very objects, writing only the places that differ: the tamper check's
# copies (sim/core/fingerprint.py) and the going-out plan's kept hand (sim/core/asking.py) call it from C.
cpdef refresh(list copied, live)
