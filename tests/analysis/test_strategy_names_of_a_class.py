"""The names charts and pages give a class's strategies: a student's copy of a built-in is never shown as the
built-in."""

from canasta_sim.analysis import strategy_names


def manifest(*entries: tuple[str, str]) -> dict:
    return {"strategies": [{"spec": spec, "label": label} for spec, label in entries]}


def test_a_file_named_as_a_built_in_is_shown_with_its_spec_even_without_the_built_in_in_the_run():
    names = strategy_names(manifest(("erin.py:Greedy", "greedy@2"), ("expert", "expert@1"),
                                    ("isolated:carol.py:Carol", "expert-ish@1")))
    assert names == {"erin.py:Greedy": "greedy@2 [erin.py:Greedy]", "expert": "expert@1",
                     "isolated:carol.py:Carol": "expert-ish@1"}


def test_the_built_ins_keep_their_own_names_in_process_isolated_or_with_parameters():
    names = strategy_names(manifest(("isolated:greedy", "greedy@2"), ("expert:aggression=0.7", "expert@1"),
                                    ("random", "random@2")))
    assert names == {"isolated:greedy": "greedy@2", "expert:aggression=0.7": "expert@1", "random": "random@2"}
