# C declarations for sim/view.py, read by Cython only (issue #18; plain Python ignores this file).
# SeatView becomes an extension type: its properties are C getters instead of Python calls, and it reaches
# the hand state's fields (sim/melding.pxd) as C struct members.

from canasta_sim.state cimport HandState


cdef class SeatView:
    cdef public HandState _state
    cdef public Py_ssize_t _seat
    cdef public object _scores
