"""The OpenSpiel game's public observer: what every seat may know, and nothing of the hidden cards."""

import random

import numpy as np
import pyspiel
import pytest
from open_spiel.python.observation import make_observation

import canasta_sim.env.openspiel as spiel_game  # registers the game
from canasta_sim.env.public import PUBLIC_FIELDS, PUBLIC_OBSERVATION_SIZE

PUBLIC = pyspiel.IIGObservationType(perfect_recall=False, public_info=True,
                                    private_info=pyspiel.PrivateInfoType.NONE)
PUBLIC_RECORD = pyspiel.IIGObservationType(perfect_recall=True, public_info=True,
                                           private_info=pyspiel.PrivateInfoType.NONE)
PRIVATE = pyspiel.IIGObservationType(perfect_recall=False, public_info=False,
                                     private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER)
PRIVATE_RECORD = pyspiel.IIGObservationType(perfect_recall=True, public_info=False,
                                            private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER)


def _chance(state, rng):
    actions, probabilities = zip(*state.chance_outcomes(), strict=True)
    state.apply_action(rng.choices(actions, probabilities)[0])


def _states(game, seed: int, decisions: int):
    """Every decision state of ``decisions`` random decisions from a new game (its deal included)."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    while decisions > 0 and not state.is_terminal():
        if state.is_chance_node():
            _chance(state, rng)
            continue
        yield state
        state.apply_action(rng.choice(state.legal_actions()))
        decisions -= 1


def _observed(observer, state, player: int = 0):
    observer.set_from(state, player)
    return observer.tensor.copy(), observer.string_from(state, player)


@pytest.mark.timeout(30)
def test_states_that_differ_only_in_hidden_cards_observe_the_same_publicly():
    game = pyspiel.load_game("canasta_sim", {"target_score": 5000})
    rng = random.Random(1)
    observers = [make_observation(game, PUBLIC), make_observation(game, PUBLIC_RECORD)]
    own = make_observation(game)
    compound = hidden_seen = 0
    for number, state in enumerate(_states(game, 11, 60)):
        if number % 6 and not state.tree.prefix:
            continue
        compound += bool(state.tree.prefix)
        for player in (1, 2):  # seat 0's hand dealt anew by both, every other hand by one or the other
            other = state.resample_from_infostate(player, rng.random)  # the others' hands and the stock anew
            hidden_seen += not np.array_equal(_observed(own, state)[0], _observed(own, other)[0])
            for observer in observers:
                tensor, text = _observed(observer, state)
                again, again_text = _observed(observer, other, player)
                assert np.array_equal(tensor, again) and text == again_text
    assert compound  # a compound move half built (its choices private) was among the states
    assert hidden_seen  # seat 0's own observation tells the states apart: the hidden cards did differ


@pytest.mark.timeout(30)
def test_every_seat_observes_the_same_public_observation_and_no_cards_in_hand():
    game = pyspiel.load_game("canasta_sim", {"target_score": 5000})
    observer = make_observation(game, PUBLIC)
    own = make_observation(game)
    state = list(_states(game, 3, 25))[-1]
    seen = {_observed(observer, state, player)[1] for player in range(4)}
    assert len(seen) == 1
    tensor, text = _observed(observer, state)
    assert tensor.shape == (PUBLIC_OBSERVATION_SIZE,) and text.startswith("public\n")
    assert [line.split()[0] for line in text.splitlines()[1:]] == [name for name, *_ in PUBLIC_FIELDS]
    record = _observed(make_observation(game, PUBLIC_RECORD), state)[1].splitlines()
    assert record[0] == "public" and not [line for line in record if line.startswith(("dealt ", "got ", "sampled "))]
    assert record[2:] == state.tree.public_log + [f"{state.tree.decision} by {state.current_player()}"]
    sizes = observer.dict["observation"][78 + 4:78 + 8]  # after both sides' melds and the red 3s
    assert list(sizes) == list(state.tree.state.hand_sizes)
    own.set_from(state, 0)
    assert own.tensor.shape == (211,)  # a seat's own observer is unchanged


@pytest.mark.timeout(30)
def test_a_public_observation_follows_the_public_moves():
    game = pyspiel.load_game("canasta_sim", {"target_score": 5000})
    observer = make_observation(game, PUBLIC)
    states = [_observed(observer, state)[1] for state in _states(game, 5, 12)]
    assert len(set(states)) > 6  # draws and discards change the table


def test_an_offer_to_ask_observes_publicly_as_the_meld_decision_it_turns_into():
    """R12.5: the offer comes only to a seat that can go out, and declining is silent, so the table must not see it."""
    game = pyspiel.load_game("canasta_sim", {"target_score": 5000})
    observers = [make_observation(game, PUBLIC), make_observation(game, PUBLIC_RECORD)]
    state = next(state for state in _states(game, 3, 40) if state.tree.decision == "meld")
    melding = [_observed(observer, state) for observer in observers]
    state.tree.decision = "ask"  # the same table, the seat offered to ask instead (only the decision is read)
    asking = [_observed(observer, state) for observer in observers]
    assert all(np.array_equal(a[0], b[0]) and a[1] == b[1] for a, b in zip(melding, asking, strict=True))


def test_the_observer_refuses_an_observation_type_it_does_not_give():
    game = pyspiel.load_game("canasta_sim", {"target_score": 50})
    every_hand = pyspiel.IIGObservationType(perfect_recall=False, public_info=True,
                                            private_info=pyspiel.PrivateInfoType.ALL_PLAYERS)
    nothing = pyspiel.IIGObservationType(perfect_recall=False, public_info=False,
                                         private_info=pyspiel.PrivateInfoType.NONE)
    for refused in (every_hand, nothing):  # docs/env.md names both as refused
        with pytest.raises(ValueError, match="private_info=SINGLE_PLAYER"):
            make_observation(game, refused)
    assert spiel_game.PUBLIC_INFORMATION_SIZE == PUBLIC_OBSERVATION_SIZE + 120


@pytest.mark.timeout(30)
def test_a_seats_private_observation_holds_its_hand_and_choices_and_what_it_alone_has_seen():
    """OpenSpiel's playthrough (generate_playthrough) asks an imperfect-information game for a seat's private
    observation (public_info=False, private_info=SINGLE_PLAYER); the observer refused it with ValueError, so the
    playthrough stopped before its first state."""
    game = pyspiel.load_game("canasta_sim", {"target_score": 50})
    private, record = make_observation(game, PRIVATE), make_observation(game, PRIVATE_RECORD)
    assert private.tensor.shape == (spiel_game.PRIVATE_OBSERVATION_SIZE,) == (58,)
    prefixes = 0
    for state in _states(game, 3, 60):
        prefixes += bool(state.tree.prefix)
        for player in range(4):
            own = np.asarray(state.observation_tensor(player))
            private.set_from(state, player)
            assert np.array_equal(private.dict["hand"], own[:15])  # the fields of docs/env.md's observation table
            assert np.array_equal(np.concatenate([private.dict["pending_groups"], private.dict["pending_take"]]),
                                  own[93:135])
            lines = record.string_from(state, player).splitlines()
            assert lines[:2] == [f"seat {player}", lines[1]] and lines[1].startswith("dealt ")
            assert set(lines) <= set(state.information_state_string(player).splitlines())
            world = state.resample_from_infostate(player, random.Random(player).random)
            for observer in (private, record):  # all the seat's own: the same in every world it cannot tell apart
                seen, again = _observed(observer, state, player), _observed(observer, world, player)
                assert np.array_equal(seen[0], again[0]) and seen[1] == again[1]
    assert prefixes  # compound moves under way among the states
