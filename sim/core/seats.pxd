# C declarations for sim/core/seats.py, read by Cython only (plain Python ignores this file).
# Seats becomes an extension type: its fields are C struct members and ask/apply are called from
# play_hand (sim/core/engine.py, which cimports it) without a Python method look-up.  Every field stays readable
# and writable from Python, and the Python subclasses (StrictSeats, ObservedSeats) still override ask and apply.

cimport cython

from canasta_sim.core.fingerprint cimport GameFingerprint
from canasta_sim.core.kernels cimport CardMemory
# The move records' types: apply's exact-type test compares the type in C.
from canasta_sim.core.moves cimport Draw
from canasta_sim.core.state cimport HandState


# The monitor codes of the calls made here and the monitor's cells (sim/arbiter/monitor.py), typed: published
# with a C store.
cdef Py_ssize_t _EVENT_CALL, _HAND_START_CALL, _CALL_CELL, _START_CELL


cdef class Seats:
    cdef public object players, names, seed, time_limit, listeners, clock, timed, monitor
    cdef public GameFingerprint fingerprint  # None where no seat is checked
    cdef public object handlers, decisions, following, hearing, hearing_handlers
    # Read or written around every call into strategy code: the seats' bits a tuple (set once, in __init__) read
    # without a generic index, the last call a C integer stored without an int object made per call.
    cdef public tuple side_bits
    cdef public Py_ssize_t last_call
    cdef public list followers  # this hand's event followers (CardMemory), fed in C after every move
    # C integers: tested before and after every call into strategy code.
    cdef public Py_ssize_t called
    cdef public bint guarded
    cdef double[:] cells  # the monitor's floats (see Seats.__init__); None without a monitor
    # The seat a C integer: it indexes the seats' tuples with no boxed int.
    cpdef ask(self, Py_ssize_t seat, Py_ssize_t call, method, view)
    cpdef apply(self, HandState state, Py_ssize_t seat, decision, move)
    # Called by apply on every move: a C call, where a Python method look-up would cost every move.
    cdef object _read_move(self, HandState state, Py_ssize_t seat, decision, move)
