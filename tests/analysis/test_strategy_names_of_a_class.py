"""The names charts and pages give a class's strategies: a student's copy of a built-in is never shown as the
built-in."""

import pytest

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


@pytest.mark.timeout(120)
def test_the_reports_header_names_the_copy_as_the_charts_do(tmp_path):
    from click.testing import CliRunner

    from canasta_sim.cli import main

    (tmp_path / "erin.py").write_text("from canasta_sim.strategies import Greedy\n\n\nclass Greedy(Greedy):\n"
                                      "    name = 'greedy'\n\n    def choose_ask(self, view):\n        return False\n")
    out = tmp_path / "run"
    played = CliRunner().invoke(main, ["run", "--games", "2", "--seed", "1", "--workers", "1", "-q", "--rules",
                                       "target_score=500", "-s", f"{tmp_path}/erin.py:Greedy", "-s", "random",
                                       "--out", str(out)])
    assert played.exit_code == 0, played.output
    header = CliRunner().invoke(main, ["report", str(out)]).output.splitlines()[0]
    assert header.endswith(f": greedy@2 [{tmp_path}/erin.py:Greedy] vs random@2"), header
