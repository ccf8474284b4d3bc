# C declarations for sim/moves.py, read by Cython only (issue #18; plain Python ignores this file).
# The move records' constructors set their frozen fields with CPython's generic attribute setter called
# from C (what object.__setattr__ runs), and MeldGroup.of makes its bare instance with CPython's generic
# __new__ (what object.__new__ runs); see the note above MeldGroup in sim/moves.py.

from cpython.object cimport PyObject_GenericSetAttr
from cpython.type cimport PyType_GenericNew
