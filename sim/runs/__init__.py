"""Playing many games in worker processes and keeping them: the runner, its supervisor, the tables and summaries."""
