"""People at the table: the narration of a game, and a human player at the terminal."""
