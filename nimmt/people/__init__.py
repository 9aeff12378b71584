"""People who come back: players, their finished games, groups and their leagues, ratings."""
