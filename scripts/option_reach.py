"""Which rule sets of the environments' conformance sweeps reach what their options govern.

A sweep that plays masked games under a rule set checks that rule set's options only where the games meet a position
those options govern; one that never does plays, decision for decision, the default rules' games again.  This plays
each sweep's games exactly as its test plays them (the same seeds, policy and random draws) under each rule set, and
beside each a twin under the sweep's base rules given the same actions, and counts the decisions whose allowed actions
differ and the games whose hand results differ (or that parted: the action played is one the twin's mask refuses)::

    python scripts/option_reach.py
    python scripts/option_reach.py --sweep masks --interface pettingzoo --blind

The sweeps: ``masks`` (tests/env/test_mask_completeness.py: its ``RULE_SETS`` in the PettingZoo, Gymnasium and
OpenSpiel interfaces, and the brute force's driver games), ``options`` (tests/env/test_env.py's masked random play
under other rule options) and ``bounds`` (tests/env/test_observation_bounds.py, against the default rules at the same
target and hand cap).  A row with no decision and no hand result differing is *blind*: its games check nothing the
base rules' do, and its options need a constructed position instead (tests/env/test_option_positions.py).
``--blind`` prints only those rows, and exits 1 when there is any.  It takes a few minutes for every sweep.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from canasta_sim.core.rules import Rules  # noqa: E402
from canasta_sim.env import canasta_env  # noqa: E402
from canasta_sim.env.driver import GameDriver  # noqa: E402
from canasta_sim.env.encoding import DecisionOptions  # noqa: E402
from canasta_sim.env.gym import CanastaGymEnv  # noqa: E402
from tests.env import test_env, test_mask_completeness, test_observation_bounds  # noqa: E402
from tests.helpers import choose_leaning_to_lay  # noqa: E402


class Reach:
    """One rule set's games against their twins: decisions seen and differing, games whose hands differ."""

    def __init__(self) -> None:
        self.decisions = self.differing = self.games = self.hands_differing = self.parted = 0

    def compare(self, allowed, twin_allowed) -> None:
        """Count one decision, and whether the rule set's allowed actions differ from its twin's there."""
        self.decisions += 1
        self.differing += sorted(allowed) != sorted(twin_allowed)

    @property
    def blind(self) -> bool:
        """Whether nothing differed from the twins: these games check nothing the base rules' games do not."""
        return not (self.differing or self.hands_differing or self.parted)


def _pettingzoo(rules: dict, base: dict, games: int, choose, reach: Reach, **options) -> None:
    """tests.helpers.play_masked_game's loop, with its twin stepped alongside; ``options`` go to both environments."""
    env, twin = canasta_env(rules=rules, **options), canasta_env(rules=base, **options)
    for game in range(games):
        env.reset(seed=game)
        twin.reset(seed=game)
        together = True
        for agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            allowed = np.flatnonzero(observation["action_mask"]).tolist()
            action = choose(allowed)
            if together:
                mirrored = twin.agent_selection == agent and not any(twin.last()[2:4])
                twin_allowed = np.flatnonzero(twin.last()[0]["action_mask"]).tolist() if mirrored else []
                reach.compare(allowed, twin_allowed)
                together = action in twin_allowed
                if together:
                    twin.step(action)
            env.step(action)
        _finish(reach, together, env.driver.hands, twin.driver.hands)


def _gymnasium(rules: dict, base: dict, games: int, choose, reach: Reach) -> None:
    """tests/env/test_mask_completeness.py's Gymnasium games, with their twins."""
    env = CanastaGymEnv(partner="greedy", opponents="random", rules=rules, on_illegal="raise")
    twin = CanastaGymEnv(partner="greedy", opponents="random", rules=base, on_illegal="raise")
    for game in range(games):
        _, info = env.reset(seed=game)
        _, twin_info = twin.reset(seed=game)
        together, done = True, False
        while not done:
            allowed = np.flatnonzero(info["action_mask"]).tolist()
            action = choose(allowed)
            if together:
                twin_allowed = np.flatnonzero(twin_info["action_mask"]).tolist()
                reach.compare(allowed, twin_allowed)
                together = action in twin_allowed
                if together:
                    _, _, twin_terminated, twin_truncated, twin_info = twin.step(action)
            _, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated
            if together and done != (twin_terminated or twin_truncated):
                together = False
        _finish(reach, together, env.driver.hands, twin.driver.hands)


def _openspiel(rules: dict, base: dict, games: int, choose, reach: Reach, rng: random.Random) -> None:
    """tests/env/test_mask_completeness.py's OpenSpiel hands, with their twins (chance draws the same outcomes)."""
    from canasta_sim.env.openspiel import load

    game, twin_game = load(**rules, scope="hand"), load(**base, scope="hand")
    for _ in range(games):
        state, twin = game.new_initial_state(), twin_game.new_initial_state()
        together = True
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                action = rng.choices([action for action, _ in outcomes], [chance for _, chance in outcomes])[0]
            else:
                allowed = state.legal_actions()
                action = choose(allowed)
                if together:
                    same_seat = not twin.is_terminal() and twin.current_player() == state.current_player()
                    twin_allowed = twin.legal_actions() if same_seat else []
                    reach.compare(allowed, twin_allowed)
                    together = action in twin_allowed
            if together:
                twin.apply_action(action)
            state.apply_action(action)
        _finish(reach, together and twin.is_terminal(), state.tree.hands, twin.tree.hands)


def _driver(rules: dict, base: dict, games: int, rng: random.Random, reach: Reach) -> None:
    """tests/env/test_mask_completeness.py's brute-force games (the driver's decisions, their actions one by one)."""
    driver, twin = GameDriver(_rules(rules)), GameDriver(_rules(base))
    for game in range(games):
        driver.reset(game)
        twin.reset(game)
        together = True
        while not driver.is_over:
            seat, decision = driver.actor, driver.decision
            options = DecisionOptions.of(driver.view(seat), decision)
            twin_options = (DecisionOptions.of(twin.view(seat), decision)
                            if together and not twin.is_over and (twin.actor, twin.decision) == (seat, decision)
                            else None)
            prefix = ()
            while True:
                allowed = options.allowed(prefix)
                action = choose_leaning_to_lay(rng, allowed)
                if together:
                    twin_allowed = twin_options.allowed(prefix) if twin_options is not None else []
                    reach.compare(allowed, twin_allowed)
                    together = action in twin_allowed
                if together:  # the same actions may end the twin's move elsewhere (a take needing extra melds)
                    twin_played = twin_options.play(prefix, action)
                prefix, value, complete = options.play(prefix, action)
                if together and (twin_played[1:] != (value, complete)):
                    together = False
                if complete:
                    break
            if together:
                twin.decide(value)
            driver.decide(value)
        _finish(reach, together and twin.is_over, driver.hands, twin.hands)


def _rules(options: dict) -> Rules:
    return Rules.from_mapping({key: str(value) if isinstance(value, bool) else value for key, value in options.items()})


def _finish(reach: Reach, together: bool, hands, twin_hands) -> None:
    reach.games += 1
    if not together:
        reach.parted += 1
    elif list(hands) != list(twin_hands):
        reach.hands_differing += 1


def _parametrized(test, name: str) -> list:
    """The values a test's ``pytest.mark.parametrize`` gives ``name``."""
    for mark in test.pytestmark:
        if mark.name == "parametrize" and mark.args[0] == name:
            return list(mark.args[1])
    raise LookupError(f"{test.__name__} is not parametrized by {name!r}")


def _base(options: dict, rule_sets: list[dict]) -> dict:
    """What ``options`` is measured against: the last rule set of the sweep before it that it holds, as a sweep lists
    its contexts before their variants (``canastas_to_go_out=2`` for each alternative with it); the defaults when
    none."""
    held = [other for other in rule_sets[:rule_sets.index(options)]
            if all(options.get(key, object()) == value for key, value in other.items())]
    return held[-1] if held else {}


def _comparisons(rule_sets: list[dict], each_option: bool):
    """``(options, base)`` pairs: each rule set against its base, and with ``each_option`` each option of a rule set of
    several against the rule set without it (another option of the pair may reach what it governs, this one not)."""
    for options in rule_sets:
        if not options:
            continue
        base = _base(options, rule_sets)
        yield options, base
        extra = [key for key in options if key not in base]
        if each_option and len(extra) > 1:
            for key in extra:
                without = {name: value for name, value in options.items() if name != key}
                try:
                    _rules(without)
                except ValueError:  # e.g. max_wilds_per_meld=5 needs the wild_ratio_rule it came with
                    continue
                yield options, without


def mask_rows(interfaces: list[str], each_option: bool):
    """The mask sweep: each rule set of ``RULE_SETS`` in each interface, as its tests play them."""
    module = test_mask_completeness
    short = module.SHORT
    games = {name: count for name, (_, count) in module.INTERFACES.items()}
    games["brute-force"] = module.BRUTE_FORCE_GAMES
    for options, base in _comparisons(module.RULE_SETS, each_option):
        rules, base_rules = {**short, **options}, {**short, **base}
        for interface in interfaces:
            reach = Reach()
            rng = random.Random(11 if interface == "brute-force" else 7)
            choose = lambda allowed, rng=rng: choose_leaning_to_lay(rng, allowed)  # noqa: E731
            if interface == "pettingzoo":
                _pettingzoo(rules, base_rules, games[interface], choose, reach)
            elif interface == "gymnasium":
                _gymnasium(rules, base_rules, games[interface], choose, reach)
            elif interface == "openspiel":
                _openspiel(rules, base_rules, games[interface], choose, reach, rng)
            else:
                _driver(rules, base_rules, games[interface], rng, reach)
            measured = {key: value for key, value in options.items() if base.get(key, object()) != value}
            yield "masks", module._rules_id(measured), module._rules_id(options), interface, reach


def option_rows():
    """tests/env/test_env.py's masked uniform play under other rule options: 10 PettingZoo games each."""
    base = test_env.SHORT
    for options in _parametrized(test_env.test_masked_random_play_stays_legal_under_other_rule_options, "options"):
        reach = Reach()
        rng = random.Random(23)
        _pettingzoo({**base, **options}, base, 10, lambda allowed, rng=rng: allowed[rng.randrange(len(allowed))],
                    reach)
        shown = test_mask_completeness._rules_id(options)
        yield "options", shown, shown, "pettingzoo", reach


def bounds_rows():
    """tests/env/test_observation_bounds.py's uniform random games, each rule set against the default rules at the
    same target (its hand cap is the environments', given to both)."""
    test = test_observation_bounds.test_every_observation_of_masked_random_games_lies_in_the_space
    for name, target, max_hands, games in _parametrized(test, ("name", "target", "max_hands", "games")):
        if name == "default":
            continue
        reach = Reach()
        rng = random.Random(31)
        rules = {**test_observation_bounds.RULE_SETS[name], "target_score": target}
        uniform = lambda allowed, rng=rng: allowed[rng.randrange(len(allowed))]  # noqa: E731
        _pettingzoo(rules, {"target_score": target}, games, uniform, reach, max_hands=max_hands)
        yield "bounds", name, f"{name},target_score={target},max_hands={max_hands}", "pettingzoo", reach


SWEEPS = ("masks", "options", "bounds")
INTERFACES = ("pettingzoo", "gymnasium", "openspiel", "brute-force")


def main(argv: list[str] | None = None) -> int:
    """Measure the sweeps asked for and print a row per rule set measured; exit code 1 only when ``--blind`` finds a
    blind row."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sweep", choices=SWEEPS, action="append", help="a sweep to measure (default: all)")
    parser.add_argument("--interface", choices=INTERFACES, action="append",
                        help="the mask sweep's interfaces to measure (default: all)")
    parser.add_argument("--each-option", action="store_true",
                        help="also measure each option of a rule set of several against the rule set without it")
    parser.add_argument("--blind", action="store_true", help="print only the blind rows; exit 1 when there is one")
    arguments = parser.parse_args(argv)
    sweeps = arguments.sweep or list(SWEEPS)
    rows = []
    if "masks" in sweeps:
        rows.append(mask_rows(arguments.interface or list(INTERFACES), arguments.each_option))
    if "options" in sweeps:
        rows.append(option_rows())
    if "bounds" in sweeps:
        rows.append(bounds_rows())
    print(f"{'sweep':8} {'interface':12} {'compared':>8} {'differ':>6} {'games':>5} {'hands':>5} {'parted':>6}  "
          "options measured (rule set)")
    blind = 0
    for sweep_rows in rows:
        for sweep, measured, rule_set, interface, reach in sweep_rows:
            blind += reach.blind
            if reach.blind or not arguments.blind:
                within = "" if measured == rule_set else f" ({rule_set})"
                shown = f"{measured}{within}{'  BLIND' if reach.blind else ''}"
                print(f"{sweep:8} {interface:12} {reach.decisions:8} {reach.differing:6} {reach.games:5} "
                      f"{reach.hands_differing:5} {reach.parted:6}  {shown}", flush=True)
    print(f"{blind} blind row(s): no decision's mask and no hand result differs from its base's in the same games")
    return 1 if blind and arguments.blind else 0


if __name__ == "__main__":
    sys.exit(main())
