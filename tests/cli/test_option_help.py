"""Every command's ``--help``, walked so that a command added later is held too: -h for --help, each option's range,
default and value name said as a reader takes them, rule keys and strategy specs sent to where they are listed."""

import re
import shlex
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from canasta_sim.cli import COMMANDS, main
from canasta_sim.cli.docs import page_names


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_whole_number_without_bounds_shows_no_range_in_help(command):
    # click describes an IntRange with neither bound as "x<=None": --seed's help ended with "[x<=None]".
    result = CliRunner().invoke(main, [command, "--help"])
    assert result.exit_code == 0, result.output
    assert "None]" not in result.output


@pytest.mark.parametrize("width", [60, 80])
def test_help_wraps_lines_at_spaces_never_inside_a_hyphenated_name(width):
    # click wrapped at hyphens: "(as isolated:SPEC; canasta-" then "sim docs protocol)", a command no one can copy.
    for command in [[], ["run"], ["compare"], ["report"], ["watch"]]:
        result = CliRunner().invoke(main, [*command, "--help"], terminal_width=width)
        assert result.exit_code == 0, result.output
        broken = [line for line in result.output.splitlines() if line.rstrip().endswith("-")
                  and not line.rstrip().endswith(" -")]
        assert not broken, broken
        assert "\u2011" not in result.output


def every_command():
    """``(words typed, command, its context)`` of the program and of every command under it, groups walked, so that a
    command added later is held by each rule here without being named."""
    def walk(command, words, parent=None):
        # With the settings the program gives (-h): a command caches its help option from the first context it sees.
        context = click.Context(command, info_name=words[-1], parent=parent, **command.context_settings)
        yield words, command, context
        if isinstance(command, click.Group):
            for name in command.list_commands(context):
                yield from walk(command.get_command(context, name), [*words, name], context)

    return list(walk(main, ["canasta-sim"]))


def value_options():
    """``(command words, option)`` of every option of every command that takes a value (no flag)."""
    return [(" ".join(words), option) for words, command, _context in every_command() for option in command.params
            if isinstance(option, click.Option) and not option.is_flag]


def test_every_command_and_group_takes_h_for_help():
    for words, _command, _context in every_command():
        short = CliRunner().invoke(main, [*words[1:], "-h"])
        assert short.exit_code == 0 and short.output.startswith("Usage: "), (words, short.output)
        assert short.output == CliRunner().invoke(main, [*words[1:], "--help"]).output, words


def test_every_option_with_a_value_says_its_default_or_that_it_is_needed():
    # run --time-limit and --memory-limit said neither that they were off nor what they were without the option.
    # Exempt: an option repeated (none given is its default) and a file or folder named only to be read or written.
    unsaid = []
    for command, option in value_options():
        if option.multiple or (isinstance(option.type, click.Path) and option.default is None):
            continue
        shown = option.show_default and option.default is not None
        if not shown and not any(word in (option.help or "").lower() for word in ("default", "needed")):
            unsaid.append((command, option.opts[-1]))
    assert unsaid == []


def test_an_option_is_shown_with_one_value_name_in_every_command():
    # --out read DIRECTORY in run, PATH in tune and plot, DIR in compare: one folder, three names.
    names = {}
    for _words, command, context in every_command():
        for option in command.params:
            if isinstance(option, click.Option) and not option.is_flag:
                names.setdefault(option.opts[-1], set()).add(option.make_metavar(context))
    assert {option: shown for option, shown in names.items() if len(shown) > 1} == {}


def test_every_rules_option_gives_an_example_and_the_page_that_lists_the_keys():
    # "Rule-set option (repeatable)" named no key, no value, and no place to find them.
    rules = [(command, option) for command, option in value_options() if option.opts == ["--rules"]]
    assert {command for command, _ in rules} >= {"canasta-sim run", "canasta-sim watch", "canasta-sim play"}
    for command, option in rules:
        assert "target_score=3000" in option.help and "canasta-sim docs rules, section 17" in option.help, command
    page = (Path(__file__).resolve().parents[2] / "docs" / "rules.md").read_text(encoding="utf-8")
    assert "\n## 17. Rule-set options\n" in page


def test_every_command_taking_a_strategy_says_where_the_specs_are_listed():
    # A SPEC was named everywhere and explained nowhere but in canasta-sim strategies, which no help pointed to.
    for words, command, context in every_command():
        shown = [param.make_metavar(context) for param in command.params]
        if any("SPEC" in name or name in {"NEW"} for name in shown) and words[-1] != "strategies":
            assert "canasta-sim strategies lists" in " ".join(command.get_help(context).split()), words


UNITS = {"SECONDS": "seconds", "MB": "MiB: 1024 x 1024 bytes"}
"""What the help of an option shown with each value name says its unit is."""


def test_every_option_of_an_amount_says_its_unit():
    # --memory-limit said "Megabytes", which the limit takes as MiB, and plot's --dpi said only "Resolution".
    amounts = [(words[-1], option, option.make_metavar(context)) for words, command, context in every_command()
               for option in command.params if isinstance(option, click.Option)]
    amounts = [(command, option, UNITS[shown]) for command, option, shown in amounts if shown in UNITS]
    assert {option.opts[-1] for _, option, _ in amounts} >= {"--time-limit", "--memory-limit", "--task-timeout"}
    for command, option, unit in amounts:
        assert unit in option.help or unit in option.help.lower(), (command, option.opts)
    assert "dots per inch" in CliRunner().invoke(main, ["plot", "--help"]).output


def test_every_command_and_page_a_help_text_names_is_one_there_is():
    # A help text sends its reader on (canasta-sim docs fairness, canasta-sim strategies): a page renamed or a command
    # gone would leave the pointer to fail when typed.
    pages = set(page_names())
    named = []
    for words, command, context in every_command():
        text = " ".join(command.get_help(context).split())
        named += [(words[-1], *found) for found in re.findall(r"canasta-sim ([\w-]+)(?: ([\w-]+))?", text)]
    assert {name for _, name, _ in named} >= {"docs", "strategies", "watch", "run"}
    assert [(where, name) for where, name, _ in named if name not in COMMANDS and name != "COMMAND"] == []
    sent_to = {page for _, name, page in named if name == "docs"}
    assert sent_to & pages >= {"rules", "fairness", "protocol"}
    assert sent_to - pages <= {"", "lists"}  # the command alone: "canasta-sim docs lists the documentation pages"


def test_tune_params_says_where_the_parameters_and_their_ranges_are_listed():
    # "Parameters to tune" left a reader to guess the names tune takes.
    output = " ".join(CliRunner().invoke(main, ["tune", "--help"]).output.split())
    assert "comma-separated (default: every parameter with a declared range; canasta-sim strategies SPEC lists them" \
           in output


def test_every_example_a_help_text_gives_parses_as_typed():
    # Each "e.g. canasta-sim ..." of a help text is a line a reader copies: it must name a command, its options and
    # their values as the command takes them.
    examples = []
    for _words, command, context in every_command():
        text = " ".join(command.get_help(context).split())
        examples += re.findall(r"e\.g\. (canasta-sim [^;]*?)[.;](?: |$)", text)
    assert {example.split()[1] for example in examples} >= {"compare", "docs", "run", "replay"}
    for example in examples:
        name, *rest = shlex.split(example)[1:]
        with click.Context(main, info_name="canasta-sim", **main.context_settings) as parent:
            main.get_command(parent, name).make_context(name, rest, parent=parent)


def test_compare_says_the_range_of_alpha_and_beta():
    # "Chance of accepting H1 when H0 is true" left 5 or 50 to be tried: they are refused outside (0, 1).
    output = " ".join(CliRunner().invoke(main, ["compare", "--help"]).output.split())
    assert output.count("between 0 and 1 (alpha + beta below 1)") == 2


CHATTY_AND_FAILING = '''
from canasta_sim.strategies.greedy import Greedy


class ChattyFailing(Greedy):
    name = "chatty-failing"

    def choose_discard(self, view):
        print("thinking about my discard")
        if self.rng.random() < 0.05:
            raise IndexError("no such card")
        return super().choose_discard(view)
'''


@pytest.mark.timeout(60)
def test_runs_verbose_shows_on_screen_what_its_help_says_it_shows(tmp_path):
    # Its help said "More messages: one line per chunk written", where -v shows what the strategies print as well
    # (what check-strategy's -v alone shows) and a failing strategy's traceback: the help names each now.
    help_text = " ".join(CliRunner().invoke(main, ["run", "--help"], terminal_width=200).output.split())
    assert "what strategies print, a bot's stderr, a failing strategy's traceback, a line per chunk written" in \
        help_text
    (tmp_path / "chatty.py").write_text(CHATTY_AND_FAILING)
    command = ["run", "-s", f"{tmp_path / 'chatty.py'}:ChattyFailing", "-s", "greedy", "--games", "2", "--seed", "1",
               "--workers", "1", "--on-error", "forfeit", "--rules", "target_score=1000"]
    shown = [" the strategies printed:", "thinking about my discard", "Traceback (most recent call last)",
             "chunk 0: 1 of 1 games written"]
    loud = CliRunner().invoke(main, [*command, "--out", str(tmp_path / "loud"), "-v"])
    quiet = CliRunner().invoke(main, [*command, "--out", str(tmp_path / "quiet")])
    assert loud.exit_code == quiet.exit_code == 0, (loud.output, quiet.output)
    assert all(text in loud.output for text in shown), loud.output
    assert not any(text in quiet.output for text in shown), quiet.output
