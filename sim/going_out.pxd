# C declarations for sim/going_out.py, read by Cython only (issue #18; plain Python ignores this file).
# The search's parts call each other as C functions instead of through the module's Python names (the
# strategies' find_meld_out included); every one stays an ordinary function from Python.  No other module
# cimports them, so this module may still run compiled or from source on its own.

cpdef _find_meld_out(rules, hand, melds, minimum, allow_no_discard, allow_discard)
cpdef list _leftover_candidates(rules, hand, melds, allow_discard, allow_no_discard)
cpdef _lay_all(rules, list counts, melds, minimum, no_discard)
