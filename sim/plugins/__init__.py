"""Strategy specs to strategies: in this process, or each in a process of its own over the bot protocol."""
