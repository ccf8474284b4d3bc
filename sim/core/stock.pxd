# C declarations for sim/core/stock.py, read by Cython only: see sim/core/melding.pxd.

from canasta_sim.core.asking cimport AskingRules

# The kinds a draw and the dealt red 3s are compared with, as C integers.
cdef Py_ssize_t BLACK_THREE, RED_THREE, TWO


cdef class StockRules(AskingRules):
    # Called from C by the hand state's set-up, turns and moves (cpdef: still ordinary methods from Python).
    cpdef _turn_upcard(self)
    cpdef _lay_dealt_red_threes(self, seat)
    cpdef verify_draw(self, move=*)
    cpdef bint can_draw(self, move=*) except -1
    cpdef draw(self, move=*)
    cpdef verify_stop(self, move=*)
    cpdef bint can_stop(self, move=*) except -1
    cpdef stop(self, move=*)
